package service

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/mail/smtp"
	"hush/internal/mailtest"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
	"hush/internal/webhook"
	"hush/internal/webhook/webhooktest"
)

type hookReceiver = webhooktest.Receiver

func newHookReceiver(t *testing.T, clock func() time.Time) *hookReceiver {
	return webhooktest.Start(t, clock)
}

// find returns the delivery of event typ about the push named name.
func find(t *testing.T, r *hookReceiver, typ, name string) webhooktest.Delivery {
	t.Helper()
	for _, d := range r.Deliveries() {
		if d.Type() == typ && d.Push()["name"] == name {
			return d
		}
	}
	t.Fatalf("no %s of %q", typ, name)
	return webhooktest.Delivery{}
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// newHookService is a service on st that delivers webhooks to loopback
// receivers (HUSH_WEBHOOK_ALLOW_PRIVATE), with requests cut after timeout.
func newHookService(t *testing.T, st *store.Store, clock *testclock.Clock, timeout time.Duration) *Service {
	t.Helper()
	keys, err := secure.NewKeyring(testKey)
	if err != nil {
		t.Fatal(err)
	}
	return New(Deps{Store: st, Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Now: clock.Now,
		Webhooks: webhook.New(webhook.Options{AllowPrivate: true, Timeout: timeout}), WebhookAllowPrivate: true},
		Limits{Settings: push.DefaultSettings()})
}

func hookUser(t *testing.T, st *store.Store, email string) *push.User {
	t.Helper()
	u, err := st.CreateUser(context.Background(), email, "x", t0)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// addHook registers an endpoint of u at r for events, and gives r its
// secret.
func addHook(t *testing.T, s *Service, u *push.User, r *hookReceiver, instance bool, events ...string) *push.Webhook {
	t.Helper()
	w, secret, err := s.CreateWebhook(context.Background(), u, WebhookInput{URL: r.URL() + "/hook", Events: events, Instance: instance})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q lacks whsec_", secret)
	}
	if raw, err := base64.StdEncoding.DecodeString(secret[6:]); err != nil || len(raw) < 24 {
		t.Fatalf("secret %q: %d bytes, %v", secret, len(raw), err)
	}
	r.SetSecret(secret)
	return w
}

func deliverAll(t *testing.T, s *Service) {
	t.Helper()
	if err := s.DeliverOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Every event of every path reaches the owner's and the instance's
// endpoints, signed; the bodies carry the audit facts and never the
// payload, note, passphrase, name of a file or the link.
func TestWebhookEventsSignedAndClean(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, 5*time.Second)
	ctx := context.Background()
	owner, other := hookUser(t, st, "owner@example.com"), hookUser(t, st, "other@example.com")
	admin := hookUser(t, st, "admin@example.com")
	admin.Admin = true
	mine, all := newHookReceiver(t, clock.Now), newHookReceiver(t, clock.Now)
	addHook(t, s, owner, mine, false, "*")
	addHook(t, s, admin, all, true, "push.created", "push.deleted")

	const payload, note, pass, name = "PAYLOAD-zq81", "NOTE-kk27", "PASS-vv93", "db password"
	tok := create(t, s, owner, push.CreateRequest{Payload: payload, Note: note, Passphrase: pass,
		Name: name, ExpireAfterViews: ptr(3), ExpireAfterDays: ptr(2)})
	meta := push.Meta{IP: "198.51.100.7", UserAgent: "curl/8.0"}
	if _, err := s.Retrieve(ctx, tok, "wrong", nil, meta); err == nil {
		t.Fatal("wrong passphrase accepted")
	}
	if _, err := s.Retrieve(ctx, tok, pass, nil, meta); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Expire(ctx, tok, owner, meta); err != nil {
		t.Fatal(err)
	}
	// A push of another account reaches the instance's endpoint only.
	create(t, s, other, push.CreateRequest{Payload: "x"})
	// One used up by its last view is expired.
	last := create(t, s, owner, push.CreateRequest{Payload: payload, ExpireAfterViews: ptr(1)})
	if _, err := s.Retrieve(ctx, last, "", nil, meta); err != nil {
		t.Fatal(err)
	}
	deliverAll(t, s)

	// The outbox delivers oldest first, but no order is promised: compare
	// the events as sets.
	want := "push.created push.created push.deleted push.expired push.passphrase_failed push.viewed push.viewed"
	if got := strings.Join(sorted(mine.Types()), " "); got != want {
		t.Errorf("owner's endpoint got %s, want %s", got, want)
	}
	if got := strings.Join(sorted(all.Types()), " "); got != "push.created push.created push.created push.deleted" {
		t.Errorf("instance endpoint got %s", got)
	}
	for _, r := range []*hookReceiver{mine, all} {
		if r.Forged() != 0 {
			t.Errorf("%d requests failed verification", r.Forged())
		}
		for _, d := range r.Deliveries() {
			for _, secret := range []string{payload, note, pass, tok, last} {
				if strings.Contains(string(d.Body), secret) {
					t.Errorf("body %s holds %q", d.Body, secret)
				}
			}
		}
	}
	first := find(t, mine, "push.created", "db password")
	data := first.Event["data"].(map[string]any)
	p := data["push"].(map[string]any)
	if p["name"] != name || p["kind"] != "text" || p["views_left"] != 3.0 || p["days_left"] != 2.0 || p["digest"] == "" {
		t.Errorf("created body: %s", first.Body)
	}
	viewed := find(t, mine, "push.viewed", "db password")
	if d := viewed.Event["data"].(map[string]any); d["ip"] != "198.51.100.7" || d["user_agent"] != "curl/8.0" ||
		d["push"].(map[string]any)["views_left"] != 2.0 {
		t.Errorf("viewed body: %s", viewed.Body)
	}
	if !strings.HasPrefix(first.ID, "msg_") || first.Event["id"] == "" {
		t.Errorf("ids: %q %v", first.ID, first.Event["id"])
	}
}

// A receiver that answers 500, then is down, then answers: the message is
// tried again after the waits, with the same webhook-id, and each attempt
// is in the delivery log with its status, latency and next try.
func TestWebhookRetriesUntilDelivered(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, 5*time.Second)
	ctx := context.Background()
	owner := hookUser(t, st, "owner@example.com")
	r := newHookReceiver(t, clock.Now)
	w := addHook(t, s, owner, r, false, "push.created")
	r.Answer(0, 500, 503)
	create(t, s, owner, push.CreateRequest{Payload: "x"})

	deliverAll(t, s) // 500
	clock.Advance(29 * time.Second)
	deliverAll(t, s) // not due yet
	clock.Advance(time.Second)
	deliverAll(t, s) // 503
	// Down: the receiver's address refuses connections.
	r.Down()
	clock.Advance(time.Minute)
	deliverAll(t, s) // connection refused
	if !r.Up() {     // on the same address
		t.Skip("cannot listen again on the receiver's address")
	}
	clock.Advance(2 * time.Minute)
	deliverAll(t, s)

	if got := len(r.Deliveries()); got != 1 {
		t.Fatalf("%d deliveries, want 1", got)
	}
	d, err := s.WebhookDeliveries(ctx, owner, w.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Attempts) != 4 {
		t.Fatalf("%d attempts logged, want 4: %+v", len(d.Attempts), d.Attempts)
	}
	// Newest first: 204, refused, 503, 500.
	a := d.Attempts
	if a[0].StatusCode != 204 || !a[0].NextRetry.IsZero() || a[0].Attempt != 4 {
		t.Errorf("last attempt: %+v", a[0])
	}
	if a[1].StatusCode != 0 || a[1].Error == "" || !a[1].NextRetry.Equal(t0.Add(90*time.Second+2*time.Minute)) {
		t.Errorf("refused attempt: %+v", a[1])
	}
	if a[2].StatusCode != 503 || !a[2].NextRetry.Equal(t0.Add(30*time.Second+time.Minute)) {
		t.Errorf("503 attempt: %+v", a[2])
	}
	if a[3].StatusCode != 500 || !a[3].NextRetry.Equal(t0.Add(30*time.Second)) || a[3].Latency < 0 {
		t.Errorf("500 attempt: %+v", a[3])
	}
	if d.Messages[0].State != push.HookDelivered || d.Messages[0].MsgID != r.Deliveries()[0].ID {
		t.Errorf("message: %+v", d.Messages[0])
	}
	ep, _ := s.Webhook(ctx, owner, w.ID)
	if !ep.FailingSince.IsZero() || !ep.Enabled {
		t.Errorf("endpoint after a success: %+v", ep)
	}
}

// A receiver slower than the time limit is cut off and tried again.
func TestWebhookSlowReceiverTimesOut(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, 300*time.Millisecond)
	owner := hookUser(t, st, "owner@example.com")
	r := newHookReceiver(t, clock.Now)
	w := addHook(t, s, owner, r, false, "push.created")
	r.Answer(2 * time.Second)
	create(t, s, owner, push.CreateRequest{Payload: "x"})
	start := time.Now()
	deliverAll(t, s)
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("a slow receiver held the delivery %v", took)
	}
	d, _ := s.WebhookDeliveries(context.Background(), owner, w.ID, 1)
	if len(d.Attempts) != 1 || !strings.Contains(d.Attempts[0].Error, "time limit") || d.Attempts[0].NextRetry.IsZero() {
		t.Fatalf("attempts: %+v", d.Attempts)
	}
	r.Answer(0)
	clock.Advance(30 * time.Second)
	deliverAll(t, s)
	if len(r.Deliveries()) != 1 {
		t.Errorf("not delivered after the receiver sped up")
	}
}

// Hush stopping mid-retry, and dying with a message claimed, loses
// nothing: another instance (or the restart) delivers it.
func TestWebhookSurvivesRestart(t *testing.T) {
	clock := testclock.New(t0)
	url := testdb.URL(t)
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := newHookService(t, st, clock, 5*time.Second)
	owner := hookUser(t, st, "owner@example.com")
	r := newHookReceiver(t, clock.Now)
	addHook(t, s, owner, r, false, "push.created")
	r.Answer(0, 500)
	create(t, s, owner, push.CreateRequest{Payload: "one"})
	deliverAll(t, s) // fails, waits to be tried again
	create(t, s, owner, push.CreateRequest{Payload: "two"})
	// The second is claimed by a worker that dies before it delivers.
	if msgs, err := st.ClaimOutbox(context.Background(), clock.Now(), outboxLease, 10); err != nil || len(msgs) != 1 {
		t.Fatalf("claim: %d, %v", len(msgs), err)
	}
	st.Close()

	st2 := openTestStore(t, url)
	s2 := newHookService(t, st2, clock, 5*time.Second)
	deliverAll(t, s2)
	if n := len(r.Deliveries()); n != 0 {
		t.Fatalf("%d delivered before the retry and the lease were due", n)
	}
	clock.Advance(outboxLease)
	deliverAll(t, s2)
	if n := len(r.Deliveries()); n != 2 {
		t.Fatalf("%d delivered after the restart, want 2", n)
	}
}

// twoHookInstances is two services on one database, an account on it and
// a receiver for its endpoints.
func twoHookInstances(t *testing.T) (s1, s2 *Service, owner *push.User, r *hookReceiver) {
	t.Helper()
	clock := testclock.New(t0)
	url := testdb.URL(t)
	st1, st2 := openTestStore(t, url), openTestStore(t, url)
	s1, s2 = newHookService(t, st1, clock, 5*time.Second), newHookService(t, st2, clock, 5*time.Second)
	return s1, s2, hookUser(t, st1, "owner@example.com"), newHookReceiver(t, clock.Now)
}

// Two instances draining one outbox deliver each message once.
func TestWebhookTwoInstancesDeliverOnce(t *testing.T) {
	s1, s2, owner, r := twoHookInstances(t)
	addHook(t, s1, owner, r, false, "push.created")
	const n = 40
	for i := range n {
		s := s1
		if i%2 == 1 {
			s = s2
		}
		create(t, s, owner, push.CreateRequest{Payload: "x"})
	}
	var wg sync.WaitGroup
	for _, s := range []*Service{s1, s2, s1, s2} {
		wg.Go(func() {
			if err := s.DeliverOutbox(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for _, d := range r.Deliveries() {
		seen[d.ID]++
	}
	if len(seen) != n {
		t.Errorf("%d messages delivered, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("%s delivered %d times", id, c)
		}
	}
}

// An endpoint whose deliveries fail for a day is turned off; what it was
// still owed fails without a request; turning it on lets a redelivery
// through.
func TestWebhookTurnedOffAfterADay(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, 5*time.Second)
	ctx := context.Background()
	owner := hookUser(t, st, "owner@example.com")
	r := newHookReceiver(t, clock.Now)
	w := addHook(t, s, owner, r, false, "push.created")
	fails := make([]int, 1000)
	for i := range fails {
		fails[i] = 500
	}
	r.Answer(0, fails...)
	create(t, s, owner, push.CreateRequest{Payload: "x"})
	for range 200 {
		deliverAll(t, s)
		clock.Advance(10 * time.Minute)
		if ep, _ := s.Webhook(ctx, owner, w.ID); !ep.Enabled {
			break
		}
		if clock.Now().Sub(t0) > 3*24*time.Hour {
			break
		}
		if clock.Now().Sub(t0) == 2*time.Hour {
			// A second event, still owed when the endpoint is turned off.
			create(t, s, owner, push.CreateRequest{Payload: "y"})
		}
	}
	ep, _ := s.Webhook(ctx, owner, w.ID)
	if ep.Enabled || ep.DisabledReason == "" {
		t.Fatalf("endpoint still on after %v of failures: %+v", clock.Now().Sub(t0), ep)
	}
	if took := clock.Now().Sub(t0); took < 24*time.Hour || took > 25*time.Hour {
		t.Errorf("turned off after %v, want a day", took)
	}
	clock.Advance(5 * time.Hour)
	deliverAll(t, s) // what it was still owed fails without a request
	if n := len(r.Deliveries()) + r.Forged(); n != 0 {
		t.Errorf("%d requests reached the receiver", n)
	}
	d, _ := s.WebhookDeliveries(ctx, owner, w.ID, 1)
	for _, m := range d.Messages {
		if m.State == push.HookPending {
			t.Errorf("message %s still pending", m.MsgID)
		}
	}
	if err := s.Redeliver(ctx, owner, w.ID, d.Messages[0].ID); push.ErrorCode(err) != push.CodeInvalid {
		t.Errorf("redeliver to an endpoint off: %v", err)
	}
	on := true
	if _, err := s.UpdateWebhook(ctx, owner, w.ID, WebhookInput{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	r.Answer(0)
	if err := s.Redeliver(ctx, owner, w.ID, d.Messages[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Redeliver(ctx, owner, w.ID, d.Messages[0].ID); push.ErrorCode(err) != push.CodeConflict {
		t.Errorf("second redeliver while one waits: %v", err)
	}
	deliverAll(t, s)
	if got := r.Deliveries(); len(got) != 1 || got[0].ID != d.Messages[0].MsgID {
		t.Errorf("redelivered: %+v", got)
	}
}

// Endpoints are their owner's: another account neither sees nor changes
// them, an instance endpoint is an admin's, and bad input is refused
// field by field.
func TestWebhookOwnershipAndInput(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, time.Second)
	ctx := context.Background()
	owner, other := hookUser(t, st, "owner@example.com"), hookUser(t, st, "other@example.com")
	w, _, err := s.CreateWebhook(ctx, owner, WebhookInput{URL: "https://hooks.example.com/x", Events: []string{"push.viewed"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Webhook(ctx, other, w.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("another account sees the endpoint: %v", err)
	}
	if err := s.DeleteWebhook(ctx, other, w.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("another account deletes the endpoint: %v", err)
	}
	if _, _, err := s.CreateWebhook(ctx, owner, WebhookInput{URL: "https://a.example", Events: []string{"*"}, Instance: true}); push.ErrorCode(err) != push.CodeForbidden {
		t.Errorf("instance endpoint by a non-admin: %v", err)
	}
	for _, tt := range []struct {
		url    string
		events []string
		field  string
	}{
		{"", []string{"*"}, "url"},
		{"ftp://a.example/", []string{"*"}, "url"},
		{"https://user:pw@a.example/", []string{"*"}, "url"},
		{"https://a.example/#frag", []string{"*"}, "url"},
		{"https://" + strings.Repeat("a", 3000), []string{"*"}, "url"},
		{"https://a.example/", nil, "events"},
		{"https://a.example/", []string{"push.exploded"}, "events"},
	} {
		_, _, err := s.CreateWebhook(ctx, owner, WebhookInput{URL: tt.url, Events: tt.events})
		var e *push.Error
		if !errors.As(err, &e) || e.Code != push.CodeInvalid || len(e.Fields[tt.field]) == 0 {
			t.Errorf("%q %v: %v", tt.url, tt.events, err)
		}
	}
}

// Without HUSH_WEBHOOK_ALLOW_PRIVATE, an endpoint naming a private
// address, or http, is refused at registration; one whose name resolves
// to loopback is refused when the delivery connects, and the log says so.
func TestWebhookPrivateAddressesRefused(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	keys, _ := secure.NewKeyring(testKey)
	s := New(Deps{Store: st, Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Now: clock.Now,
		Webhooks: webhook.New(webhook.Options{Timeout: time.Second})}, Limits{Settings: push.DefaultSettings()})
	ctx := context.Background()
	owner := hookUser(t, st, "owner@example.com")
	for _, u := range []string{"https://127.0.0.1/", "https://169.254.169.254/latest/meta-data", "https://10.1.2.3/",
		"https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://192.168.1.1/", "https://[fe80::1]/", "https://0.0.0.0/",
		"http://hooks.example.com/"} {
		if _, _, err := s.CreateWebhook(ctx, owner, WebhookInput{URL: u, Events: []string{"*"}}); push.ErrorCode(err) != push.CodeInvalid {
			t.Errorf("%s accepted: %v", u, err)
		}
	}
	r := newHookReceiver(t, clock.Now)
	_, port, _ := net.SplitHostPort(r.Addr())
	w, _, err := s.CreateWebhook(ctx, owner, WebhookInput{URL: "https://localhost:" + port + "/hook", Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	create(t, s, owner, push.CreateRequest{Payload: "x"})
	deliverAll(t, s)
	d, _ := s.WebhookDeliveries(ctx, owner, w.ID, 1)
	if len(d.Attempts) != 1 || !strings.Contains(d.Attempts[0].Error, "private, loopback") {
		t.Fatalf("attempts: %+v", d.Attempts)
	}
	// Not what localhost resolved to: the owner learns nothing of the
	// network inside.
	if e := d.Attempts[0].Error; strings.Contains(e, "127.0.0.1") || strings.Contains(e, "::1") {
		t.Errorf("the delivery log tells the resolved address: %q", e)
	}
	if len(r.Deliveries())+r.Forged() != 0 {
		t.Error("the loopback receiver was reached")
	}
}

// Deleting an account deletes its endpoints with their messages and log;
// the instance's stay.
func TestWebhooksGoWithTheAccount(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, time.Second)
	ctx := context.Background()
	owner, admin := hookUser(t, st, "owner@example.com"), hookUser(t, st, "admin@example.com")
	admin.Admin = true
	r := newHookReceiver(t, clock.Now)
	w := addHook(t, s, owner, r, false, "*")
	addHook(t, s, admin, r, true, "*")
	create(t, s, owner, push.CreateRequest{Payload: "x"})
	deliverAll(t, s)
	if _, err := st.DeleteUser(ctx, owner.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Webhook(ctx, w.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("the endpoint outlived its account: %v", err)
	}
	if msgs, _ := st.HookMessages(ctx, w.ID, 10, 0); len(msgs) != 0 {
		t.Errorf("%d messages outlived the account", len(msgs))
	}
	if list, _ := s.Webhooks(ctx, admin, true); len(list) != 1 {
		t.Errorf("instance endpoints: %d", len(list))
	}
}

// Key rotation re-seals the signing secrets: after it, a service with the
// new key alone still signs with the secret the receiver knows.
func TestWebhookSecretSurvivesKeyRotation(t *testing.T) {
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newHookService(t, st, clock, time.Second)
	ctx := context.Background()
	owner := hookUser(t, st, "owner@example.com")
	r := newHookReceiver(t, clock.Now)
	addHook(t, s, owner, r, false, "*")
	newKey := bytes.Repeat([]byte{9}, 32)
	both, err := secure.NewKeyring(newKey, testKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.Reseal(ctx, func(tokenKey string, f store.SealedField, sealed []byte) ([]byte, bool, error) {
		return Reseal(both, tokenKey, string(f), sealed)
	})
	if err != nil || n != 1 {
		t.Fatalf("reseal: %d changed, %v", n, err)
	}
	fresh := newHookService(t, st, clock, time.Second)
	if fresh.keys, err = secure.NewKeyring(newKey); err != nil {
		t.Fatal(err)
	}
	create(t, fresh, owner, push.CreateRequest{Payload: "x"})
	deliverAll(t, fresh)
	if len(r.Deliveries()) != 1 || r.Forged() != 0 {
		t.Errorf("after rotation: %d delivered, %d forged", len(r.Deliveries()), r.Forged())
	}
}

// The owner of an endpoint Hush turns off is emailed, once.
func TestWebhookTurnedOffEmailsTheOwner(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	keys, _ := secure.NewKeyring(testKey)
	sender, err := smtp.NewSender(smtp.Config{Host: mp.Host, Port: mp.Port, From: "hush@example.com",
		OpenTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Deps{Store: st, Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Now: clock.Now, Mail: sender,
		Origin: "https://hush.example", Webhooks: webhook.New(webhook.Options{AllowPrivate: true, Timeout: time.Second}),
		WebhookAllowPrivate: true}, Limits{Settings: push.DefaultSettings()})
	ctx := context.Background()
	owner := hookUser(t, st, "owner@example.com")
	r := newHookReceiver(t, clock.Now)
	w := addHook(t, s, owner, r, false, "*")
	r.Down()
	create(t, s, owner, push.CreateRequest{Payload: "x"})
	for range 200 {
		deliverAll(t, s)
		if ep, _ := s.Webhook(ctx, owner, w.ID); !ep.Enabled {
			break
		}
		clock.Advance(10 * time.Minute)
	}
	deliverAll(t, s) // the email
	msgs := mp.Wait(t, "owner@example.com", 1, 10*time.Second)
	m := mp.Get(t, msgs[0].ID)
	if m.Subject != "Your webhook endpoint was turned off" || !strings.Contains(m.Text, w.URL) ||
		!strings.Contains(m.Text, "https://hush.example/users/webhooks") {
		t.Errorf("message %q:\n%s", m.Subject, m.Text)
	}
	clock.Advance(time.Hour)
	deliverAll(t, s)
	if n := mp.Count(t); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}

// TestWebhookLimitUnderConcurrency: an account's endpoints stay within
// MaxWebhooks when many are added at once (the count and the insert are
// one transaction, serialised by the owner's row on PostgreSQL as by the
// write lock on SQLite) — through two instances on one database — and
// one account's endpoints do not use up another's.
func TestWebhookLimitUnderConcurrency(t *testing.T) {
	clock := testclock.New(t0)
	url := testdb.URL(t)
	st := openTestStore(t, url)
	s := newHookService(t, st, clock, time.Second)
	instances := []*Service{s, newHookService(t, openTestStore(t, url), clock, time.Second)}
	ctx := context.Background()
	owner, other := hookUser(t, st, "many@example.com"), hookUser(t, st, "few@example.com")
	var wg sync.WaitGroup
	var mu sync.Mutex
	made, refused := 0, 0
	for i := range 3 * MaxWebhooks {
		wg.Go(func() {
			_, _, err := instances[i%2].CreateWebhook(ctx, owner, WebhookInput{URL: fmt.Sprintf("https://hooks.example.com/%d", i), Events: []string{"*"}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				made++
			case push.ErrorCode(err) == push.CodeInvalid:
				refused++
			default:
				t.Errorf("create %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	hooks, err := s.Webhooks(ctx, owner, false)
	if err != nil {
		t.Fatal(err)
	}
	if made != MaxWebhooks || len(hooks) != MaxWebhooks || refused != 2*MaxWebhooks {
		t.Errorf("%d made, %d stored, %d refused of %d at once; want %d stored", made, len(hooks), refused, 3*MaxWebhooks, MaxWebhooks)
	}
	if _, _, err := s.CreateWebhook(ctx, other, WebhookInput{URL: "https://hooks.example.com/other", Events: []string{"*"}}); err != nil {
		t.Errorf("another account's first endpoint: %v", err)
	}
}

// Events are matched against the endpoints once per write transaction
// (D54). Under concurrent load on two instances, every push created after
// CreateWebhook returned reaches the new endpoint, none created after it
// was turned off does, and every one created after it was turned on again
// does: nothing the shared transactions read of the endpoints outlives them.
func TestWebhookEndpointChangesUnderLoad(t *testing.T) {
	s1, s2, owner, r := twoHookInstances(t)

	// phase is 0 before the endpoint exists, 1 once it does, 2 once it is
	// off, 3 once it is on again; a create that started and returned in
	// the same phase is filed under it (one still running when the phase
	// changed may have been written before or after the change).
	var mu sync.RWMutex
	phase := 0
	created := make([][]string, 4)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		s := []*Service{s1, s2}[w%2]
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.RLock()
				p := phase
				mu.RUnlock()
				name := fmt.Sprintf("p%d-w%d-%d", p, w, i)
				create(t, s, owner, push.CreateRequest{Payload: "x", Name: name})
				mu.Lock()
				if phase == p {
					created[p] = append(created[p], name)
				}
				mu.Unlock()
			}
		})
	}
	// step changes the endpoint while no create starts, after the creates
	// of the phase before have run for a while.
	step := func(change func()) {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		change()
		phase++
	}
	var hook *push.Webhook
	step(func() { hook = addHook(t, s1, owner, r, false, "push.created") })
	step(func() {
		if _, err := s2.UpdateWebhook(context.Background(), owner, hook.ID, WebhookInput{Enabled: ptr(false)}); err != nil {
			t.Error(err)
		}
	})
	step(func() {
		if _, err := s1.UpdateWebhook(context.Background(), owner, hook.ID, WebhookInput{Enabled: ptr(true)}); err != nil {
			t.Error(err)
		}
	})
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	deliverAll(t, s1)

	delivered := map[string]bool{}
	for _, d := range r.Deliveries() {
		delivered[d.Push()["name"].(string)] = true
	}
	for p := 1; p <= 3; p++ {
		if len(created[p]) < 8 {
			t.Fatalf("phase %d saw %d creates: too few to tell", p, len(created[p]))
		}
		missing, extra := 0, 0
		for _, name := range created[p] {
			switch {
			case p != 2 && !delivered[name]:
				missing++
			case p == 2 && delivered[name]:
				extra++
			}

		}
		if missing+extra != 0 {
			t.Errorf("phase %d: %d of %d creates missing at the endpoint, %d delivered while it was off",
				p, missing, len(created[p]), extra)
		}
	}
}
