package store

import (
	"path/filepath"
	"testing"

	"hush/internal/push"
	"hush/internal/testdb"
)

// copyTargets are the empty databases a copy is tried into: a SQLite file,
// and a PostgreSQL database in the PostgreSQL pass.
func copyTargets(t *testing.T) map[string]string {
	targets := map[string]string{"sqlite": filepath.Join(t.TempDir(), "target.db")}
	if testdb.Engine() == "postgres" {
		targets["postgres"] = testdb.PostgresURL(t)
	}
	return targets
}

// TestCopyAfterAdminAction: a SQLite database on which an admin action
// ran holds an empty meta value (the admin lock), which SQLite reads back
// as a nil blob; the copy stores it as an empty value, not as NULL, which
// the target's NOT NULL column refuses; a NULL stays NULL.
func TestCopyAfterAdminAction(t *testing.T) {
	t.Parallel()
	for engine, target := range copyTargets(t) {
		t.Run(engine, func(t *testing.T) {
			src := openTestStore(t, filepath.Join(t.TempDir(), "source.db"))
			u := newUser(t, src, "admin@example.com")
			if _, err := src.Administer(t.Context(), push.AdminActor{Name: "command line"}, push.AdminPromote, u.ID, t0); err != nil {
				t.Fatal(err)
			}
			dst := openTestStore(t, target)
			counts, err := src.CopyAll(t.Context(), dst)
			if err != nil {
				t.Fatalf("copy: %v", err)
			}
			if counts["admin_log"] != 1 || counts["users"] != 1 {
				t.Errorf("copied %v", counts)
			}
			if v, err := dst.Meta(t.Context(), "admin_lock"); err != nil || len(v) != 0 {
				t.Errorf("admin_lock after the copy: %q, %v", v, err)
			}
			// A NULL stays NULL.
			var null bool
			if err := dst.r.QueryRowContext(t.Context(), `SELECT totp_secret IS NULL FROM users`).Scan(&null); err != nil || !null {
				t.Errorf("a NULL blob after the copy: NULL %v, %v", null, err)
			}
		})
	}
}
