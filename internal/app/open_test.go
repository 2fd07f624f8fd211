package app

import (
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
