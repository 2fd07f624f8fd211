package store

import (
	"sync"
	"testing"
	"time"

	"hush/internal/push"
)

// TestIDsNeverReused checks that deleting the row with the highest id never
// lets the next row take that id: users, pushes and files (an id names a
// session's user, a download link's push and file).
func TestIDsNeverReused(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	a := mustUser(t, s, "a@example.com")
	b := mustUser(t, s, "b@example.com")
	if _, err := s.DeleteUser(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	c := mustUser(t, s, "c@example.com")
	if c.ID == b.ID || c.ID <= a.ID {
		t.Fatalf("after deleting user %d the next user got id %d", b.ID, c.ID)
	}

	p1 := createPush(t, s, "p1", nil)
	p2 := createPush(t, s, "p2", nil)
	files := []*push.File{{BlobID: "blob-1", MetaSealed: []byte("m"), KeySealed: []byte("k"), Size: 1}}
	p3 := testPush("p3")
	if err := s.CreatePushWithFiles(ctx, p3, ev(push.EventCreation, t0), files); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `DELETE FROM pushes WHERE id IN ($1, $2)`, p2.ID, p3.ID); err != nil {
		t.Fatal(err)
	}
	p4 := testPush("p4")
	files4 := []*push.File{{BlobID: "blob-2", MetaSealed: []byte("m"), KeySealed: []byte("k"), Size: 1}}
	if err := s.CreatePushWithFiles(ctx, p4, ev(push.EventCreation, t0), files4); err != nil {
		t.Fatal(err)
	}
	if p4.ID <= p3.ID || p4.ID == p2.ID || p4.ID <= p1.ID {
		t.Fatalf("after deleting pushes %d and %d the next push got id %d", p2.ID, p3.ID, p4.ID)
	}
	if files4[0].ID <= files[0].ID {
		t.Fatalf("after deleting file %d the next file got id %d", files[0].ID, files4[0].ID)
	}
}

// TestSessionsEndWithTheirAccount checks that a session row belongs to its
// user: a password change, a revocation and the account's deletion delete
// every session of the account, and each of the first two gives the account
// a new auth epoch.
func TestSessionsEndWithTheirAccount(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	u := mustUser(t, s, "a@example.com")
	other := mustUser(t, s, "b@example.com")
	if u.AuthEpoch == "" || u.AuthEpoch == other.AuthEpoch {
		t.Fatalf("auth epochs %q and %q: want distinct and set", u.AuthEpoch, other.AuthEpoch)
	}
	later := t0.Add(time.Hour)
	commit := func(digest string, userID int64) {
		t.Helper()
		if err := s.CommitSession(ctx, digest, userID, []byte("data"), later); err != nil {
			t.Fatal(err)
		}
	}
	found := func(digest string) bool {
		_, ok, err := s.FindSession(ctx, digest, t0)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	commit("s1", u.ID)
	commit("s2", u.ID)
	commit("o1", other.ID)
	commit("anon", 0)

	epoch, err := s.SetPassword(ctx, u.ID, "new-hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	if found("s1") || found("s2") {
		t.Error("a session survived the password change")
	}
	if !found("o1") || !found("anon") {
		t.Error("the password change ended other users' sessions")
	}
	got, _ := s.UserByID(ctx, u.ID)
	if epoch == u.AuthEpoch || got.AuthEpoch != epoch {
		t.Errorf("epoch after password change %q (stored %q), before %q", epoch, got.AuthEpoch, u.AuthEpoch)
	}

	commit("s3", u.ID)
	if err := s.RevokeSessions(ctx, u.ID, t0); err != nil {
		t.Fatal(err)
	}
	if found("s3") {
		t.Error("a session survived RevokeSessions")
	}
	again, _ := s.UserByID(ctx, u.ID)
	if again.AuthEpoch == epoch {
		t.Error("RevokeSessions kept the auth epoch")
	}

	commit("s4", u.ID)
	if _, err := s.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if found("s4") {
		t.Error("a session survived the account's deletion")
	}
	// A session committed for the deleted account belongs to nobody.
	commit("late", u.ID)
	var owner *int64
	if err := s.r.QueryRowContext(ctx, `SELECT user_id FROM sessions WHERE token = 'late'`).Scan(&owner); err != nil || owner != nil {
		t.Errorf("late session of a deleted user: user_id %v, %v", owner, err)
	}
}

// TestReserveUnderConcurrency checks that a limit holds however many
// requests arrive together: 60 concurrent reservations against a limit of
// 5 take exactly 5 slots, on one store or on two handles of one database.
func TestReserveUnderConcurrency(t *testing.T) {
	t.Parallel()
	stores := twoHandles(t)
	ctx := t.Context()
	at := t0.Add(time.Hour)
	limits := []Limit{{Bucket: "client", Max: 5, Window: time.Minute}, {Bucket: "push", Max: 20, Window: time.Hour}}
	var (
		mu    sync.Mutex
		taken [][]int64
		wg    sync.WaitGroup
	)
	for i := range 60 {
		wg.Go(func() {
			ids, wait, err := stores[i%2].Reserve(ctx, at, limits...)
			if err != nil {
				t.Error(err)
				return
			}
			if (len(ids) == 0) == (wait == 0) {
				t.Errorf("Reserve = %v, %v: want slots or a wait", ids, wait)
			}
			if len(ids) > 0 {
				mu.Lock()
				taken = append(taken, ids)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(taken) != 5 {
		t.Fatalf("%d of 60 concurrent reservations succeeded, want 5", len(taken))
	}
	for _, ids := range taken {
		if len(ids) != 2 {
			t.Fatalf("a reservation took %d slots, want one per limit", len(ids))
		}
	}
	if n, _ := stores[0].CountEvents(ctx, "push", at, time.Hour); n != 5 {
		t.Fatalf("push bucket holds %d events, want 5 (refused reservations take nothing)", n)
	}

	// The wait is until the oldest slot leaves the window.
	_, wait, err := stores[0].Reserve(ctx, at.Add(20*time.Second), limits...)
	if err != nil || wait != 40*time.Second {
		t.Fatalf("Reserve 20 s later: wait %v, %v; want 40s", wait, err)
	}
	if w, err := stores[0].Wait(ctx, at.Add(20*time.Second), limits...); err != nil || w != 40*time.Second {
		t.Fatalf("Wait = %v, %v; want 40s", w, err)
	}
	// Released slots are free again.
	if err := stores[1].Release(ctx, taken[0]); err != nil {
		t.Fatal(err)
	}
	if ids, wait, err := stores[0].Reserve(ctx, at.Add(time.Second), limits...); err != nil || len(ids) != 2 || wait != 0 {
		t.Fatalf("Reserve after Release = %v, %v, %v", ids, wait, err)
	}
	// After the window the client bucket is free; the push bucket counts on.
	if ids, _, err := stores[0].Reserve(ctx, at.Add(time.Minute+time.Second), limits...); err != nil || len(ids) != 2 {
		t.Fatalf("Reserve after the window = %v, %v", ids, err)
	}
	if n, _ := stores[0].CountEvents(ctx, "push", at.Add(time.Minute+time.Second), time.Hour); n != 6 {
		t.Fatalf("push bucket holds %d events, want 6", n)
	}
	// Pruning drops old events and the lock rows of idle buckets.
	if _, err := stores[0].PruneEvents(ctx, at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := stores[0].r.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM rate_events) + (SELECT COUNT(*) FROM rate_buckets)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d rate rows left after pruning, %v", left, err)
	}
}
