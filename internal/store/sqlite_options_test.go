package store

import (
	"os"
	"path/filepath"
	"testing"
)

// pragma reads a PRAGMA on the writer connection.
func pragma(t *testing.T, s *Store, name string) string {
	t.Helper()
	var v string
	if err := s.w.QueryRowContext(t.Context(), `PRAGMA `+name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestOpenSQLiteWithSync(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sync string
		want string // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{"", "1"}, {"normal", "1"}, {"NORMAL", "1"}, {"full", "2"}, {"Full", "2"}, {" full ", "2"},
	} {
		s, err := OpenSQLiteWith(t.Context(), filepath.Join(t.TempDir(), "hush.db"), Options{Sync: tc.sync})
		if err != nil {
			t.Fatalf("Sync %q: %v", tc.sync, err)
		}
		if got := pragma(t, s, "synchronous"); got != tc.want {
			t.Errorf("Sync %q: PRAGMA synchronous = %s, want %s", tc.sync, got, tc.want)
		}
		if got := pragma(t, s, "journal_mode"); got != "wal" {
			t.Errorf("Sync %q: journal_mode = %s, want wal", tc.sync, got)
		}
		s.Close()
	}
	for _, bad := range []string{"off", "extra", "2"} {
		if s, err := OpenSQLiteWith(t.Context(), filepath.Join(t.TempDir(), "hush.db"), Options{Sync: bad}); err == nil {
			s.Close()
			t.Errorf("Sync %q accepted", bad)
		}
	}
}

// With the default options OpenSQLiteWith opens the database as OpenSQLite
// does: same pragmas, pools and file mode.
func TestOpenSQLiteConnections(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "b", "hush.db")
	b, err := OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if n := b.w.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("%d writer connections, want 1", n)
	}
	if _, err := b.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.r.ExecContext(t.Context(), `DELETE FROM meta`); err == nil {
		t.Error("the read pool can write")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("database file mode %o, want 600", perm)
	}
}
