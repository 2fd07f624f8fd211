package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/mail"
	"hush/internal/mail/smtp"
	"hush/internal/mailtest"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

// deliveryLog records what Deps.Deliveries is told.
type deliveryLog struct {
	mu  sync.Mutex
	got []string
}

func (d *deliveryLog) add(kind, result string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, kind+":"+result)
}

func (d *deliveryLog) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprint(d.got)
}

// newMailService is a service on st that sends through Mailpit mp; each
// configure may change its limits.
func newMailService(t *testing.T, st *store.Store, clock *testclock.Clock, mp *mailtest.Server, log *deliveryLog, configure ...func(*Limits)) *Service {
	t.Helper()
	keys, err := secure.NewKeyring(testKey)
	if err != nil {
		t.Fatal(err)
	}
	sender, err := smtp.NewSender(smtp.Config{Host: mp.Host, Port: mp.Port, From: "hush@example.com",
		OpenTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	settings := push.DefaultSettings()
	settings.NotifyByEmail, settings.Receipts = true, true
	limits := Limits{Settings: settings}
	for _, c := range configure {
		c(&limits)
	}
	return New(Deps{Store: st, Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Now: clock.Now, Mail: sender,
		Origin: "https://hush.example", Deliveries: log.add}, limits)
}

func TestOutboxWait(t *testing.T) {
	want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute}
	for i, w := range want {
		if got := outboxWait(i + 1); got != w {
			t.Errorf("after failure %d: %v, want %v", i+1, got, w)
		}
	}
	if got := outboxWait(outboxAttempts); got != outboxMaxWait {
		t.Errorf("after failure %d: %v, want %v", outboxAttempts, got, outboxMaxWait)
	}
}

// A temporary refusal (4xx) is tried again after the wait, and not before;
// a permanent one (5xx) is given up at once, its payload deleted; a
// message that keeps failing is given up after outboxAttempts tries.
func TestOutboxRetries(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{Chaos: true})
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	var log deliveryLog
	s := newMailService(t, st, clock, mp, &log)
	ctx := context.Background()
	if _, err := st.CreateUser(ctx, "retry@example.com", "x", t0); err != nil {
		t.Fatal(err)
	}
	reset := func() {
		t.Helper()
		if err := s.RequestPasswordReset(ctx, "retry@example.com", "https://hush.example", push.Meta{IP: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
	}
	deliver := func() {
		t.Helper()
		if err := s.DeliverOutbox(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stats := func() store.OutboxStats {
		t.Helper()
		o, err := s.Outbox(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}

	// Temporary: tried again only once the wait is over.
	mp.SetFailure(t, 451)
	reset()
	deliver()
	clock.Advance(29 * time.Second)
	deliver()
	if got := log.String(); got != "[password_reset:retry]" {
		t.Fatalf("deliveries %s", got)
	}
	mp.SetFailure(t, 0)
	clock.Advance(2 * time.Second)
	deliver()
	if got := log.String(); got != "[password_reset:retry password_reset:sent]" {
		t.Fatalf("deliveries %s", got)
	}
	mp.Wait(t, "retry@example.com", 1, 5*time.Second)
	if o := stats(); o.Pending != 0 || o.Failed != 0 {
		t.Errorf("outbox %+v", o)
	}

	// Permanent: given up at once, without its payload.
	log = deliveryLog{}
	mp.SetFailure(t, 550)
	reset()
	deliver()
	clock.Advance(2 * time.Hour)
	deliver()
	if got := log.String(); got != "[password_reset:failed]" {
		t.Fatalf("deliveries %s", got)
	}
	if o := stats(); o.Pending != 0 || o.Failed != 1 {
		t.Errorf("outbox %+v", o)
	}
	var payloads int
	if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE payload IS NOT NULL`).Scan(&payloads); err != nil {
		t.Fatal(err)
	}
	if payloads != 0 {
		t.Errorf("%d payloads kept after failing", payloads)
	}

	// Temporary for ever: given up after outboxAttempts tries.
	log = deliveryLog{}
	mp.SetFailure(t, 421)
	reset()
	for range outboxAttempts + 2 {
		deliver()
		clock.Advance(outboxMaxWait)
	}
	want := ""
	for i := 1; i < outboxAttempts; i++ {
		want += "password_reset:retry "
	}
	if got := log.String(); got != "["+want+"password_reset:failed]" {
		t.Errorf("deliveries %s", got)
	}
	if o := stats(); o.Failed != 2 {
		t.Errorf("outbox %+v", o)
	}
	// A week later the failed rows are pruned by the sweep.
	clock.Advance(OutboxKeepFailed + time.Hour)
	if _, err := s.Sweep(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if o := stats(); o.Failed != 0 {
		t.Errorf("after the sweep: %+v", o)
	}
}

// Several instances drain one outbox together: every message is sent
// once.
func TestOutboxInstances(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	clock := testclock.New(t0)
	url := testdb.URL(t)
	var log deliveryLog
	var svcs []*Service
	for range 3 {
		svcs = append(svcs, newMailService(t, openTestStore(t, url), clock, mp, &log))
	}
	ctx := context.Background()
	u, err := svcs[0].store.CreateUser(ctx, "many@example.com", "x", t0)
	if err != nil {
		t.Fatal(err)
	}
	tok := create(t, svcs[0], u, push.CreateRequest{Payload: "p"})
	const n = 30
	for i := range n {
		// Direct queueing: the notify allowance is not under test here.
		m, err := svcs[0].queueEmail(mail.Message{To: fmt.Sprintf("r%d@example.org", i), Subject: "link", Text: tok})
		if err != nil {
			t.Fatal(err)
		}
		if err := svcs[0].store.Enqueue(ctx, clock.Now(), m); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, s := range svcs {
		wg.Go(func() {
			if err := s.DeliverOutbox(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for mp.Count(t) < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if got := mp.Count(t); got != n {
		t.Errorf("%d messages arrived, want %d (deliveries %s)", got, n, log.String())
	}
	seen := map[string]int{}
	for _, m := range mp.Messages(t) {
		seen[m.To[0].Address]++
	}
	for a, k := range seen {
		if k != 1 {
			t.Errorf("%s got %d messages", a, k)
		}
	}
}

// Key rotation re-seals what waits in the outbox: after it, a service
// with the new key alone delivers a message queued under the old one.
func TestOutboxKeyRotation(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	var log deliveryLog
	old := newMailService(t, st, clock, mp, &log)
	ctx := context.Background()
	if _, err := st.CreateUser(ctx, "rotate@example.com", "x", t0); err != nil {
		t.Fatal(err)
	}
	if err := old.RequestPasswordReset(ctx, "rotate@example.com", "", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
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
	fresh := newMailService(t, st, clock, mp, &log)
	if fresh.keys, err = secure.NewKeyring(newKey); err != nil {
		t.Fatal(err)
	}
	if err := fresh.DeliverOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); got != "[password_reset:sent]" {
		t.Errorf("deliveries %s", got)
	}
	m := mp.Wait(t, "rotate@example.com", 1, 5*time.Second)[0]
	if !strings.Contains(m.Text, "https://hush.example/users/password/edit?reset_password_token=") {
		t.Errorf("message:\n%s", m.Text)
	}
}

// An email to an account that chose its language links the page under
// that language's prefix, so the page opens in the email's language.
func TestAccountLinksInTheAccountsLanguage(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	var log deliveryLog
	svc := newMailService(t, st, clock, mp, &log)
	ctx := context.Background()
	for _, c := range []struct{ email, lang, link string }{
		{"de@example.com", "de", "https://hush.example/de/users/password/edit?reset_password_token="},
		{"none@example.com", "", "https://hush.example/users/password/edit?reset_password_token="},
	} {
		u, err := st.CreateUser(ctx, c.email, "x", t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.SetLanguage(ctx, u, c.lang); err != nil {
			t.Fatal(err)
		}
		if err := svc.RequestPasswordReset(ctx, c.email, "", push.Meta{IP: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.DeliverOutbox(ctx); err != nil {
			t.Fatal(err)
		}
		if m := mp.Wait(t, c.email, 1, 5*time.Second)[0]; !strings.Contains(m.Text, c.link) {
			t.Errorf("%s (language %q): the link is not %s…:\n%s", c.email, c.lang, c.link, m.Text)
		}
	}
}

// A worker whose claim is late (half its lease gone, here by the clock
// jumping while it delivers) sends nothing more of its batch: once its
// lease has run out another instance takes the rest, and each message is
// still sent once.
func TestOutboxLateBatch(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	clock := testclock.New(t0)
	url := testdb.URL(t)
	var logA, logB deliveryLog
	a := newMailService(t, openTestStore(t, url), clock, mp, &logA)
	b := newMailService(t, openTestStore(t, url), clock, mp, &logB)
	ctx := context.Background()
	for i := range 3 {
		m, err := a.queueEmail(mail.Message{To: fmt.Sprintf("late%d@example.org", i), Subject: "s", Text: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.store.Enqueue(ctx, clock.Now(), m); err != nil {
			t.Fatal(err)
		}
	}
	// After A's first delivery, its lease runs out and B delivers.
	a.deliveries = func(kind, result string) {
		logA.add(kind, result)
		if clock.Now().Equal(t0) {
			clock.Advance(outboxLease + time.Second)
			if err := b.DeliverOutbox(ctx); err != nil {
				t.Error(err)
			}
		}
	}
	if err := a.DeliverOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b := logA.String(), logB.String(); a != "[email:sent]" || b != "[email:sent email:sent]" {
		t.Errorf("deliveries: A %s, B %s", a, b)
	}
	time.Sleep(200 * time.Millisecond)
	if n := mp.Count(t); n != 3 {
		t.Errorf("%d messages arrived, want 3", n)
	}
}

// Wrong passphrases are reported once per push in the quiet time, then
// again; from any client.
func TestFailedPassphraseReceipts(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	var log deliveryLog
	s := newMailService(t, st, clock, mp, &log)
	ctx := context.Background()
	u, err := st.CreateUser(ctx, "guarded@example.com", "x", t0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Create(ctx, CreateInput{User: u, Meta: push.Meta{IP: "192.0.2.1"}, Request: &push.CreateRequest{Payload: "p",
		Passphrase: "right one", Name: "guarded", ReceiptOnFailedPassphrase: ptr(true), ReceiptOnView: ptr(false)}})
	if err != nil {
		t.Fatal(err)
	}
	guess := func(ip string) {
		t.Helper()
		if _, err := s.Retrieve(ctx, c.Push.URLToken, "wrong", nil, push.Meta{IP: ip}); !errors.Is(err, ErrPassphrase) {
			t.Fatalf("guess: %v", err)
		}
	}
	guess("192.0.2.10")
	guess("192.0.2.11")
	clock.Advance(receiptQuiet - time.Second)
	guess("192.0.2.12")
	if err := s.DeliverOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	guess("192.0.2.13")
	if err := s.DeliverOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); got != "[receipt:sent receipt:sent]" {
		t.Errorf("deliveries %s, want two receipts", got)
	}
	for _, m := range mp.Wait(t, "guarded@example.com", 2, 5*time.Second) {
		if m.Subject != "A wrong passphrase was tried on your push \u201cguarded\u201d" || strings.Contains(m.Text, c.Push.URLToken) {
			t.Errorf("receipt %q:\n%s", m.Subject, m.Text)
		}
	}
}
