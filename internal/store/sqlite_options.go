package store

import (
	"fmt"
	"strings"
	"time"
)

// Options are the settings of a SQLite database.
type Options struct {
	// Sync is SQLite's synchronous setting for the writer: "normal" (the
	// default; "" means it too) or "full", case-insensitively. Both run in
	// WAL mode. With normal a process crash loses no committed transaction,
	// but a power loss or an operating system crash may lose the last ones
	// (never corrupting the database); with full every commit waits for the
	// write-ahead log to reach the disk (fsync), so those survive too.
	Sync string
	// BusyTimeout is how long a write waits for the write lock while
	// another connection or process holds it; 0 means 10 s.
	BusyTimeout time.Duration
}

// busyMillis is SQLite's busy_timeout for o.BusyTimeout.
func (o Options) busyMillis() int64 {
	if o.BusyTimeout <= 0 {
		return 10000
	}
	return max(o.BusyTimeout.Milliseconds(), 1)
}

// syncPragma returns the value of PRAGMA synchronous for o.Sync.
func (o Options) syncPragma() (string, error) {
	switch strings.ToLower(strings.TrimSpace(o.Sync)) {
	case "", "normal":
		return "NORMAL", nil
	case "full":
		return "FULL", nil
	}
	return "", fmt.Errorf("SQLite sync mode %q: want normal or full", o.Sync)
}
