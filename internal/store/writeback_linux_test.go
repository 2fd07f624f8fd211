package store

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestWritebackKeepsLocks: the checkpointer opens and closes a descriptor
// of the write-ahead log before each checkpoint. SQLite holds its locks
// with POSIX locks, which closing any descriptor of a locked file drops for
// the whole process; the log is the one file it does not lock. While this
// process holds the write lock, another process must still find the
// database locked, however often startWriteback runs.
func TestWritebackKeepsLocks(t *testing.T) {
	if path := os.Getenv("HUSH_LOCK_PROBE"); path != "" {
		lockProbe(path)
		return
	}
	path := t.TempDir() + "/hush.db"
	s := openTestStore(t, path)
	mustCreate(t, s, testPush("writeback"))
	probe := func() string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestWritebackKeepsLocks$")
		cmd.Env = append(os.Environ(), "HUSH_LOCK_PROBE="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("probe process: %v\n%s", err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "probe: "); ok {
				return v
			}
		}
		t.Fatalf("probe process said nothing:\n%s", out)
		return ""
	}
	if got := probe(); got != "acquired" {
		t.Fatalf("with no transaction open, the other process got %q, want acquired", got)
	}
	tx, err := s.w.BeginTx(t.Context(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if got := probe(); got != "busy" {
		t.Fatalf("while this process writes, the other process got %q, want busy", got)
	}
	for range 3 {
		startWriteback(path + "-wal")
	}
	if got := probe(); got != "busy" {
		t.Errorf("after startWriteback the other process got %q, want busy: the write lock was dropped", got)
	}
}

// lockProbe tries once, without waiting, to take the write lock of the
// database at path, and prints whether it could.
func lockProbe(path string) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_txlock=immediate")
	if err != nil {
		fmt.Println("probe: open failed:", err)
		return
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		fmt.Println("probe: busy")
		return
	}
	tx.Rollback()
	fmt.Println("probe: acquired")
}
