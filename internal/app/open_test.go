package app

import (
	"strings"
	"testing"

	"hush/internal/config"
)

// HUSH_SQLITE_SYNC reaches the SQLite database the program opens.
func TestOpenDatabaseSQLiteSync(t *testing.T) {
	for sync, want := range map[string]int{"normal": 1, "full": 2} {
		cfg, err := config.Load(nil, envFrom(map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_SQLITE_SYNC": sync}))
		if err != nil {
			t.Fatal(err)
		}
		st, err := openDatabase(t.Context(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := st.DB().QueryRowContext(t.Context(), `PRAGMA synchronous`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if got != want {
			t.Errorf("HUSH_SQLITE_SYNC=%s: PRAGMA synchronous = %d, want %d", sync, got, want)
		}
	}
}

// TestNewDatabaseSaid: a verb or serve that finds no database creates it
// and says so — a mistyped data directory is noticed — and says nothing
// once it exists.
func TestNewDatabaseSaid(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	const said = "created a new, empty database"
	code, _, errOut := run(t, env, "", "user", "create", "--email", "first@example.com", "--password", "long enough")
	if code != 0 || !strings.Contains(errOut, said) {
		t.Fatalf("first verb on a new data directory: %d %q; want it to say it created the database", code, errOut)
	}
	if code, _, errOut := run(t, env, "", "user", "list"); code != 0 || strings.Contains(errOut, said) {
		t.Errorf("second verb: %d %q; want nothing said", code, errOut)
	}
	s := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	if !strings.Contains(s.log.String(), `msg="created a new, empty database"`) {
		t.Errorf("serve on a new data directory said nothing of it:\n%s", s.log.String())
	}
}
