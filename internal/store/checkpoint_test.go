package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
	"time"
)

// ownCheckpointer stops the store's background checkpointer and returns
// one whose checkpoints only the test runs.
func ownCheckpointer(t *testing.T, s *Store, path string) *checkpointer {
	t.Helper()
	if err := s.ckpt.close(); err != nil {
		t.Fatal(err)
	}
	s.ckpt = nil
	db, err := sql.Open("sqlite", s.dsn)
	if err != nil {
		t.Fatal(err)
	}
	c := openCheckpointer(db, path+"-wal")
	close(c.done) // no ticks run: close need not wait for them
	return c
}

// TestGuardedCheckpoint: a checkpoint under the guard copies the frames
// committed before the guard began and no more, and the log cannot start
// over while the guard is held; without the guard a checkpoint copies the
// whole log, and the next commit starts the log over.
func TestGuardedCheckpoint(t *testing.T) {
	path := t.TempDir() + "/hush.db"
	s := openTestStore(t, path)
	c := ownCheckpointer(t, s, path)
	defer c.close()
	create := func(prefix string) {
		for i := range 40 {
			mustCreate(t, s, testPush(fmt.Sprint(prefix, i)))
		}
	}

	create("before-")
	c.hold()
	if c.guard == nil {
		t.Fatal("hold began no guard")
	}
	atGuard, copied := c.checkpoint()
	if atGuard == 0 || copied != atGuard {
		t.Fatalf("nothing written after the guard: log %d frames, %d copied; want all of a non-empty log", atGuard, copied)
	}
	create("guarded-")
	logFrames, copied := c.checkpoint()
	if logFrames <= atGuard {
		t.Fatalf("log %d frames after more commits, %d before: the log started over under the guard", logFrames, atGuard)
	}
	if copied != atGuard {
		t.Fatalf("guarded checkpoint copied %d of %d frames, want the %d committed before the guard", copied, logFrames, atGuard)
	}

	c.release()
	full, copied := c.checkpoint()
	if full != logFrames || copied != full {
		t.Fatalf("unguarded checkpoint: log %d frames, %d copied; want all %d", full, copied, logFrames)
	}
	mustCreate(t, s, testPush("after"))
	restarted, _ := c.checkpoint()
	if restarted == 0 || restarted >= full {
		t.Fatalf("log %d frames after one more commit, %d before: want it started over", restarted, full)
	}
	for _, token := range []string{"before-0", "guarded-39", "after"} {
		if _, err := s.PushByKey(t.Context(), token); err != nil {
			t.Errorf("PushByKey(%q): %v", token, err)
		}
	}
}

// TestLongLogUnderGuard: past restartFrames only an unguarded checkpoint
// restarts the log. A RESTART waits for every reader, the guard included,
// so under the guard it would wait out the busy timeout.
func TestLongLogUnderGuard(t *testing.T) {
	path := t.TempDir() + "/hush.db"
	s, err := OpenSQLiteWith(t.Context(), path, Options{BusyTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := ownCheckpointer(t, s, path)
	defer c.close()
	mustCreate(t, s, testPush("first"))
	c.hold()
	if c.guard == nil {
		t.Fatal("hold began no guard")
	}
	for i := 0; ; i++ {
		mustCreate(t, s, testPush(fmt.Sprint("long-", i)))
		if i%200 != 199 {
			continue
		}
		start := time.Now()
		logFrames, _ := c.checkpoint()
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("a guarded checkpoint of a %d-frame log took %v: it waited for the guard", logFrames, took)
		}
		if logFrames > restartFrames {
			break
		}
	}
	c.release()
	if logFrames, copied := c.checkpoint(); copied != logFrames {
		t.Fatalf("unguarded checkpoint of the long log: %d of %d frames copied", copied, logFrames)
	}
	mustCreate(t, s, testPush("last"))
	if logFrames, _ := c.checkpoint(); logFrames > 100 {
		t.Fatalf("log %d frames after the long one was checkpointed: it did not start over", logFrames)
	}
}

// TestLogStartsOverUnderLoad: under writes that never pause, the
// background checkpointer still starts the log over, so it cannot grow
// without end. Guarded checkpoints alone never would: each stops at its
// guard, short of the end, and a RESTART waits for the guard. The full
// checkpoint of each round (or its RESTART past restartFrames) does. SQLite
// writes new salts into the log's header each time it starts over.
func TestLogStartsOverUnderLoad(t *testing.T) {
	path := t.TempDir() + "/hush.db"
	s := openTestStore(t, path)
	mustCreate(t, s, testPush("first"))
	salts := func() [8]byte {
		t.Helper()
		f, err := os.Open(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var hdr [32]byte
		if _, err := f.ReadAt(hdr[:], 0); err != nil {
			t.Fatal(err)
		}
		return [8]byte(hdr[16:24])
	}
	first := salts()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; salts() == first; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the log did not start over in 20 s of continuous writes (%d creates)", i)
		}
		mustCreate(t, s, testPush(fmt.Sprint("load-", i)))
	}
}

// TestCloseEndsGuard: closing the store while the checkpointer holds its
// guard still ends with every page in the database file and the log gone,
// as the last connection's close leaves it.
func TestCloseEndsGuard(t *testing.T) {
	path := t.TempDir() + "/hush.db"
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := ownCheckpointer(t, s, path)
	s.ckpt = c
	mustCreate(t, s, testPush("closing"))
	c.hold()
	if c.guard == nil {
		t.Fatal("hold began no guard")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Close the log is still there (%v): a connection stayed open", err)
	}
	s2 := openTestStore(t, path)
	if _, err := s2.PushByKey(t.Context(), "closing"); err != nil {
		t.Fatalf("after reopening: %v", err)
	}
}
