// Package store keeps pushes, audit logs, users and tokens in SQL.
//
// One SQL text serves every engine: $n placeholders, RETURNING, integer
// millisecond timestamps and 0/1 flags. Only the DDL differs per dialect.
//
// Every write goes through one of two doors:
//
//   - write, for the writes of requests (creates, view claims, audit
//     entries, expiries, rate slots, accounts, sessions). On SQLite the
//     bodies of concurrent calls share one transaction and one commit
//     (batch.go), and a body may run more than once: it returns its
//     result, which write hands back from the run that committed.
//   - maintain, for maintenance (the sweeper, key rotation, migrations,
//     copies, bulk seeding, instance metadata): a transaction of its own,
//     never shared with requests' writes.
//
// Nothing writes through the connections directly.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"hush/internal/push"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // the embedded default engine
)

//go:embed migrations
var migrations embed.FS

// Store is the persistence layer. Writes go through w (for SQLite a single
// connection, since SQLite serializes writers anyway); reads use r.
type Store struct {
	w, r    *conn
	dialect goose.Dialect
	batch   *batcher          // SQLite: group commit of concurrent writes; nil for PostgreSQL
	ckpt    *checkpointer     // SQLite: WAL checkpoints off the write path; nil for PostgreSQL
	dsn     string            // SQLite: the database's DSN, for the migrations' own handle
	guard   *guardedConnector // PostgreSQL: connection attempts with back-off; nil for SQLite
}

// OpenSQLite opens (creating if needed) the SQLite database at path in WAL
// mode with the default options.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	return OpenSQLiteWith(ctx, path, Options{})
}

// OpenSQLiteWith opens (creating if needed) the SQLite database at path in
// WAL mode: one writer connection fed by the group-commit batcher, a
// read-only pool of 8, and a connection for the background checkpointer.
func OpenSQLiteWith(ctx context.Context, path string, o Options) (*Store, error) {
	sync, err := o.syncPragma()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create database directory: %w", err)
	}
	// Create the file with owner-only permissions before SQLite opens it.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	q := url.Values{}
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", o.busyMillis()), "journal_mode(WAL)", "synchronous(" + sync + ")", "foreign_keys(1)",
		// The checkpointer does it in the background; a WAL file grown by a
		// burst is cut back to 64 MiB once its pages are in the database.
		"wal_autocheckpoint(0)", "journal_size_limit(67108864)"} {
		q.Add("_pragma", p)
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", dsn+"&mode=ro")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	c, err := sql.Open("sqlite", dsn)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	s := &Store{w: &conn{DB: w, prepare: true, lite: true}, r: &conn{DB: r, prepare: true, lite: true}, dialect: goose.DialectSQLite3,
		ckpt: newCheckpointer(c, path+"-wal"), dsn: dsn}
	if err := w.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Close()
		return nil, fmt.Errorf("restrict database file mode: %w", err)
	}
	s.batch = newBatcher(s)
	return s, nil
}

// Close closes the database handles.
func (s *Store) Close() error {
	if s.batch != nil {
		s.batch.close()
	}
	var ckptErr error
	if s.ckpt != nil {
		ckptErr = s.ckpt.close()
	}
	if s.r == s.w {
		return errors.Join(ckptErr, s.w.Close())
	}
	return errors.Join(ckptErr, s.r.Close(), s.w.Close())
}

// Migrate brings the schema up to date. It returns the versions applied.
func (s *Store) Migrate(ctx context.Context) ([]int64, error) {
	return s.migrateTo(ctx, 0)
}

// migrateTo applies the migrations up to version (0: all of them).
func (s *Store) migrateTo(ctx context.Context, version int64) ([]int64, error) {
	sub, err := fs.Sub(migrations, "migrations/"+dialectDir(s.dialect))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if s.dialect == goose.DialectSQLite3 {
		opts = append(opts, goose.WithGoMigrations(sqliteGoMigrations()...))
	}
	if s.dialect == goose.DialectPostgres {
		// Several instances starting together migrate once: the others wait.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	db := s.w.DB
	if s.dialect == goose.DialectSQLite3 {
		// A handle of its own: goose holds a connection for the whole run,
		// and a migration that rebuilds tables needs a second one (the
		// writer has exactly one).
		if db, err = sql.Open("sqlite", s.dsn+"&_txlock=immediate"); err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		db.SetMaxOpenConns(2)
		defer db.Close()
	}
	p, err := goose.NewProvider(s.dialect, db, sub, opts...)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var res []*goose.MigrationResult
	if version > 0 {
		res, err = p.UpTo(ctx, version)
	} else {
		res, err = p.Up(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var applied []int64
	for _, r := range res {
		applied = append(applied, r.Source.Version)
	}
	return applied, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.r.PingContext(ctx) }

func dialectDir(d goose.Dialect) string {
	if d == goose.DialectPostgres {
		return "postgres"
	}
	return "sqlite"
}

// write runs fn in a write transaction, possibly shared with the bodies of
// other concurrent writes, and returns fn's result once that transaction
// has committed, or fn's own error. fn may run more than once; only the
// result of the run that committed is returned.
func write[T any](ctx context.Context, s *Store, fn func(*Tx) (T, error)) (T, error) {
	var out T
	err := s.inBatch(ctx, func(tx *Tx) error {
		v, err := fn(tx)
		out = v
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	s.hooksCommitted()
	return out, nil
}

// maintain runs fn in a write transaction of its own and returns its
// result once committed, or fn's error.
func maintain[T any](ctx context.Context, s *Store, fn func(*Tx) (T, error)) (T, error) {
	var out T
	err := s.inTx(ctx, func(tx *Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	s.hooksCommitted()
	return out, nil
}

// inTx runs fn in a write transaction, committing when fn returns nil: the
// primitive under write and maintain.
func (s *Store) inTx(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := s.w.BeginTx(s.w.detach(ctx), nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{Tx: sqlTx, c: s.w}
	defer tx.warm(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// loadOne scans the one row a query returns: push.ErrNotFound when there is
// none, what failed ("load push", …) otherwise.
func loadOne[T any](row *sql.Row, scan func(scanner) (T, error), what string) (T, error) {
	v, err := scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return v, push.ErrNotFound
	}
	if err != nil {
		return v, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DB exposes the read handle for diagnostics and tests.
func (s *Store) DB() *sql.DB { return s.r.DB }
