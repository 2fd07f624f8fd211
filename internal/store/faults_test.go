package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/testdb"
)

// lockWrites holds the database's write lock from another connection, as
// another process (a backup, a sqlite3 shell, a stuck migration) would,
// until the returned function is called.
func lockWrites(t *testing.T, url string) (release func()) {
	t.Helper()
	driver, lock := "sqlite", `BEGIN IMMEDIATE`
	if IsPostgresURL(url) {
		driver, lock = "pgx", `BEGIN; LOCK TABLE pushes, audit_logs IN EXCLUSIVE MODE`
	}
	db, err := sql.Open(driver, url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(t.Context(), lock); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := c.ExecContext(context.Background(), `ROLLBACK`); err != nil {
				t.Errorf("release the write lock: %v", err)
			}
			c.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
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
