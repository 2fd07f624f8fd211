// Package pwpushtest builds Password Pusher databases for tests: the tables
// of its db/schema.rb as Rails creates them on SQLite and PostgreSQL
// (internal/pwpush/testdata), rows written as Password Pusher writes them,
// and the ciphertexts the Lockbox gem made (testdata/lockbox_vectors.json).
// It is imported by tests only, and imports nothing of Hush but testdb.
package pwpushtest

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL deployments
	_ "modernc.org/sqlite"             // SQLite deployments

	"hush/internal/testdb"
)

// Engines of a Password Pusher database.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// testdata is internal/pwpush/testdata, found from this file.
func testdata(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", name)
}

// EmptyDB returns the DSN of a new, empty database of the engine (a SQLite
// file, or a PostgreSQL database, skipped without PostgreSQL unless
// HUSH_REQUIRE_ALL=1) and a read-write handle on it, closed at cleanup.
func EmptyDB(t testing.TB, engine string) (string, *sql.DB) {
	t.Helper()
	var dsn, driver string
	if engine == Postgres {
		dsn, driver = testdb.PostgresURL(t), "pgx"
	} else {
		dsn, driver = filepath.Join(t.TempDir(), "production.sqlite3"), "sqlite"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dsn, db
}

// SchemaDB returns a database with Password Pusher's tables and nothing in
// them but the schema migrations.
func SchemaDB(t testing.TB, engine string) (string, *sql.DB) {
	t.Helper()
	dsn, db := EmptyDB(t, engine)
	ddl, err := os.ReadFile(testdata("schema_" + engine + ".sql"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(ddl), "\n") {
		if !strings.HasPrefix(l, "--") {
			lines = append(lines, l)
		}
	}
	for _, stmt := range strings.Split(strings.Join(lines, "\n"), ";\n") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	return dsn, db
}

// Vectors are the Lockbox test vectors.
type Vectors struct {
	MasterKeys  map[string]string `json:"master_keys"` // "current", "previous", "default"
	DerivedKeys []struct {
		Key, Table, Column, Derived string
	} `json:"derived_keys"`
	Vectors []Vector `json:"vectors"`
}

// Vector is one value the Lockbox gem encrypted.
type Vector struct {
	Key, Table, Column, Name string
	Plaintext, Ciphertext    string
}

// LoadVectors reads the Lockbox test vectors.
func LoadVectors(t testing.TB) *Vectors {
	t.Helper()
	b, err := os.ReadFile(testdata("lockbox_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v Vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Vectors) == 0 || len(v.DerivedKeys) == 0 {
		t.Fatal("no vectors")
	}
	return &v
}

// Find returns the vector of a master key ("current", "previous",
// "default"), table, column and plaintext name ("ascii", "utf8", "empty",
// "long", "url").
func (v *Vectors) Find(t testing.TB, key, table, column, name string) Vector {
	t.Helper()
	for _, x := range v.Vectors {
		if x.Key == key && x.Table == table && x.Column == column && x.Name == name {
			return x
		}
	}
	t.Fatalf("no vector %s %s.%s %s", key, table, column, name)
	return Vector{}
}

// At is a time as the engine's column takes it from Rails: text on SQLite,
// a timestamp on PostgreSQL; the zero time is NULL.
func At(engine string, tm time.Time) any {
	if tm.IsZero() {
		return nil
	}
	if engine == SQLite {
		return tm.UTC().Format("2006-01-02 15:04:05.000000")
	}
	return tm.UTC()
}

// Null is nil (NULL) for "", else s.
func Null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Null0 is nil (NULL) for 0, else n.
func Null0(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// BcryptVector returns a password hash made by Ruby's bcrypt gem as Devise
// stores it (internal/secure/testdata/devise_bcrypt.rb), and its password:
// the vector of that name and cost.
func BcryptVector(t testing.TB, name string, cost int) (hash, password string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(testdata("")), "..", "secure", "testdata", "devise_bcrypt.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []struct {
			Name, Password, Hash string
			Cost                 int
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.Vectors {
		if v.Name == name && v.Cost == cost {
			return v.Hash, v.Password
		}
	}
	t.Fatalf("no bcrypt vector %s/%d", name, cost)
	return "", ""
}
