package store

import (
	"fmt"
	"strings"
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
