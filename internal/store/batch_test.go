package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/push"
)

// TestBatchFailureIsolated runs many concurrent creates, some of which reuse
// a token already taken, so that failing and succeeding transaction bodies
// share batches: every duplicate must fail with a conflict, every other
// create must be stored exactly once, with its audit entry.
func TestBatchFailureIsolated(t *testing.T) {
	s := newTestStore(t)
	mustCreate(t, s, testPush("taken"))
	const n = 200
	errs := make([]error, n)
	pushes := make([]*push.Push, n)
	var wg sync.WaitGroup
	for i := range n {
		tok := fmt.Sprint("batch-", i)
		if i%7 == 3 {
			tok = "taken"
		}
		pushes[i] = testPush(tok)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.CreatePush(t.Context(), pushes[i], ev(push.EventCreation, t0))
		}()
	}
	wg.Wait()
	stored := 0
	for i, err := range errs {
		if i%7 == 3 {
			if push.ErrorCode(err) != push.CodeConflict {
				t.Errorf("duplicate %d: %v, want a conflict", i, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("create %d: %v", i, err)
			continue
		}
		got, err := s.PushByKey(t.Context(), pushes[i].TokenKey)
		if err != nil || got.ID != pushes[i].ID || got.LogCount != 1 {
			t.Errorf("create %d: stored %+v, %v; id %d", i, got, err, pushes[i].ID)
		}
		stored++
	}
	var rows, logs int
	s.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pushes`).Scan(&rows)
	s.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM audit_logs`).Scan(&logs)
	if rows != stored+1 || logs != stored+1 {
		t.Errorf("%d pushes and %d audit entries stored, want %d of each", rows, logs, stored+1)
	}
	if s.batch != nil && s.batch.shared.Load() == 0 {
		t.Error("no two of the concurrent creates shared a commit")
	}
}

// TestBatchCancelledAndClosed: a write whose context is already cancelled
// writes nothing; writes after Close fail instead of hanging.
func TestBatchCancelledAndClosed(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir()+"/hush.db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.CreatePush(ctx, testPush("cancelled"), ev(push.EventCreation, t0)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled create: %v", err)
	}
	if _, err := s.PushByKey(t.Context(), "cancelled"); !errors.Is(err, push.ErrNotFound) {
		t.Errorf("cancelled create was stored: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.CreatePush(t.Context(), testPush("late"), ev(push.EventCreation, t0)) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a create after Close succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a create after Close hangs")
	}
}

// TestCheckpointInBackground: commits only append to the write-ahead log;
// the checkpointer copies the pages into the database file on its own,
// without a commit having to cross a size threshold.
func TestCheckpointInBackground(t *testing.T) {
	path := t.TempDir() + "/hush.db"
	s := openTestStore(t, path)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		mustCreate(t, s, testPush(fmt.Sprint("ckpt-", i)))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		after, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if after.Size() > before.Size() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file still %d bytes 5 s after the writes: no checkpoint ran", after.Size())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBatchBodyPanic: a transaction body that panics fails its own call and
// leaves the writer serving the others.
func TestBatchBodyPanic(t *testing.T) {
	s := newTestStore(t)
	if s.batch == nil {
		t.Skip("PostgreSQL runs each body in its caller's goroutine")
	}
	err := s.inBatch(t.Context(), func(*Tx) error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panicking body: %v", err)
	}
	mustCreate(t, s, testPush("after-panic"))
	if _, err := s.PushByKey(t.Context(), "after-panic"); err != nil {
		t.Fatalf("the writer stopped serving: %v", err)
	}
}
