package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/pressly/goose/v3"
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

// OpenSQLiteWith opens (creating if needed) the SQLite database at path in
// WAL mode with the given options. With the default options it opens the
// database exactly as OpenSQLite does: one writer connection, a read-only
// pool of 8, the same pragmas and file modes (TestOpenSQLiteWithMatches).
func OpenSQLiteWith(ctx context.Context, path string, o Options) (*Store, error) {
	sync, err := o.syncPragma()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create database directory: %w", err)
	}
	// Create the file with owner-only permissions before SQLite opens it.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(" + sync + ")", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", dsn+"&mode=ro")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s := &Store{w: &conn{DB: w, prepare: true}, r: &conn{DB: r, prepare: true}, dialect: goose.DialectSQLite3}
	if err := w.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Close()
		return nil, fmt.Errorf("restrict database file mode: %w", err)
	}
	return s, nil
}
