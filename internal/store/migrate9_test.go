package store

import (
	"testing"

	"hush/internal/push"
	"hush/internal/testdb"
)

// TestMigration9KeepsDataAndReferences builds a database as it was before
// migration 9 — users (the highest one deleted, but remembered by an audit
// entry), pushes with clear tokens, audit entries, files, a session — and
// checks that migration 9 keeps every row, moves each clear token to
// legacy_token for the start-up conversion, ends the sessions, keeps the
// foreign keys working (a new audit entry and a cascade), and never hands
// out an id seen before; each in a step of its own.
func TestMigration9KeepsDataAndReferences(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	if _, err := s.migrateTo(ctx, 8); err != nil {
		t.Fatalf("migrate to 8: %v", err)
	}
	exec := func(q string, args ...any) { mustExec(t, s, q, args...) }
	at := ms(t0)
	exec(`INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (1, 'a@example.com', 'h1', $1, $1), (2, 'b@example.com', 'h2', $1, $1)`, at)
	exec(`INSERT INTO pushes (id, url_token, kind, user_id, name, payload, expire_after_days, expire_after_views,
		retrieval_step, log_count, expires_at, created_at, updated_at, file_count)
		VALUES (10, 'legacy-anon', 'text', NULL, '', $2, 7, 5, 1, 2, $1, $1, $1, 0),
		       (11, 'legacy-owned', 'file', 2, 'named', $2, 7, 5, 1, 1, $1, $1, $1, 1)`, at, []byte("sealed"))
	exec(`INSERT INTO audit_logs (push_id, kind, ip, user_agent, referrer, user_id, created_at)
		VALUES (10, 0, 'ip', 'ua', '', NULL, $1), (10, 1, 'ip', 'ua', '', 7, $1), (11, 0, 'ip', 'ua', '', 2, $1)`, at)
	exec(`INSERT INTO push_files (id, push_id, position, blob_id, meta, file_key, size, created_at)
		VALUES (5, 11, 0, 'blob', $2, $2, 3, $1)`, at, []byte("x"))
	exec(`INSERT INTO sessions (token, data, expiry) VALUES ('digest', $1, $2)`, []byte("d"), at+1000)

	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate 9: %v", err)
	}

	t.Run("rows kept, sessions dropped", func(t *testing.T) {
		if n := countRows(t, s, `SELECT COUNT(*) FROM users`); n != 2 {
			t.Errorf("%d users after migration, want 2", n)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM audit_logs`); n != 3 {
			t.Errorf("%d audit entries after migration, want 3", n)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM push_files WHERE push_id = 11`); n != 1 {
			t.Errorf("%d files of push 11, want 1", n)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM sessions`); n != 0 {
			t.Errorf("%d sessions survived, want none (they carry no auth epoch)", n)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM users WHERE auth_epoch = ''`); n != 0 {
			t.Errorf("%d users without an auth epoch", n)
		}
	})
	var legacy []*LegacyPush
	t.Run("the old pushes wait for their conversion", func(t *testing.T) {
		var err error
		legacy, err = s.LegacyPushes(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(legacy) != 2 || legacy[0].Token != "legacy-anon" || legacy[1].Token != "legacy-owned" ||
			legacy[1].UserID != 2 || len(legacy[1].Files) != 1 || string(legacy[0].Payload) != "sealed" {
			t.Fatalf("legacy pushes = %+v", legacy)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM pushes WHERE token_key IS NOT NULL`); n != 0 {
			t.Errorf("%d pushes have a token key before the conversion", n)
		}
	})
	if legacy == nil {
		return
	}
	t.Run("converting", func(t *testing.T) {
		// Converting a push that changed meanwhile does nothing.
		mustExec(t, s, `UPDATE pushes SET payload = NULL WHERE id = 10`)
		ok, err := s.ConvertLegacy(ctx, legacy[0], &Converted{TokenKey: "key-10", Payload: []byte("resealed")})
		if err != nil || ok {
			t.Fatalf("ConvertLegacy of a changed push = %v, %v; want false", ok, err)
		}
		legacy, _ = s.LegacyPushes(ctx, 10)
		ok, err = s.ConvertLegacy(ctx, legacy[0], &Converted{TokenKey: "key-10"})
		if err != nil || !ok {
			t.Fatalf("ConvertLegacy = %v, %v", ok, err)
		}
		ok, err = s.ConvertLegacy(ctx, legacy[1], &Converted{TokenKey: "key-11", TokenSealed: []byte("tok"),
			Payload: []byte("p2"), FileKeys: [][]byte{[]byte("fk2")}})
		if err != nil || !ok {
			t.Fatalf("ConvertLegacy = %v, %v", ok, err)
		}
		if n, _ := s.LegacyCount(ctx); n != 0 {
			t.Fatalf("%d legacy pushes left", n)
		}
		p, err := s.PushByKey(ctx, "key-11")
		if err != nil || p.ID != 11 || string(p.PayloadSealed) != "p2" || string(p.TokenSealed) != "tok" || p.Name != "named" {
			t.Fatalf("converted push = %+v, %v", p, err)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM pushes WHERE legacy_token IS NOT NULL`); n != 0 {
			t.Errorf("%d clear tokens left", n)
		}
		if files, _ := s.FilesOf(ctx, 11); len(files) != 1 || string(files[0].KeySealed) != "fk2" {
			t.Errorf("converted file keys = %+v", files)
		}
	})
	t.Run("references still work: a new audit entry, then a cascade", func(t *testing.T) {
		if err := s.LogEvent(ctx, 11, ev(push.EventOwnerView, t0)); err != nil {
			t.Fatalf("LogEvent after migration: %v", err)
		}
		if _, err := s.DeleteUser(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, s, `SELECT COUNT(*) FROM audit_logs WHERE push_id = 11`); n != 0 {
			t.Errorf("%d audit entries of a deleted user's push", n)
		}
	})
	// No id seen before is handed out again: user 7 is only remembered by
	// an audit entry, push 11 and file 5 were deleted.
	t.Run("no id reused", func(t *testing.T) {
		u := mustUser(t, s, "c@example.com")
		if u.ID <= 7 {
			t.Errorf("new user id %d, want above 7", u.ID)
		}
		np := createPush(t, s, "new", nil)
		if np.ID <= 11 {
			t.Errorf("new push id %d, want above 11", np.ID)
		}
	})
}

// mustExec runs one statement on the writer connection.
func mustExec(t *testing.T, s *Store, q string, args ...any) {
	t.Helper()
	if _, err := s.w.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// countRows runs a query that counts.
func countRows(t *testing.T, s *Store, q string) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(t.Context(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
