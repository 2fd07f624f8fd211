package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/faultproxy"
	"hush/internal/push"
	"hush/internal/testdb"
)

// lockWrites holds the database's write lock from another connection
// until the returned function is called (or the test ends).
func lockWrites(t *testing.T, url string) (release func()) {
	t.Helper()
	release, err := testdb.LockWrites(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return release
}

// openBusy opens a migrated SQLite store whose writes wait busy for a
// lock held elsewhere, and returns it with its path.
func openBusy(t *testing.T, busy time.Duration) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hush.db")
	s, err := OpenSQLiteWith(t.Context(), path, Options{BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// TestNoViewClaimedForAGoneCaller holds the write lock while one-view pushes
// are requested by clients that give up before it is released, and by one
// that waits: the gone clients' views are never claimed (the pushes stay
// unread, their views available), the waiting client's is.
func TestNoViewClaimedForAGoneCaller(t *testing.T) {
	t.Parallel()
	url := testdb.URL(t)
	s := openTestStore(t, url)
	const gone = 4
	var pushes []*push.Push
	for i := range gone + 1 {
		pushes = append(pushes, createPush(t, s, tok(i), func(p *push.Push) { p.ExpireAfterViews = 1 }))
	}
	release := lockWrites(t, url)

	type answer struct {
		i   int
		c   Claim
		err error
	}
	answers := make(chan answer, gone+1)
	for i, p := range pushes {
		go func() {
			ctx := t.Context()
			if i < gone {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
			}
			c, err := s.ClaimView(ctx, p.ID, ev(push.EventView, t0.Add(time.Minute)))
			answers <- answer{i, c, err}
		}()
	}
	// The clients give up while the lock is held; it is released after.
	time.Sleep(time.Second)
	release()
	for range gone + 1 {
		a := <-answers
		switch {
		case a.i < gone && !errors.Is(a.err, context.DeadlineExceeded):
			t.Errorf("claim of client %d, gone before the lock was free: %+v, %v; want its deadline's error", a.i, a.c, a.err)
		case a.i == gone && (a.err != nil || !a.c.Claimed):
			t.Errorf("claim of the waiting client: %+v, %v; want claimed", a.c, a.err)
		}
	}
	for i, p := range pushes {
		got := mustLoad(t, s, tok(i))
		views := countKind(mustAudit(t, s, p.ID), push.EventView)
		if i < gone && (got.ViewCount != 0 || got.Expired || views != 0) {
			t.Errorf("push of gone client %d: ViewCount=%d Expired=%v view entries=%d; want untouched", i, got.ViewCount, got.Expired, views)
		}
		if i == gone && (got.ViewCount != 1 || !got.Expired || views != 1) {
			t.Errorf("push of the waiting client: ViewCount=%d Expired=%v view entries=%d; want its one view", got.ViewCount, got.Expired, views)
		}
	}
	// The pushes whose clients left can still be read once.
	for i := range gone {
		if c, err := s.ClaimView(t.Context(), pushes[i].ID, ev(push.EventView, t0.Add(2*time.Minute))); err != nil || !c.Claimed {
			t.Errorf("later claim of push %d: %+v, %v; want its view", i, c, err)
		}
	}
}

// TestBusyDatabaseIsAFault holds the SQLite write lock past the busy
// timeout: a write fails with a fault that asks to try again (503), after
// waiting for the lock once, not once per retry; released, writes pass.
func TestBusyDatabaseIsAFault(t *testing.T) {
	t.Parallel()
	if testdb.Engine() != "sqlite" {
		t.Skip("the write lock of SQLite; PostgreSQL has row locks (TestPostgresOutageBacksOff)")
	}
	s, path := openBusy(t, 300*time.Millisecond)
	release := lockWrites(t, path)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = s.CreatePush(t.Context(), testPush(tok(i)), ev(push.EventCreation, t0)) })
	}
	wg.Wait()
	waited := time.Since(start)
	for i, err := range errs {
		f, ok := FaultOf(err)
		if !ok || f.Code != push.CodeUnavailable || f.Cause != "busy" || f.RetryAfter <= 0 {
			t.Errorf("create %d while the lock is held: %v → %+v %v; want a busy fault", i, err, f, ok)
		}
	}
	// One wait for the lock for the batch, not one more per retried body.
	if waited > 8*300*time.Millisecond {
		t.Errorf("8 writes took %v to fail with a busy timeout of 300ms: retried one by one", waited)
	}
	if err := s.ProbeWrite(t.Context(), 1); err == nil {
		t.Error("the readiness write passed while the lock was held")
	}
	release()
	if err := s.CreatePush(t.Context(), testPush("after"), ev(push.EventCreation, t0)); err != nil {
		t.Fatalf("create after the lock was released: %v", err)
	}
	if err := s.ProbeWrite(t.Context(), 2); err != nil {
		t.Fatalf("readiness write after the lock was released: %v", err)
	}
}

// TestFaultOfOtherErrors: what is not the storage's fault is not one.
func TestFaultOfOtherErrors(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	createPush(t, s, "dup", nil)
	dupErr := s.CreatePush(t.Context(), testPush("dup"), ev(push.EventCreation, t0))
	_, missingErr := s.PushByKey(t.Context(), "missing")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	_, goneErr := s.PushByKey(cancelled, "dup")
	if goneErr == nil { // SQLite's reads finish whatever the caller does
		goneErr = fmt.Errorf("load push: %w", cancelled.Err())
	}
	for name, err := range map[string]error{"unique violation": dupErr, "missing row": missingErr, "caller gone": goneErr, "nil": nil} {
		if f, ok := FaultOf(err); ok {
			t.Errorf("%s (%v) classified as a storage fault: %+v", name, err, f)
		}
	}
	if dupErr == nil || goneErr == nil {
		t.Fatalf("setup: duplicate %v, cancelled %v", dupErr, goneErr)
	}
	// A full disk, as the operating system reports it.
	fullErr := os.WriteFile("/dev/full", []byte("x"), 0)
	if f, ok := FaultOf(fullErr); !ok || f.Code != push.CodeStorageFull {
		t.Errorf("writing /dev/full (%v): %+v %v, want a full-storage fault", fullErr, f, ok)
	}
}

// TestPostgresOutageBacksOff stops PostgreSQL behind a proxy while 64
// clients keep reading: requests fail at once with an unreachable fault
// that says when to try again, connection attempts back off instead of
// one per request, and the store recovers by itself when the server is
// back.
func TestPostgresOutageBacksOff(t *testing.T) {
	t.Parallel()
	if testdb.Engine() != "postgres" {
		t.Skip("PostgreSQL connection back-off: runs in the PostgreSQL pass")
	}
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	u.Host = proxy.Addr()
	s := openTestStore(t, u.String())
	createPush(t, s, "there", nil)

	proxy.Set(faultproxy.Refuse)
	proxy.Cut()
	before := proxy.Accepted()
	var wg sync.WaitGroup
	var requests, faults atomic.Int64
	deadline := time.Now().Add(2 * time.Second)
	for range 64 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				_, err := s.PushByKey(t.Context(), "there")
				requests.Add(1)
				if f, ok := FaultOf(err); ok && f.Code == push.CodeUnavailable && f.RetryAfter >= time.Second {
					faults.Add(1)
				} else {
					t.Errorf("read during the outage: %v → %+v %v", err, f, ok)
					return
				}
			}
		})
	}
	wg.Wait()
	attempts := proxy.Accepted() - before
	t.Logf("outage of 2s: %d requests, %d connections to the proxy", requests.Load(), attempts)
	// At most 4 attempts when the outage begins, then a back-off from 100ms
	// doubling to 5s: about 5 more in 2s; each attempt may connect twice
	// (TLS first, then without).
	if attempts > 2*(4+6) || faults.Load() < 64 {
		t.Errorf("%d connection attempts for %d requests in 2s of outage, want a handful", attempts, requests.Load())
	}

	proxy.Set(faultproxy.Pass)
	var last error
	for range 100 {
		if _, last = s.PushByKey(t.Context(), "there"); last == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last != nil {
		t.Fatalf("no recovery within 10s of the server's return: %v", last)
	}
}

// TestProbeWriteKeepsItsBound: readiness asks with a deadline shorter than
// the busy timeout; the probe answers by then (busy), even though the write
// it queued waits on for the lock.
func TestProbeWriteKeepsItsBound(t *testing.T) {
	t.Parallel()
	if testdb.Engine() != "sqlite" {
		t.Skip("the write lock of SQLite")
	}
	s, path := openBusy(t, 5*time.Second)
	release := lockWrites(t, path)
	defer release()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.ProbeWrite(ctx, 1)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the probe took %v with a deadline of 300ms", took)
	}
	if f, ok := FaultOf(err); !ok || f.Cause != "busy" {
		t.Errorf("probe under a held lock: %v → %+v %v; want busy", err, f, ok)
	}
}
