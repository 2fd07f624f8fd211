package store

import (
	"path/filepath"
	"testing"

	"hush/internal/push"
	"hush/internal/testdb"
)

// copyEngines are the engines a copy is tried from and into: SQLite, and
// PostgreSQL too in the PostgreSQL pass.
func copyEngines() []string {
	if testdb.Engine() == "postgres" {
		return []string{"sqlite", "postgres"}
	}
	return []string{"sqlite"}
}

// emptyDB opens a new, migrated database of engine.
func emptyDB(t *testing.T, engine string) *Store {
	t.Helper()
	if engine == "postgres" {
		return openTestStore(t, testdb.PostgresURL(t))
	}
	return openTestStore(t, filepath.Join(t.TempDir(), "hush.db"))
}

// TestCopyAfterAdminAction: a SQLite database on which an admin action
// ran holds an empty meta value (the admin lock), which SQLite reads back
// as a nil blob; the copy stores it as an empty value, not as NULL, which
// the target's NOT NULL column refuses; a NULL stays NULL.
func TestCopyAfterAdminAction(t *testing.T) {
	t.Parallel()
	for _, engine := range copyEngines() {
		t.Run("sqlite-to-"+engine, func(t *testing.T) {
			src := emptyDB(t, "sqlite")
			u := newUser(t, src, "admin@example.com")
			if _, err := src.Administer(t.Context(), push.AdminActor{Name: "command line"}, push.AdminPromote, u.ID, t0); err != nil {
				t.Fatal(err)
			}
			dst := emptyDB(t, engine)
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

// TestCopyNeverReusesIds: ids continue from the source's sequences, not
// from the highest id left (D21). The newest user and the newest push are
// deleted before the copy; the next user and push in the target get new
// ids, so the copied admin log line about the deleted user names nobody.
func TestCopyNeverReusesIds(t *testing.T) {
	t.Parallel()
	for _, srcEngine := range copyEngines() {
		for _, dstEngine := range copyEngines() {
			t.Run(srcEngine+"-to-"+dstEngine, func(t *testing.T) {
				ctx := t.Context()
				src := emptyDB(t, srcEngine)
				newUser(t, src, "kept@example.com")
				gone := newUser(t, src, "gone@example.com")
				if _, err := src.Administer(ctx, push.AdminActor{Name: "command line"}, push.AdminDelete, gone.ID, t0); err != nil {
					t.Fatal(err)
				}
				createPush(t, src, "kept", nil)
				purged := createPush(t, src, "purged", nil)
				if _, err := src.w.ExecContext(ctx, `DELETE FROM pushes WHERE id = $1`, purged.ID); err != nil {
					t.Fatal(err)
				}
				dst := emptyDB(t, dstEngine)
				if _, err := src.CopyAll(ctx, dst); err != nil {
					t.Fatalf("copy: %v", err)
				}
				if u := newUser(t, dst, "new@example.com"); u.ID <= gone.ID {
					t.Errorf("a new user got id %d; the deleted one had %d", u.ID, gone.ID)
				}
				if p := createPush(t, dst, "new", nil); p.ID <= purged.ID {
					t.Errorf("a new push got id %d; the purged one had %d", p.ID, purged.ID)
				}
			})
		}
	}
}
