//go:build unix

package app

import (
	"syscall"
	"testing"
)

// TestDerivedMaxConns: without HUSH_MAX_CONNS the bound is half the file
// descriptor limit, within 64..10000, so connections cannot use up the
// descriptors the database and the files need.
func TestDerivedMaxConns(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	want := int(min(max(rl.Cur/2, 64), 10000))
	if got := newConnLimiter(0, 0, nil); got.max != want || got.perClient != want {
		t.Errorf("derived bounds %d/%d with %d descriptors, want %d", got.max, got.perClient, rl.Cur, want)
	}
	if got := newConnLimiter(100, 500, nil); got.perClient != 100 {
		t.Errorf("a per-client bound above the overall one: %d, want 100", got.perClient)
	}
}
