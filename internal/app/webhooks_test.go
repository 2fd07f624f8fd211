package app

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"hush/internal/webhook/webhooktest"
)

// addEndpoint registers an endpoint at r for the token's account through
// the API of base, and gives r its secret.
func addEndpoint(t *testing.T, p *peer, tok string, r *webhooktest.Receiver, events ...string) {
	t.Helper()
	c := p.json("POST", "/api/v2/webhooks", map[string]any{"url": r.URL() + "/in", "events": events}, "Authorization", "Bearer "+tok)
	if c.status != http.StatusCreated {
		t.Fatalf("add endpoint: %d %s", c.status, c.body)
	}
	r.SetSecret(c.obj(t)["secret"].(string))
}

// waitFor waits until r has n deliveries.
func waitFor(t *testing.T, r *webhooktest.Receiver, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(r.Deliveries()) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := len(r.Deliveries()); got < n {
		t.Fatalf("%d deliveries, want %d: %v", got, n, r.Types())
	}
}

// hush serve delivers webhooks without email: the outbox worker runs for
// them, and is woken by the event (no wait for its poll); a page's view
// and the API's create both send, signed.
func TestWebhooksServe(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_WEBHOOK_ALLOW_PRIVATE": "true"}
	srv := startServe(t, env)
	p := newPeer(t, srv.url, 1)
	p.signUp("hooks@example.com", "password hooks")
	tok := tokenFor(t, env, "hooks@example.com")
	r := webhooktest.Start(t, time.Now)
	addEndpoint(t, p, tok, r, "push.created", "push.viewed")

	start := time.Now()
	pushTok := p.createPush(map[string]any{"payload": "SERVE-SECRET-1"}, "Authorization", "Bearer "+tok)
	waitFor(t, r, 1)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the first delivery took %v: the worker was not woken", d)
	}
	// A stranger views it (the owner's own look is an owner_view, no event).
	if v := newPeer(t, srv.url, 3).get("/p/" + pushTok); v.status != http.StatusOK || !strings.Contains(v.body, "SERVE-SECRET-1") {
		t.Fatalf("view: %d", v.status)
	}
	waitFor(t, r, 2)
	if got := strings.Join(r.Types(), " "); got != "push.created push.viewed" || r.Forged() != 0 {
		t.Errorf("delivered %q, %d forged", got, r.Forged())
	}
	for _, d := range r.Deliveries() {
		if strings.Contains(string(d.Body), "SERVE-SECRET-1") || strings.Contains(string(d.Body), pushTok) {
			t.Errorf("body %s holds the secret or its link", d.Body)
		}
	}
}

// Two instances on one PostgreSQL database: every event is delivered, and
// once.
func TestWebhooksTwoInstancesDeliverOnce(t *testing.T) {
	a, b, env := twoInstances(t, map[string]string{"HUSH_WEBHOOK_ALLOW_PRIVATE": "true"})
	pa, pb := newPeer(t, a.url, 1), newPeer(t, b.url, 2)
	pa.signUp("two@example.com", "password two two")
	tok := tokenFor(t, env, "two@example.com")
	r := webhooktest.Start(t, time.Now)
	addEndpoint(t, pa, tok, r, "push.created")
	const n = 30
	for i := range n {
		p := pa
		if i%2 == 1 {
			p = pb
		}
		p.createPush(map[string]any{"payload": fmt.Sprint("x", i)}, "Authorization", "Bearer "+tok)
	}
	waitFor(t, r, n)
	time.Sleep(6 * time.Second) // a poll of each worker, for any duplicate
	seen := map[string]int{}
	for _, d := range r.Deliveries() {
		seen[d.ID]++
	}
	if len(seen) != n || len(r.Deliveries()) != n {
		t.Errorf("%d deliveries of %d messages, want %d of %d", len(r.Deliveries()), len(seen), n, n)
	}
}
