// Package testdb gives tests a fresh database on the engine under test:
// SQLite by default, PostgreSQL when HUSH_TEST_ENGINE=postgres. PostgreSQL
// comes from HUSH_TEST_POSTGRES_URL or from a throwaway server started from
// the Debian binaries (initdb, pg_ctl) on a free loopback port.
//
// It imports nothing of ours, so any package's tests may use it.
package testdb

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // LockWrites on a SQLite file
)

// Engine is the engine the tests run on: "sqlite" or "postgres".
func Engine() string {
	if os.Getenv("HUSH_TEST_ENGINE") == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// Require skips the test for a missing component, or fails it when
// HUSH_REQUIRE_ALL=1 (as in CI), so that nothing is skipped silently there.
func Require(t testing.TB, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("HUSH_REQUIRE_ALL") == "1" {
		t.Fatalf("required component missing (HUSH_REQUIRE_ALL=1): %s", why)
	}
	t.Skipf("skipped: %s", why)
}

// Tool returns the path of a test server's binary: the file $env names,
// else name on PATH, else $HOME/.cache/hush-tools/name (where .ci/run
// caches the builds); "" if none exists.
func Tool(env, name string) string {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return ""
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "hush-tools", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

var (
	mu      sync.Mutex
	server  *pgServer
	srvErr  error
	started bool
	dbSeq   atomic.Int64
)

// URL returns a fresh, empty database for one test: a SQLite file path, or
// the URL of a new PostgreSQL database dropped at cleanup.
func URL(t testing.TB) string {
	t.Helper()
	if Engine() == "sqlite" {
		return filepath.Join(t.TempDir(), "hush.db")
	}
	return PostgresURL(t)
}

// PostgresURL returns the URL of a new PostgreSQL database whatever the
// engine under test (for tests that always need PostgreSQL).
func PostgresURL(t testing.TB) string {
	t.Helper()
	base, err := baseURL()
	Require(t, err == nil, fmt.Sprint("PostgreSQL: ", err))
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("hush_test_%d_%d", os.Getpid(), dbSeq.Add(1))
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

// baseURL is an administrative connection URL: HUSH_TEST_POSTGRES_URL, or
// the throwaway server, started on first use.
func baseURL() (string, error) {
	if u := os.Getenv("HUSH_TEST_POSTGRES_URL"); u != "" {
		return u, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if !started {
		started = true
		server, srvErr = startServer(context.Background())
	}
	if srvErr != nil {
		return "", srvErr
	}
	return server.url, nil
}

// Main runs a package's tests and then stops the throwaway server, if any.
// Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	if server != nil {
		server.stop()
	}
	mu.Unlock()
	os.Exit(code)
}

// Dump returns every value of every row of the named tables, as someone
// holding a copy of the database would read them: text and bytes as they
// are stored, other values printed, each followed by a NUL.
func Dump(tb testing.TB, db *sql.DB, tables ...string) []byte {
	tb.Helper()
	var out bytes.Buffer
	for _, table := range tables {
		rows, err := db.Query(`SELECT * FROM ` + table)
		if err != nil {
			tb.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				tb.Fatal(err)
			}
			for _, v := range vals {
				switch x := v.(type) {
				case []byte:
					out.Write(x)
				case string:
					out.WriteString(x)
				default:
					fmt.Fprint(&out, x)
				}
				out.WriteByte(0)
			}
		}
		if err := rows.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return out.Bytes()
}

// LockWrites takes the write lock of the database at url (a SQLite path or
// a PostgreSQL URL) from a connection of its own, as another process — a
// backup, a sqlite3 shell, a stuck migration — would, and returns the
// function that releases it (safe to call more than once). On PostgreSQL
// it locks the tables pushes and audit_logs against writes.
func LockWrites(ctx context.Context, url string) (release func(), err error) {
	driver, lock := "sqlite", `BEGIN IMMEDIATE`
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		driver, lock = "pgx", `BEGIN; LOCK TABLE pushes, audit_logs IN EXCLUSIVE MODE`
	}
	db, err := sql.Open(driver, url)
	if err != nil {
		return nil, err
	}
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if driver == "sqlite" {
		// The server under test may be mid-write (an audit row, a sweep):
		// wait for it rather than fail to take the lock.
		if _, err := c.ExecContext(ctx, `PRAGMA busy_timeout = 10000`); err != nil {
			c.Close()
			db.Close()
			return nil, err
		}
	}
	if _, err := c.ExecContext(ctx, lock); err != nil {
		c.Close()
		db.Close()
		return nil, fmt.Errorf("take the write lock: %w", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.ExecContext(context.Background(), `ROLLBACK`)
			c.Close()
			db.Close()
		})
	}, nil
}

// Output collects the output of a test server's process, written by the
// process's copier while the test reads it.
type Output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
