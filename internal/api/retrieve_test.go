package api

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
)

func TestRetrieveLifecycle(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(map[string]any{"payload": "the secret", "expire_after_views": 2, "note": "owner only"})
	path := "/api/v2/pushes/" + tok

	r := h.do("GET", path, nil)
	wantStatus(t, "view 1", r, 200)
	m := r.obj(t)
	wantKeys(t, "retrieve", m, plus("payload", "files")...)
	if m["payload"] != "the secret" || m["views_remaining"] != 1.0 || m["expired"] != false {
		t.Errorf("view 1: %s", r.body)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
	}
	h.clock.Advance(time.Second)

	// The last view is served, and reads as not yet expired.
	m = h.do("GET", path+".json", nil).obj(t)
	if m["payload"] != "the secret" || m["views_remaining"] != 0.0 || m["expired"] != false || m["expired_on"] != nil {
		t.Errorf("last view: %v", m)
	}
	// Then the push is expired: 200, no payload, views keep dropping (floored).
	m = h.do("GET", path, nil).obj(t)
	if m["payload"] != nil || m["expired"] != true || m["passphrase"] != nil || m["deleted"] != false ||
		m["expired_on"] != "2026-01-01T01:00:01.000Z" || m["views_remaining"] != 0.0 {
		t.Errorf("after expiry: %v", m)
	}
	if files, ok := m["files"].([]any); !ok || len(files) != 0 {
		t.Errorf("files %v, want []", m["files"])
	}
	// The secret material is gone from the database.
	p, err := h.store.PushByKey(t.Context(), secure.TokenKey(tok))
	if err != nil || p.PayloadSealed != nil || !p.Expired || p.NoteSealed == nil {
		t.Errorf("stored after expiry: payload %v expired %v note kept %v err %v", p.PayloadSealed, p.Expired, p.NoteSealed != nil, err)
	}

	wantStatus(t, "unknown", h.do("GET", "/api/v2/pushes/doesnotexist", nil), 404)
	wantBody(t, "unknown", h.do("GET", "/api/v2/pushes/doesnotexist", nil), `{"error":"not-found"}`)
	wantStatus(t, "token with a dot", h.do("GET", "/api/v2/pushes/a.b", nil), 404)
	wantStatus(t, "encoded slash", h.do("GET", "/api/v2/pushes/a%2Fb", nil), 404)
}

// TestSubDayDurationExpiresExactly: expire_after_duration 0..5 (sent by
// Password Pusher's clients) makes a push that lasts exactly that long, at
// access and in the sweeper, and reads as expire_after_days 1 with one day
// remaining until then (docs/decisions.md, D4).
func TestSubDayDurationExpiresExactly(t *testing.T) {
	h := newHarness(t, nil)
	for _, c := range []struct {
		code  int
		limit time.Duration
	}{{0, 15 * time.Minute}, {1, 30 * time.Minute}, {2, 45 * time.Minute}, {3, time.Hour}, {4, 6 * time.Hour}, {5, 12 * time.Hour}} {
		h.clock.Set(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC))
		r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "brief", "expire_after_duration": c.code}})
		if r.status != 201 {
			t.Fatalf("code %d: create %d %s", c.code, r.status, r.body)
		}
		m := r.obj(t)
		if m["expire_after_days"] != 1.0 || m["days_remaining"] != 1.0 {
			t.Errorf("code %d: expire_after_days %v days_remaining %v, want 1 and 1", c.code, m["expire_after_days"], m["days_remaining"])
		}
		accessed, swept := m["url_token"].(string), h.create(map[string]any{"payload": "brief", "expire_after_duration": c.code})
		h.clock.Advance(c.limit - time.Millisecond)
		m = h.do("GET", "/api/v2/pushes/"+accessed, nil).obj(t)
		if m["payload"] != "brief" || m["expired"] != false || m["days_remaining"] != 1.0 {
			t.Errorf("code %d, 1ms before %v: %v", c.code, c.limit, m)
		}
		if res, err := h.env.Service.Sweep(t.Context(), 0); err != nil || res.Expired != 0 {
			t.Errorf("code %d: sweep 1ms before: %+v %v", c.code, res, err)
		}
		h.clock.Advance(time.Millisecond)
		m = h.do("GET", "/api/v2/pushes/"+accessed, nil).obj(t)
		if m["payload"] != nil || m["expired"] != true || m["days_remaining"] != 0.0 {
			t.Errorf("code %d, at %v: %v", c.code, c.limit, m)
		}
		if res, err := h.env.Service.Sweep(t.Context(), 0); err != nil || res.Expired != 1 {
			t.Errorf("code %d: sweep at the limit: %+v %v, want the other push expired", c.code, res, err)
		}
		if p := mustPush(t, h, swept); !p.Expired || p.PayloadSealed != nil {
			t.Errorf("code %d: the swept push is not expired", c.code)
		}
	}
}

func TestOwnerViewDoesNotCount(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	other := h.user("x@example.com")
	tok := h.create(map[string]any{"payload": "p", "expire_after_views": 1}, bearer(owner)...)
	for i := 0; i < 3; i++ {
		m := h.do("GET", "/api/v2/pushes/"+tok, nil, bearer(owner)...).obj(t)
		if m["payload"] != "p" || m["views_remaining"] != 1.0 {
			t.Fatalf("owner view %d: %v", i, m)
		}
	}
	if m := h.do("GET", "/api/v2/pushes/"+tok, nil, bearer(other)...).obj(t); m["payload"] != "p" || m["views_remaining"] != 0.0 {
		t.Errorf("another user's view counts: %v", m)
	}
	if m := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t); m["payload"] != nil {
		t.Errorf("served after the last view: %v", m)
	}
	kinds := auditKinds(t, h, tok, owner)
	want := "creation,owner_view,owner_view,owner_view,view,failed_view"
	if kinds != want {
		t.Errorf("audit kinds %s, want %s", kinds, want)
	}
}

// TestAdminViewDoesNotCount: an admin's retrieval, through v2 and v1, of
// someone else's push or of their own, counts no view and is logged as
// admin_view, as Password Pusher logs it; a deleted push is not served to
// the admin either.
func TestAdminViewDoesNotCount(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	admin, adminTok := h.env.User(t, "admin@example.com")
	if _, err := h.store.Administer(context.Background(), push.AdminActor{Name: "test"}, push.AdminPromote, admin.ID, h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	tok := h.create(map[string]any{"payload": "p", "expire_after_views": 1}, bearer(owner)...)
	for i, path := range []string{"/api/v2/pushes/" + tok, "/p/" + tok + ".json", "/api/v2/pushes/" + tok + ".json"} {
		m := h.do("GET", path, nil, bearer(adminTok)...).obj(t)
		if m["payload"] != "p" || m["views_remaining"] != 1.0 {
			t.Fatalf("admin view %d (%s): %v", i, path, m)
		}
	}
	if m := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t); m["payload"] != "p" || m["views_remaining"] != 0.0 {
		t.Errorf("the recipient's view after the admin's: %v", m)
	}
	if k, want := auditKinds(t, h, tok, owner), "creation,admin_view,admin_view,admin_view,view"; k != want {
		t.Errorf("audit kinds %s, want %s", k, want)
	}

	// The admin's own push: admin_view takes precedence over owner_view.
	own := h.create(map[string]any{"payload": "q", "expire_after_views": 1}, bearer(adminTok)...)
	if m := h.do("GET", "/api/v2/pushes/"+own, nil, bearer(adminTok)...).obj(t); m["payload"] != "q" || m["views_remaining"] != 1.0 {
		t.Errorf("admin's own push: %v", m)
	}
	if k, want := auditKinds(t, h, own, adminTok), "creation,admin_view"; k != want {
		t.Errorf("admin's own push: audit kinds %s, want %s", k, want)
	}

	// Deleted by its owner, a push is not served to an admin.
	gone := h.create(map[string]any{"payload": "r", "expire_after_views": 3}, bearer(owner)...)
	if r := h.do("DELETE", "/api/v2/pushes/"+gone, nil, bearer(owner)...); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if m := h.do("GET", "/api/v2/pushes/"+gone, nil, bearer(adminTok)...).obj(t); m["payload"] != nil || m["expired"] != true {
		t.Errorf("a deleted push served to an admin: %v", m)
	}
}

func auditKinds(t *testing.T, h *harness, tok, owner string) string {
	t.Helper()
	r := h.do("GET", "/api/v2/pushes/"+tok+"/audit", nil, bearer(owner)...)
	if r.status != 200 {
		t.Fatalf("audit: %d %s", r.status, r.body)
	}
	s := ""
	for i, e := range r.obj(t)["logs"].([]any) {
		if i > 0 {
			s += ","
		}
		s += e.(map[string]any)["kind"].(string)
	}
	return s
}

func TestExpiryByDays(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(map[string]any{"payload": "p", "expire_after_days": 1, "expire_after_views": 100})
	h.clock.Advance(24*time.Hour - time.Millisecond)
	m := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t)
	if m["payload"] != "p" || m["days_remaining"] != 1.0 {
		t.Errorf("just before a day: %v", m)
	}
	h.clock.Advance(time.Millisecond)
	m = h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t)
	if m["payload"] != nil || m["expired"] != true || m["days_remaining"] != 0.0 {
		t.Errorf("at a day: %v", m)
	}
	// Preview and lists never expire anything; the sweeper does.
	owner := h.user("o@example.com")
	tok2 := h.create(map[string]any{"payload": "q", "expire_after_days": 2}, bearer(owner)...)
	h.clock.Advance(49 * time.Hour)
	if l := h.do("GET", "/api/v2/pushes/active", nil, bearer(owner)...).list(t); len(l) != 1 || l[0]["days_remaining"] != 0.0 {
		t.Errorf("active before the sweep: %v", l)
	}
	res, err := h.store.Sweep(t.Context(), h.clock.Now(), 0)
	if err != nil || res.Expired != 1 {
		t.Fatalf("sweep: %+v %v", res, err)
	}
	if l := h.do("GET", "/api/v2/pushes/expired", nil, bearer(owner)...).list(t); len(l) != 1 || l[0]["url_token"] != tok2 {
		t.Errorf("expired after the sweep: %v", l)
	}
	// An expired anonymous push is deleted a day after it expired; owned ones stay.
	h.clock.Advance(25 * time.Hour)
	if _, err := h.store.Sweep(t.Context(), h.clock.Now(), 0); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "purged anonymous push", h.do("GET", "/api/v2/pushes/"+tok, nil), 404)
	wantStatus(t, "owned push kept", h.do("GET", "/api/v2/pushes/"+tok2+"/preview", nil), 200)
}

func TestPassphrase(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	tok := h.create(map[string]any{"payload": "behind a door", "passphrase": "open sesame"}, bearer(owner)...)
	path := "/api/v2/pushes/" + tok
	const refusal = `{"error":"That passphrase is incorrect.","message":"This push requires a passphrase. Please provide it using the 'passphrase' parameter (e.g. ?passphrase=mysecret)","status":"unauthorized"}`

	r := h.do("GET", path, nil)
	wantStatus(t, "no passphrase", r, 401)
	wantBody(t, "no passphrase", r, refusal)
	r = h.do("GET", path+"?passphrase=wrong", nil)
	wantStatus(t, "wrong passphrase", r, 401)
	wantBody(t, "wrong passphrase", r, refusal)
	r = h.do("GET", path+"?passphrase=open+sesame", nil)
	wantStatus(t, "right passphrase", r, 200)
	if m := r.obj(t); m["payload"] != "behind a door" || m["passphrase"] != "open sesame" || m["views_remaining"] != 4.0 {
		t.Errorf("right passphrase: %v", m)
	}
	// Lists never reveal it; the owner's list shows null.
	if l := h.do("GET", "/api/v2/pushes/active", nil, bearer(owner)...).list(t); len(l) != 1 || l[0]["passphrase"] != nil {
		t.Errorf("list: %v", l)
	}
	if got := auditKinds(t, h, tok, owner); got != "creation,failed_passphrase,failed_passphrase,view" {
		t.Errorf("audit %s", got)
	}
	// Nothing about the passphrase is stored in recoverable form: the master
	// key alone does not open the payload.
	p, _ := h.store.PushByKey(t.Context(), secure.TokenKey(tok))
	inner, err := h.env.Keys.Open("push-payload", p.PayloadSealed, []byte("hush/push-key/"+secure.TokenKey(tok)+"/payload"))
	if err != nil || string(inner) == "behind a door" || len(p.PassphraseSalt) == 0 {
		t.Errorf("outer layer alone revealed the payload (err %v)", err)
	}
}

func TestPassphraseGuessingLimits(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(map[string]any{"payload": "p", "passphrase": "right", "expire_after_views": 100})
	path := "/api/v2/pushes/" + tok
	// The peer is 127.0.0.1, not a trusted proxy: X-Forwarded-For is ignored,
	// so a client cannot dodge the limit by inventing addresses.
	for i := 0; i < 5; i++ {
		wantStatus(t, "guess "+strconv.Itoa(i), h.do("GET", path+"?passphrase=wrong", nil, "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i)), 401)
	}
	r := h.do("GET", path+"?passphrase=wrong", nil)
	wantStatus(t, "6th guess", r, 429)
	wantBody(t, "6th guess", r, `{"error":"Too many passphrase attempts. Please try again in a minute."}`)
	if ra, _ := strconv.Atoi(r.header.Get("Retry-After")); ra < 1 || ra > 60 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	// The right passphrase from the same client waits too; a minute later it works.
	wantStatus(t, "blocked client, right passphrase", h.do("GET", path+"?passphrase=right", nil), 429)
	h.clock.Advance(time.Minute)
	wantStatus(t, "after a minute", h.do("GET", path+"?passphrase=right", nil), 200)

}

func TestPassphraseGuessesFromAnotherClient(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *service.Limits) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	owner := h.user("o@example.com")
	tok := h.create(map[string]any{"payload": "p", "passphrase": "right", "expire_after_views": 100}, bearer(owner)...)
	path := "/api/v2/pushes/" + tok + "?passphrase="
	stranger := []string{"X-Forwarded-For", "203.0.113.7"}
	for i := 0; i < 5; i++ {
		wantStatus(t, "stranger guess", h.do("GET", path+"x", nil, stranger...), 401)
	}
	wantStatus(t, "stranger blocked", h.do("GET", path+"x", nil, stranger...), 429)
	// The recipient behind the same trusted proxy is not locked out.
	wantStatus(t, "recipient", h.do("GET", path+"right", nil, "X-Forwarded-For", "203.0.113.7, 192.0.2.44"), 200)
	// 20 failures on one push from anywhere close it for everyone for the hour.
	for i := 0; i < 15; i++ {
		ip := []string{"X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i)}
		wantStatus(t, "spread guess", h.do("GET", path+"x", nil, ip...), 401)
	}
	wantStatus(t, "push-wide cap", h.do("GET", path+"right", nil, "X-Forwarded-For", "192.0.2.99"), 429)
	h.clock.Advance(time.Hour)
	wantStatus(t, "an hour later", h.do("GET", path+"right", nil, "X-Forwarded-For", "192.0.2.99"), 200)

	r := h.do("GET", "/api/v2/pushes/"+tok+"/audit", nil, bearer(owner)...)
	logs := r.obj(t)["logs"].([]any)
	last := logs[len(logs)-1].(map[string]any)
	if last["kind"] != "view" || last["ip"] != "192.0.2.99" {
		t.Errorf("last audit entry %v, want a view from 192.0.2.99", last)
	}
}

// TestExactViewLimits fires 64 concurrent anonymous retrievals at a push,
// 100 rounds each for 1 and 3 views: exactly that many carry the payload.
func TestExactViewLimits(t *testing.T) {
	h := newHarness(t, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	for _, views := range []int{1, 3} {
		for round := 0; round < rounds; round++ {
			tok := h.create(map[string]any{"payload": "once", "expire_after_views": views})
			var served atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := 0; i < 64; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					res, err := client.Get(h.url + "/api/v2/pushes/" + tok)
					if err != nil {
						t.Error(err)
						return
					}
					defer res.Body.Close()
					var m map[string]any
					if err := jsonDecode(res, &m); err != nil || res.StatusCode != 200 {
						t.Errorf("status %d err %v", res.StatusCode, err)
						return
					}
					if m["payload"] == "once" {
						served.Add(1)
					}
				}()
			}
			close(start)
			wg.Wait()
			if got := int(served.Load()); got != views {
				t.Fatalf("%d-view push, round %d: payload served %d times", views, round, got)
			}
		}
	}
}
