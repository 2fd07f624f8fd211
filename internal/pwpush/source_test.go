package pwpush

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenRefusesOtherDatabases(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		dsn, db := emptyDB(t, engine)
		if _, err := db.Exec(`CREATE TABLE secrets (id integer PRIMARY KEY, payload text)`); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, dsn)
		if err == nil || err.Error() != "not a Password Pusher database: missing tables users, pushes, audit_logs, active_storage_attachments, active_storage_blobs" {
			t.Errorf("another database: %v", err)
		}

		// Password Pusher before 1.56: pushes in passwords, file_pushes, urls.
		dsn, db = emptyDB(t, engine)
		for _, q := range []string{
			`CREATE TABLE users (id integer PRIMARY KEY, email varchar, encrypted_password varchar, authentication_token varchar)`,
			`CREATE TABLE passwords (id integer PRIMARY KEY, url_token varchar, payload_ciphertext text)`,
			`CREATE TABLE urls (id integer PRIMARY KEY, url_token varchar, payload_ciphertext text)`,
			`INSERT INTO passwords (id, url_token, payload_ciphertext) VALUES (1, 'abc', 'xyz')`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Open(ctx, dsn); err == nil || !strings.Contains(err.Error(), "version before 1.56") {
			t.Errorf("legacy schema: %v", err)
		}

		// 1.56 before its data migration finished: pushes still in passwords.
		dsn, db = schemaDB(t, engine)
		for _, q := range []string{
			`CREATE TABLE passwords (id integer PRIMARY KEY, url_token varchar, payload_ciphertext text)`,
			`INSERT INTO passwords (id, url_token, payload_ciphertext) VALUES (1, 'abc', 'xyz')`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Open(ctx, dsn); err == nil || !strings.Contains(err.Error(), "1 pushes are still in Password Pusher's legacy tables") {
			t.Errorf("unfinished data migration: %v", err)
		}
		if _, err := db.Exec(`INSERT INTO data_migration_statuses (name, completed, created_at, updated_at)
			VALUES ('push_model_migration', $1, '2025-06-01 00:00:00', '2025-06-01 00:00:00')`, true); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatalf("finished data migration: %v", err)
		}
		s.Close()

		// A pushes table without a column the readers need.
		dsn, db = schemaDB(t, engine)
		if _, err := db.Exec(`ALTER TABLE pushes DROP COLUMN passphrase_ciphertext`); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ctx, dsn); err == nil || err.Error() != "not a Password Pusher database: pushes has no column passphrase_ciphertext" {
			t.Errorf("pushes without passphrase: %v", err)
		}
	})
}

func TestOpenSQLitePaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.sqlite3")
	if _, err := Open(ctx, missing); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("Open created the missing file")
	}
	if _, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open(ctx, ""); err == nil {
		t.Error("empty path accepted")
	}
	if _, err := Open(ctx, "mysql2://pwpush:secret@db/pwpush"); err == nil || !strings.Contains(err.Error(), "MySQL") ||
		strings.Contains(err.Error(), "secret") {
		t.Errorf("MySQL: %v", err)
	}

	dsn, _ := schemaDB(t, EngineSQLite)
	for _, form := range []string{dsn, "sqlite3:" + dsn, "sqlite3://" + dsn} {
		s, err := Open(ctx, form)
		if err != nil {
			t.Errorf("%s: %v", form, err)
			continue
		}
		s.Close()
	}
}

// Rails 8 runs SQLite in WAL mode; Password Pusher may still hold the file.
func TestOpenSQLiteInWALModeWhileWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, EngineSQLite)
	if _, err := w.db.Exec(`PRAGMA journal_mode=WAL`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.Exec(`UPDATE users SET sign_in_count = 8 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	s := openWorld(t, w)
	for u, err := range s.Users(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if u.ID == 1 && u.SignInCount != 8 {
			t.Errorf("sign-in count %d: the write in the WAL is not seen", u.SignInCount)
		}
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestPostgresErrorsHidePasswords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, dsn := range []string{
		"postgres://pwpush:Sup3r%2FSecret!@127.0.0.1:1/pwpush?sslmode=disable&connect_timeout=2",
		"postgresql://pwpush@127.0.0.1:1/pwpush?sslmode=disable&password=Sup3r%2FSecret!&connect_timeout=2",
		"postgres://pwpush:Sup3r%2FSecret!@[::1:bad/pwpush",
	} {
		_, err := Open(ctx, dsn)
		if err == nil {
			t.Fatalf("%s: connected", dsn)
		}
		for _, s := range []string{"Sup3r", "Secret"} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("the error shows the password: %v", err)
			}
		}
	}
}

func TestReadOnlyAndOlderSchemas(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		w := newWorld(t, engine)
		var before []byte
		if engine == EngineSQLite {
			before, _ = os.ReadFile(w.dsn)
		}
		s := openWorld(t, w)
		if _, err := s.db.ExecContext(ctx, `UPDATE pushes SET expired = $1`, true); err == nil {
			t.Error("the source database took a write")
		}
		s.Close()
		if engine == EngineSQLite {
			if after, _ := os.ReadFile(w.dsn); !bytes.Equal(before, after) {
				t.Error("the SQLite file changed")
			}
		}

		// Before 2026 users had no TOTP columns, before 2024 no language.
		for _, c := range []string{"otp_required_for_login", "otp_secret_ciphertext", "preferred_language", "last_otp_timestep"} {
			if _, err := w.db.Exec(`ALTER TABLE users DROP COLUMN ` + c); err != nil {
				t.Fatal(err)
			}
		}
		s = openWorld(t, w)
		i := 0
		for u, err := range s.Users(ctx, w.keys(t, true)) {
			if err != nil {
				t.Fatal(err)
			}
			want := w.users[i]
			want.OTPRequired, want.OTPSecret, want.PreferredLanguage = false, "", ""
			if u != want {
				t.Errorf("user %d: %+v\nwant %+v", u.ID, u, want)
			}
			i++
		}
		if i != len(w.users) {
			t.Errorf("%d users", i)
		}
	})
}

func TestEmptyPasswordPusher(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		dsn, _ := schemaDB(t, engine)
		s, err := Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		keys, _ := ParseKeys("", "")
		if err := s.CheckKeys(ctx, keys); err != nil {
			t.Errorf("no ciphertext to check: %v", err)
		}
		for range s.Pushes(ctx, keys) {
			t.Error("a push in an empty database")
		}
		for range s.Users(ctx, keys) {
			t.Error("a user in an empty database")
		}
		if c, err := s.Count(ctx); err != nil || c != (Counts{}) {
			t.Errorf("counts %+v, %v", c, err)
		}
	})
}
