package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"
)

// OpenExisting opens the database a URL names (as Open does) as it is, to
// read what it holds: a SQLite file must exist and is never created, and
// neither engine is migrated. It fails unless the database holds Hush's
// schema at the version this build migrates to.
func OpenExisting(ctx context.Context, urlOrPath string) (*Store, error) {
	if IsPostgresURL(urlOrPath) {
		s, err := OpenPostgres(ctx, urlOrPath)
		if err != nil {
			return nil, err
		}
		if err := checkSchema(ctx, s.r.DB, goose.DialectPostgres, "the PostgreSQL database"); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
	path := urlOrPath
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no database at %s", path)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a database file", path)
	}
	// Looked at read-only first: opening it for writing would turn any
	// file SQLite can read into a database in WAL mode.
	ro, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	err = checkSchema(ctx, ro, goose.DialectSQLite3, path)
	ro.Close()
	if err != nil {
		return nil, err
	}
	return OpenSQLite(ctx, path)
}

// checkSchema fails unless db holds Hush's schema, at the newest migration
// of this build; what names the database in its messages.
func checkSchema(ctx context.Context, db *sql.DB, dialect goose.Dialect, what string) error {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`
	if dialect == goose.DialectPostgres {
		q = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'goose_db_version'`
	}
	var n int
	if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	var version int64
	if n > 0 {
		if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&version); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
	}
	latest, err := latestMigration(dialect)
	if err != nil {
		return err
	}
	switch {
	case version == 0:
		return fmt.Errorf("%s holds no Hush database", what)
	case version < latest:
		return fmt.Errorf("the schema of %s is older than this hush's (version %d of %d): run hush migrate on it first", what, version, latest)
	case version > latest:
		return fmt.Errorf("the schema of %s is newer than this hush's (version %d, this one knows %d): use the hush that made it", what, version, latest)
	}
	return nil
}

// latestMigration is the version of the newest migration of dialect.
func latestMigration(dialect goose.Dialect) (int64, error) {
	files, err := migrations.ReadDir("migrations/" + dialectDir(dialect))
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	var latest int64
	for _, f := range files {
		v, err := strconv.ParseInt(strings.SplitN(f.Name(), "_", 2)[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("migration %s: %w", f.Name(), err)
		}
		latest = max(latest, v)
	}
	if dialect == goose.DialectSQLite3 {
		for _, m := range sqliteGoMigrations() {
			latest = max(latest, m.Version)
		}
	}
	return latest, nil
}
