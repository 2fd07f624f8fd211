package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // the scale-out engine
	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// OpenPostgres connects to PostgreSQL. Reads and writes share one pool:
// PostgreSQL's row locks make the conditional UPDATEs safe under concurrency.
// The writes of concurrent requests are committed together, as on SQLite
// (batch.go): a transaction and a commit shared by many writes cost
// PostgreSQL far less than one each.
//
// A connection attempt gives up after 5 s unless the URL sets
// connect_timeout, and attempts back off while the server is unreachable
// (guardedConnector).
func OpenPostgres(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", redactURL(err, url))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	guard := newGuardedConnector(stdlib.GetConnector(*cfg))
	db := sql.OpenDB(guard)
	// As many idle connections as open ones: with fewer, a burst of
	// requests closes and reopens connections all the time, and each new
	// one costs PostgreSQL a backend and Hush its prepared statements.
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", redactURL(err, url))
	}
	c := &conn{DB: db}
	st := &Store{w: c, r: c, dialect: goose.DialectPostgres, guard: guard}
	st.batch = newBatcher(st)
	return st, nil
}

// Open opens the database a URL names: postgres:// or postgresql:// for
// PostgreSQL, anything else is a SQLite file path.
func Open(ctx context.Context, urlOrPath string) (*Store, error) {
	if IsPostgresURL(urlOrPath) {
		return OpenPostgres(ctx, urlOrPath)
	}
	return OpenSQLite(ctx, urlOrPath)
}

// IsPostgresURL reports whether s names a PostgreSQL database.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Engine names the database engine: "sqlite" or "postgres".
func (s *Store) Engine() string { return dialectDir(s.dialect) }

// redactURL keeps a password in the URL out of an error message.
func redactURL(err error, url string) error {
	msg := err.Error()
	if i := strings.Index(url, "@"); i > 0 {
		msg = strings.ReplaceAll(msg, url[:i], "postgres://…")
	}
	return errors.New(msg)
}

// isUniqueViolation reports whether err is a unique-constraint violation on
// either engine (a concurrent insert of the same key).
func isUniqueViolation(err error) bool {
	if err == nil {
		// errors.As would still allocate its two targets.
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return liteErr.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || liteErr.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}
