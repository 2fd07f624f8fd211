package store

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMigrateIdempotent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hush.db")
	s, err := OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	applied, err := s.Migrate(t.Context())
	if err != nil {
		t.Fatalf("first Migrate: %v", err)
	}
	files, err := migrations.ReadDir("migrations/sqlite")
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, f := range files {
		v, err := strconv.ParseInt(strings.SplitN(f.Name(), "_", 2)[0], 10, 64)
		if err != nil {
			t.Fatalf("migration %s: %v", f.Name(), err)
		}
		want = append(want, v)
	}
	for _, m := range sqliteGoMigrations() {
		want = append(want, m.Version)
	}
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(applied, want) {
		t.Fatalf("first Migrate applied %v, want %v", applied, want)
	}
	applied, err = s.Migrate(t.Context())
	if err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if len(applied) != 0 {
		t.Fatalf("second Migrate applied %v, want none", applied)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hush.db")
	s, err := OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	p := testPush("keepme")
	if err := s.CreatePush(t.Context(), p, ev(0, t0)); err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(t.Context(), "a@example.com", "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s2, err := OpenSQLite(t.Context(), path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { s2.Close() })
	applied, err := s2.Migrate(t.Context())
	if err != nil || len(applied) != 0 {
		t.Fatalf("Migrate after reopen = %v, %v; want none applied", applied, err)
	}
	got := mustLoad(t, s2, "keepme")
	if got.ID != p.ID || string(got.PayloadSealed) != "sealed:keepme" {
		t.Fatalf("reopened push = id %d payload %q, want id %d payload %q", got.ID, got.PayloadSealed, p.ID, "sealed:keepme")
	}
	gu, err := s2.UserByEmail(t.Context(), "a@example.com")
	if err != nil || gu.ID != u.ID {
		t.Fatalf("reopened user = %+v, %v; want id %d", gu, err, u.ID)
	}
	if n := len(mustAudit(t, s2, p.ID)); n != 1 {
		t.Fatalf("reopened audit log has %d entries, want 1", n)
	}
}

func TestDatabaseFileMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name    string
		path    string
		prepare func(t *testing.T, path string)
	}{
		{name: "new file in new directory", path: filepath.Join(dir, "new", "sub", "hush.db")},
		{name: "existing world-readable file", path: filepath.Join(dir, "old", "hush.db"), prepare: func(t *testing.T, path string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "path needing URI escapes", path: filepath.Join(dir, "we?ird #dir%20x", "hu&sh.db")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.prepare != nil {
				tc.prepare(t, tc.path)
			}
			s := openTestStore(t, tc.path)
			createPush(t, s, "x", nil) // the data really lands in this file
			fi, err := os.Stat(tc.path)
			if err != nil {
				t.Fatalf("database file not at %q: %v", tc.path, err)
			}
			if perm := fi.Mode().Perm(); perm != 0o600 {
				t.Fatalf("database file mode = %o, want 600", perm)
			}
			for _, side := range []string{"-wal", "-shm"} {
				if si, err := os.Stat(tc.path + side); err == nil && si.Mode().Perm() != 0o600 {
					t.Errorf("%s file mode = %o, want 600", side, si.Mode().Perm())
				}
			}
			if fi.Size() == 0 {
				t.Fatalf("database file %q is empty", tc.path)
			}
			if tc.prepare == nil {
				di, err := os.Stat(filepath.Dir(tc.path))
				if err != nil {
					t.Fatal(err)
				}
				if perm := di.Mode().Perm(); perm != 0o700 {
					t.Fatalf("created directory mode = %o, want 700", perm)
				}
			}
		})
	}
}
