package testdb

import (
	"database/sql"
	"os"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

func TestPostgresServer(t *testing.T) {
	u := PostgresURL(t)
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var one int
	if err := db.QueryRow(`SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("query: %v", err)
	}
	if os.Getenv("HUSH_TEST_POSTGRES_URL") == "" && server == nil {
		t.Error("no throwaway server was started")
	}
}
