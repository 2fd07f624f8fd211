package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hush/internal/testdb"
)

// TestOpenExisting: a database is opened as it is only when it holds the
// schema this build migrates to; an empty one, an older one and a missing
// file are refused, and none of them is created or migrated.
func TestOpenExisting(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	if _, err := OpenExisting(ctx, filepath.Join(dir, "missing.db")); err == nil || !strings.Contains(err.Error(), "no database at") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Errorf("the missing file was created: %v", err)
	}

	old := filepath.Join(dir, "old.db")
	s, err := OpenSQLite(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.migrateTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := OpenExisting(ctx, old); err == nil || !strings.Contains(err.Error(), "run hush migrate on it first") {
		t.Errorf("an old schema: %v", err)
	}
	openTestStore(t, old) // migrated
	if got, err := OpenExisting(ctx, old); err != nil {
		t.Errorf("an up-to-date schema: %v", err)
	} else {
		got.Close()
	}

	if testdb.Engine() == "postgres" {
		url := testdb.PostgresURL(t)
		if _, err := OpenExisting(ctx, url); err == nil || !strings.Contains(err.Error(), "holds no Hush database") {
			t.Errorf("an empty PostgreSQL database: %v", err)
		}
		openTestStore(t, url)
		if got, err := OpenExisting(ctx, url); err != nil {
			t.Errorf("a migrated PostgreSQL database: %v", err)
		} else {
			got.Close()
		}
	}
}
