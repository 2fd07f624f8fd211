package store

import (
	"sync"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/testdb"
)

// outboxRows counts the outbox's rows straight from the table.
func outboxRows(t *testing.T, s *Store, where string) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM outbox WHERE `+where).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOutboxLease: a claimed message is not claimed again while its lease
// runs; after it, it is; a change under a lost lease changes nothing; a
// released message is claimable at once; a delivered one is gone.
func TestOutboxLease(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.Enqueue(ctx, t0, OutboxMessage{Kind: "email", Ref: NewOutboxRef(), Payload: []byte("sealed")}); err != nil {
		t.Fatal(err)
	}
	first, err := s.ClaimOutbox(ctx, t0, time.Minute, 10)
	if err != nil || len(first) != 1 || first[0].Attempts != 1 || string(first[0].Payload) != "sealed" || first[0].Kind != "email" {
		t.Fatalf("claim: %+v %v", first, err)
	}
	if again, _ := s.ClaimOutbox(ctx, t0.Add(59*time.Second), time.Minute, 10); len(again) != 0 {
		t.Fatalf("claimed twice within the lease: %+v", again)
	}
	if due, _ := s.OutboxDue(ctx, t0.Add(59*time.Second)); due {
		t.Error("OutboxDue while leased")
	}
	second, err := s.ClaimOutbox(ctx, t0.Add(time.Minute), time.Minute, 10)
	if err != nil || len(second) != 1 || second[0].Attempts != 2 {
		t.Fatalf("claim after the lease: %+v %v", second, err)
	}
	if err := s.OutboxDelivered(ctx, first[0]); !IsLeaseLost(err) {
		t.Fatalf("delivered under a lost lease: %v", err)
	}
	if err := s.OutboxRetry(ctx, first[0], t0, "x"); !IsLeaseLost(err) {
		t.Fatalf("retry under a lost lease: %v", err)
	}
	if err := s.OutboxRelease(ctx, second[0]); err != nil {
		t.Fatal(err)
	}
	third, err := s.ClaimOutbox(ctx, t0.Add(time.Minute), time.Minute, 10)
	if err != nil || len(third) != 1 || third[0].Attempts != 2 {
		t.Fatalf("claim after release: %+v %v (a release does not count an attempt)", third, err)
	}
	if err := s.OutboxRetry(ctx, third[0], t0.Add(time.Hour), "451 try later"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimOutbox(ctx, t0.Add(59*time.Minute), time.Minute, 10); len(got) != 0 {
		t.Fatal("claimed before it is due again")
	}
	fourth, _ := s.ClaimOutbox(ctx, t0.Add(time.Hour), time.Minute, 10)
	if len(fourth) != 1 {
		t.Fatal("not claimed when due again")
	}
	if err := s.OutboxDelivered(ctx, fourth[0]); err != nil {
		t.Fatal(err)
	}
	if n := outboxRows(t, s, "1 = 1"); n != 0 {
		t.Errorf("%d rows after delivery", n)
	}
}

// TestOutboxFailed: a message given up keeps no payload, is never claimed
// again, is counted, and is pruned after its time.
func TestOutboxFailed(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	s.Enqueue(ctx, t0, OutboxMessage{Kind: "email", Ref: "r1", Payload: []byte("sealed")}, OutboxMessage{Kind: "email", Ref: "r2", Payload: []byte("x")})
	got, _ := s.ClaimOutbox(ctx, t0, time.Minute, 1)
	if len(got) != 1 || got[0].Ref != "r1" {
		t.Fatalf("oldest first: %+v", got)
	}
	if err := s.OutboxFailed(ctx, got[0], "550 no such user"); err != nil {
		t.Fatal(err)
	}
	if n := outboxRows(t, s, "failed = 1 AND payload IS NULL AND last_error = '550 no such user'"); n != 1 {
		t.Errorf("failed row: %d", n)
	}
	st, err := s.Outbox(ctx)
	if err != nil || st.Pending != 1 || st.Failed != 1 || !st.OldestPending.Equal(t0) {
		t.Errorf("stats %+v %v", st, err)
	}
	rest, _ := s.ClaimOutbox(ctx, t0.Add(24*time.Hour), time.Minute, 10)
	if len(rest) != 1 || rest[0].Ref != "r2" {
		t.Errorf("the failed message was claimed again: %+v", rest)
	}
	if n, _ := s.PruneOutbox(ctx, t0); n != 0 {
		t.Error("pruned too early")
	}
	if n, _ := s.PruneOutbox(ctx, t0.Add(time.Millisecond)); n != 1 {
		t.Errorf("pruned %d, want the failed one", n)
	}
}

// TestOutboxConcurrentClaims: claimers racing over the same messages, on
// one store or two (two instances on one database), never claim one
// message twice, and together claim them all.
func TestOutboxConcurrentClaims(t *testing.T) {
	// Two stores on one database: two instances.
	url := testdb.URL(t)
	s, other := openTestStore(t, url), openTestStore(t, url)
	ctx := t.Context()
	const n = 120
	var msgs []OutboxMessage
	for range n {
		msgs = append(msgs, OutboxMessage{Kind: "email", Ref: NewOutboxRef(), Payload: []byte("p")})
	}
	if err := s.Enqueue(ctx, t0, msgs...); err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seen = map[int64]int{}
		wg   sync.WaitGroup
	)
	for w := range 8 {
		st := s
		if w%2 == 1 {
			st = other
		}
		wg.Go(func() {
			for {
				got, err := st.ClaimOutbox(ctx, t0, time.Minute, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, m := range got {
					seen[m.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d messages claimed, want %d", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("message %d claimed %d times", id, c)
		}
	}
}

// TestReceiptsQueued: a push that asks for receipts gets one outbox row per
// event, in the event's own transaction — a view, the last view's expiry,
// an expiry by hand, by time (sweep and lazy) — and a push that does not
// ask, or has no owner, gets none.
func TestReceiptsQueued(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	u := mustUser(t, s, "owner@example.com")
	all := push.ReceiptView | push.ReceiptFailedPassphrase | push.ReceiptExpire
	receipts := func(id int64, event string) int {
		t.Helper()
		var n int
		s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'receipt' AND subject_id = $1 AND event = $2`, id, event).Scan(&n)
		return n
	}
	viewed := createPush(t, s, tok(1), func(p *push.Push) { p.UserID, p.Receipts, p.ExpireAfterViews = u.ID, all, 2 })
	for range 2 {
		if ok, _, err := claimView(ctx, s, viewed.ID, ev(push.EventView, t0)); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if v, e := receipts(viewed.ID, "view"), receipts(viewed.ID, "expire"); v != 2 || e != 1 {
		t.Errorf("two views, the last expiring: %d view and %d expire receipts", v, e)
	}
	byHand := createPush(t, s, tok(2), func(p *push.Push) { p.UserID, p.Receipts = u.ID, push.ReceiptExpire })
	s.ExpireByHand(ctx, byHand.ID, ev(push.EventExpire, t0))
	s.ExpireByHand(ctx, byHand.ID, ev(push.EventExpire, t0)) // already expired: nothing more
	swept := createPush(t, s, tok(3), func(p *push.Push) { p.UserID, p.Receipts = u.ID, push.ReceiptExpire })
	lazy := createPush(t, s, tok(4), func(p *push.Push) { p.UserID, p.Receipts = u.ID, push.ReceiptExpire })
	if _, err := s.ExpireIfDue(ctx, lazy.ID, t0.Add(8*push.Day)); err != nil {
		t.Fatal(err)
	}
	quiet := createPush(t, s, tok(5), func(p *push.Push) { p.UserID, p.Receipts = u.ID, push.ReceiptView })
	claimView(ctx, s, quiet.ID, ev(push.EventView, t0))
	anon := createPush(t, s, tok(6), func(p *push.Push) { p.Receipts = all })
	claimView(ctx, s, anon.ID, ev(push.EventView, t0))
	// The one-write retrieval queues them as ClaimView does.
	oneWrite := createPush(t, s, tok(7), func(p *push.Push) { p.UserID, p.Receipts, p.ExpireAfterViews = u.ID, all, 1 })
	if p, err := s.ClaimByKey(ctx, oneWrite.TokenKey, ev(push.EventView, t0), nil); p == nil || err != nil {
		t.Fatal(p, err)
	}
	if _, err := s.Sweep(ctx, t0.Add(8*push.Day), 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p     *push.Push
		event string
		want  int
	}{{byHand, "expire", 1}, {swept, "expire", 1}, {lazy, "expire", 1}, {quiet, "view", 1}, {quiet, "expire", 0}, {anon, "view", 0}, {anon, "expire", 0},
		{oneWrite, "view", 1}, {oneWrite, "expire", 1}} {
		if got := receipts(c.p.ID, c.event); got != c.want {
			t.Errorf("push %s: %d %s receipts, want %d", c.p.TokenKey, got, c.event, c.want)
		}
	}
	if err := s.QueueReceipt(ctx, quiet.ID, push.ReceiptFailedPassphrase, t0); err != nil {
		t.Fatal(err)
	}
	if n := receipts(quiet.ID, "failed_passphrase"); n != 0 {
		t.Error("a receipt the push does not ask for was queued")
	}
}

// TestNotifyLimit: concurrent requests to email a link never pass the
// recipients' total, and an expired push takes none.
func TestNotifyLimit(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	u := mustUser(t, s, "owner@example.com")
	p := createPush(t, s, tok(1), func(p *push.Push) { p.UserID = u.ID })
	notice := func(n int) *Notice {
		out := &Notice{Recipients: n, Event: ev(push.EventCreationEmailSend, t0)}
		for range n {
			out.Messages = append(out.Messages, OutboxMessage{Kind: "email", Ref: NewOutboxRef(), Payload: []byte("p")})
		}
		return out
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for range 10 {
		wg.Go(func() {
			ok, err := s.Notify(ctx, p.ID, notice(2), push.MaxNotifyRecipients)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				granted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if granted != 2 {
		t.Errorf("%d requests of 2 granted, want 2 (total 5)", granted)
	}
	if got := mustLoad(t, s, tok(1)); got.NotifyCount != 4 {
		t.Errorf("notify_count %d, want 4", got.NotifyCount)
	}
	if n := outboxRows(t, s, "kind = 'email'"); n != 4 {
		t.Errorf("%d messages queued, want 4", n)
	}
	if n := countKind(mustAudit(t, s, p.ID), push.EventCreationEmailSend); n != 2 {
		t.Errorf("%d creation_email_send entries, want 2", n)
	}
	if ok, _ := s.Notify(ctx, p.ID, notice(1), push.MaxNotifyRecipients); !ok {
		t.Error("the fifth recipient was refused")
	}
	s.ExpireByHand(ctx, p.ID, ev(push.EventExpire, t0))
	q := createPush(t, s, tok(2), func(p *push.Push) { p.UserID = u.ID })
	s.ExpireByHand(ctx, q.ID, ev(push.EventExpire, t0))
	if ok, _ := s.Notify(ctx, q.ID, notice(1), push.MaxNotifyRecipients); ok {
		t.Error("an expired push was notified")
	}
}

// TestCreatePushNotify: the push, its creation_email_send entry, its
// recipients' count and its messages are stored together.
func TestCreatePushNotify(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	u := mustUser(t, s, "owner@example.com")
	p := testPush(tok(1))
	p.UserID = u.ID
	n := &Notice{Recipients: 2, Event: ev(push.EventCreationEmailSend, t0), Messages: []OutboxMessage{
		{Kind: "email", Ref: "a", Payload: []byte("1")}, {Kind: "email", Ref: "b", Payload: []byte("2")}}}
	if err := s.CreatePushNotify(ctx, p, ev(push.EventCreation, t0), nil, n); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, s, tok(1))
	if got.NotifyCount != 2 || got.LogCount != 2 || kinds(mustAudit(t, s, p.ID)) != "creation,creation_email_send" {
		t.Errorf("push %+v, audit %s", got, kinds(mustAudit(t, s, p.ID)))
	}
	if c := outboxRows(t, s, "kind = 'email'"); c != 2 {
		t.Errorf("%d messages", c)
	}
	// A token collision stores none of it.
	dup := testPush(tok(1))
	if err := s.CreatePushNotify(ctx, dup, ev(push.EventCreation, t0), nil, n); push.ErrorCode(err) != push.CodeConflict {
		t.Fatalf("duplicate: %v", err)
	}
	if c := outboxRows(t, s, "kind = 'email'"); c != 2 {
		t.Errorf("%d messages after a failed create", c)
	}
}

// TestResetAndConfirm: a reset works once and not after it expires, sets
// the password, ends the sessions, confirms the address and empties a
// later password change's outstanding reset; a confirmation works once.
func TestResetAndConfirm(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	u, err := s.CreatePendingUser(ctx, "new@example.com", "hash0", t0, OutboxMessage{Kind: "confirm", Ref: "c", Payload: []byte("p")},
		OutboxMessage{Kind: "signup_taken", Ref: "t", Payload: []byte("p")})
	if err != nil || !u.ConfirmPending {
		t.Fatalf("pending user %+v %v", u, err)
	}
	if n, taken := outboxRows(t, s, "kind = 'confirm'"), outboxRows(t, s, "kind = 'signup_taken'"); n != 1 || taken != 0 {
		t.Errorf("%d confirmation messages, %d for a taken address", n, taken)
	}
	if _, err := s.CreatePendingUser(ctx, "New@example.com", "h", t0, OutboxMessage{Kind: "confirm", Ref: "d"},
		OutboxMessage{Kind: "signup_taken", Ref: "t2", Payload: []byte("p")}); push.ErrorCode(err) != push.CodeConflict {
		t.Fatalf("duplicate pending user: %v", err)
	}
	if n, taken := outboxRows(t, s, "kind = 'confirm'"), outboxRows(t, s, "kind = 'signup_taken'"); n != 1 || taken != 1 {
		t.Errorf("a sign-up with a taken address queued %d confirmation messages and %d for the owner; want 1 and 1", n, taken)
	}
	if got, err := s.UserByEmail(ctx, "new@example.com"); err != nil || got.PasswordHash != "hash0" || got.AuthEpoch != u.AuthEpoch {
		t.Fatalf("the account after a sign-up with its address: %+v %v", got, err)
	}
	if err := s.CommitSession(ctx, "sess", u.ID, []byte("x"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.SetConfirmDigest(ctx, u.ID, "cdigest", t0.Add(time.Hour)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := s.SetResetDigest(ctx, u.ID, "rdigest", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.ResetValid(ctx, "rdigest", t0.Add(time.Hour)); ok {
		t.Error("valid at its expiry")
	}
	if ok, _ := s.ResetValid(ctx, "rdigest", t0); !ok {
		t.Error("not valid before its expiry")
	}
	if _, err := s.ResetPassword(ctx, "rdigest", "hash1", t0.Add(time.Hour)); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("expired reset: %v", err)
	}
	got, err := s.ResetPassword(ctx, "rdigest", "hash1", t0)
	if err != nil || got.PasswordHash != "hash1" || got.ConfirmPending || got.AuthEpoch == u.AuthEpoch {
		t.Fatalf("reset: %+v %v", got, err)
	}
	if _, ok, _ := s.FindSession(ctx, "sess", t0); ok {
		t.Error("the session survived the reset")
	}
	if _, err := s.ResetPassword(ctx, "rdigest", "hash2", t0); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("reset used twice: %v", err)
	}
	if _, err := s.Confirm(ctx, "cdigest", u.ID, "hash1", t0); push.ErrorCode(err) != push.CodeNotFound {
		t.Error("the confirmation survived the reset that confirmed the account")
	}
	if ok, _ := s.SetConfirmDigest(ctx, u.ID, "c2", t0.Add(time.Hour)); ok {
		t.Error("a confirmed account took a confirmation")
	}
	s.SetResetDigest(ctx, u.ID, "r2", t0.Add(time.Hour))
	if _, err := s.SetPassword(ctx, u.ID, "hash3", t0); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.ResetValid(ctx, "r2", t0); ok {
		t.Error("a password change left the reset link working")
	}

	v, _ := s.CreatePendingUser(ctx, "v@example.com", "h", t0, OutboxMessage{Kind: "confirm", Ref: "e"}, OutboxMessage{Kind: "signup_taken", Ref: "f"})
	s.SetConfirmDigest(ctx, v.ID, "vdigest", t0.Add(time.Hour))
	if _, err := s.Confirm(ctx, "vdigest", v.ID, "h", t0.Add(time.Hour)); push.ErrorCode(err) != push.CodeNotFound {
		t.Error("an expired confirmation worked")
	}
	if _, err := s.UserByConfirmDigest(ctx, "vdigest", t0.Add(time.Hour)); push.ErrorCode(err) != push.CodeNotFound {
		t.Error("an expired confirmation was found")
	}
	if w, err := s.UserByConfirmDigest(ctx, "vdigest", t0); err != nil || w.ID != v.ID || !w.ConfirmPending {
		t.Fatalf("by confirmation: %+v %v", w, err)
	}
	if _, err := s.Confirm(ctx, "vdigest", v.ID, "another hash", t0); push.ErrorCode(err) != push.CodeNotFound {
		t.Error("a confirmation worked for a password the account no longer has")
	}
	if _, err := s.Confirm(ctx, "vdigest", u.ID, "h", t0); push.ErrorCode(err) != push.CodeNotFound {
		t.Error("a confirmation worked for another account")
	}
	if c, err := s.Confirm(ctx, "vdigest", v.ID, "h", t0); err != nil || c.ConfirmPending {
		t.Fatalf("confirm: %+v %v", c, err)
	}
	if _, err := s.Confirm(ctx, "vdigest", v.ID, "h", t0); push.ErrorCode(err) != push.CodeNotFound {
		t.Error("a confirmation worked twice")
	}
	if err := s.SetReceiptsDefault(ctx, v.ID, push.ReceiptExpire, t0); err != nil {
		t.Fatal(err)
	}
	if w, _ := s.UserByEmail(ctx, "v@example.com"); w.ReceiptsDefault != push.ReceiptExpire || w.ConfirmPending {
		t.Errorf("user %+v", w)
	}
}
