package pwpush

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL deployments
	_ "modernc.org/sqlite"             // SQLite deployments
)

// Engines a Source reads.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// requiredTables are the tables of the unified schema (Password Pusher
// 1.56 and later) that the readers use.
var requiredTables = [...]string{"users", "pushes", "audit_logs", "active_storage_attachments", "active_storage_blobs"}

// legacyTables held the pushes of Password Pusher before 1.56, one table per
// kind, with their views in the views table.
var legacyTables = [...]string{"passwords", "file_pushes", "urls"}

// Source is an open Password Pusher database, read-only. Its readers may be
// used concurrently, and one may be iterated inside another's loop.
type Source struct {
	db       *sql.DB
	engine   string
	userCols map[string]bool
	version  string
}

// Open opens the Password Pusher database dsn names, read-only:
// a postgres:// or postgresql:// URL, or a SQLite file given as a path or
// as Password Pusher's DATABASE_URL form sqlite3:PATH (a relative PATH is
// taken from the current directory, not Password Pusher's). It checks that the
// database has Password Pusher's unified schema and refuses anything else,
// including a deployment whose pushes are still in the legacy tables.
// Errors never show a password the URL holds.
func Open(ctx context.Context, dsn string) (*Source, error) {
	var s *Source
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		s, err = openPostgres(ctx, dsn)
	case strings.HasPrefix(dsn, "mysql://"), strings.HasPrefix(dsn, "mysql2://"), strings.HasPrefix(dsn, "trilogy://"):
		return nil, errors.New("open Password Pusher database: MySQL and MariaDB are not supported (PostgreSQL or SQLite only)")
	default:
		s, err = openSQLite(ctx, dsn)
	}
	if err != nil {
		return nil, err
	}
	if err := s.check(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*Source, error) {
	safe, secret := redacted(dsn)
	// Every pooled connection reads only, whatever the role may do.
	ro, err := withPostgresOption(dsn, "default_transaction_read_only", "on")
	if err != nil {
		return nil, fmt.Errorf("open Password Pusher database %s: %w", safe, err)
	}
	db, err := sql.Open("pgx", ro)
	if err != nil {
		return nil, fmt.Errorf("open Password Pusher database %s: %w", safe, scrub(err, secret))
	}
	db.SetMaxOpenConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to Password Pusher database %s: %w", safe, scrub(err, secret))
	}
	return &Source{db: db, engine: EnginePostgres}, nil
}

// withPostgresOption sets a run-time parameter in a PostgreSQL URL (the
// driver sends query parameters it does not know to the server).
func withPostgresOption(dsn, name, value string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", errors.New("malformed PostgreSQL URL")
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func openSQLite(ctx context.Context, dsn string) (*Source, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite3:"), "sqlite:")
	if strings.HasPrefix(path, "//") {
		path = strings.TrimPrefix(path, "//")
	}
	if path == "" {
		return nil, errors.New("open Password Pusher database: empty SQLite path")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open Password Pusher database: %w", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("open Password Pusher database: %s is a directory", path)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open Password Pusher database %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open Password Pusher database %s: %w", path, err)
	}
	return &Source{db: db, engine: EngineSQLite}, nil
}

// Close closes the database.
func (s *Source) Close() error { return s.db.Close() }

// Engine names the database engine: EngineSQLite or EnginePostgres.
func (s *Source) Engine() string { return s.engine }

// SchemaVersion is the newest migration applied to the database (Rails'
// schema_migrations), such as "20260509010000", or "" when it has none.
func (s *Source) SchemaVersion() string { return s.version }

// check refuses a database without Password Pusher's unified schema and
// reads what varies between its versions.
func (s *Source) check(ctx context.Context) error {
	if err := s.checkTables(ctx); err != nil {
		return err
	}
	var err error
	if s.userCols, err = s.columns(ctx, "users"); err != nil {
		return err
	}
	if err := hasColumns("users", s.userCols, []string{"id", "email", "encrypted_password", "authentication_token"}); err != nil {
		return err
	}
	pushCols, err := s.columns(ctx, "pushes")
	if err != nil {
		return err
	}
	if err := hasColumns("pushes", pushCols, pushColumns); err != nil {
		return err
	}
	return s.readVersion(ctx)
}

// checkTables refuses a database without the tables of the unified schema,
// telling apart one from before it (or still moving its data into it).
func (s *Source) checkTables(ctx context.Context) error {
	var missing []string
	for _, t := range requiredTables {
		ok, err := s.tableExists(ctx, t)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, t)
		}
	}
	legacy, err := s.legacyRows(ctx)
	if err != nil {
		return err
	}
	switch {
	case len(missing) > 0 && legacy >= 0:
		return errors.New("not supported: this Password Pusher database has the schema of a version before 1.56 " +
			"(passwords, file_pushes and urls tables); upgrade Password Pusher to 1.56 or later and let it migrate its data first")
	case len(missing) > 0:
		return fmt.Errorf("not a Password Pusher database: missing tables %s", strings.Join(missing, ", "))
	case legacy <= 0:
		return nil
	}
	done, err := s.legacyMigrated(ctx)
	if err != nil || done {
		return err
	}
	return fmt.Errorf("not supported: %d pushes are still in Password Pusher's legacy tables "+
		"(its data migration to the pushes table has not completed); start Password Pusher and let it finish first", legacy)
}

// hasColumns refuses a table without one of the columns Hush reads.
func hasColumns(table string, have map[string]bool, want []string) error {
	for _, c := range want {
		if !have[c] {
			return fmt.Errorf("not a Password Pusher database: %s has no column %s", table, c)
		}
	}
	return nil
}

// readVersion reads the newest migration applied, if the table is there.
func (s *Source) readVersion(ctx context.Context) error {
	ok, err := s.tableExists(ctx, "schema_migrations")
	if err != nil || !ok {
		return err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), '') FROM schema_migrations`).Scan(&s.version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	return nil
}

// tableExists reports whether the database has table t (in the current
// schema on PostgreSQL).
func (s *Source) tableExists(ctx context.Context, t string) (bool, error) {
	var q string
	if s.engine == EnginePostgres {
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`
	} else {
		q = `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1`
	}
	var n int
	if err := s.db.QueryRowContext(ctx, q, t).Scan(&n); err != nil {
		return false, fmt.Errorf("read the database's tables: %w", err)
	}
	return n > 0, nil
}

// columns returns the names of table t's columns.
func (s *Source) columns(ctx context.Context, t string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT * FROM `+t+` WHERE 1 = 0`)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", t, err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s: %w", t, err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[strings.ToLower(n)] = true
	}
	return out, rows.Err()
}

// legacyRows counts the rows of the legacy push tables: -1 when none of
// them exists.
func (s *Source) legacyRows(ctx context.Context) (int64, error) {
	total := int64(-1)
	for _, t := range legacyTables {
		ok, err := s.tableExists(ctx, t)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		var n int64
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
			return 0, fmt.Errorf("count %s: %w", t, err)
		}
		total = max(total, 0) + n
	}
	return total, nil
}

// legacyMigrated reports whether Password Pusher recorded its data
// migration from the legacy tables to pushes as completed.
func (s *Source) legacyMigrated(ctx context.Context) (bool, error) {
	ok, err := s.tableExists(ctx, "data_migration_statuses")
	if err != nil || !ok {
		return false, err
	}
	var v any
	err = s.db.QueryRowContext(ctx, `SELECT completed FROM data_migration_statuses WHERE name = 'push_model_migration'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read data migration status: %w", err)
	}
	return asBool(v), nil
}

// redacted returns a PostgreSQL URL fit for messages (password replaced)
// and the password itself, to scrub it from driver errors.
func redacted(dsn string) (safe, secret string) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(malformed PostgreSQL URL)", ""
	}
	if u.User != nil {
		secret, _ = u.User.Password()
	}
	if p := u.Query().Get("password"); p != "" {
		secret = p
		q := u.Query()
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted(), secret
}

// scrub removes a password, raw and URL-escaped, from an error's text.
func scrub(err error, secret string) error {
	if secret == "" {
		return err
	}
	msg := err.Error()
	for _, s := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
