package store

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/pressly/goose/v3"
)

// SQLite's migrations that must rebuild tables run as Go: a rebuild needs
// foreign keys off (else renaming a parent table rewrites its children's
// references, and dropping it cascades), which SQLite allows only outside a
// transaction, so goose cannot run it as a plain SQL migration.

//go:embed rebuild/sqlite_00009.sql
var sqlite00009 string

// sqliteGoMigrations are the Go migrations of the SQLite dialect.
func sqliteGoMigrations() []*goose.Migration {
	return []*goose.Migration{
		goose.NewGoMigration(9, &goose.GoFunc{RunDB: func(ctx context.Context, db *sql.DB) error {
			return rebuildSQLite(ctx, db, sqlite00009, "token_key")
		}}, nil),
	}
}

// rebuildSQLite runs script in one transaction on one connection, with
// foreign keys off and legacy_alter_table on, and checks every foreign key
// before committing. done names a column of pushes that the script adds: if
// it is there already, the script ran (and committed) before, and is not
// run again.
func rebuildSQLite(ctx context.Context, db *sql.DB, script, done string) (err error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var n int
	if err := c.QueryRowContext(ctx, `SELECT COUNT(*) FROM pragma_table_info('pushes') WHERE name = $1`, done).Scan(&n); err != nil {
		return fmt.Errorf("inspect schema: %w", err)
	}
	if n > 0 {
		return nil
	}
	if _, err := c.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer func() {
		_, ferr := c.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`)
		err = errors.Join(err, ferr)
	}()
	if _, err := c.ExecContext(ctx, `PRAGMA legacy_alter_table = ON`); err != nil {
		return err
	}
	defer c.ExecContext(context.WithoutCancel(ctx), `PRAGMA legacy_alter_table = OFF`)
	if _, err := c.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	if err := runScript(ctx, c, script); err != nil {
		c.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		return err
	}
	if _, err := c.ExecContext(ctx, `COMMIT`); err != nil {
		c.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		return fmt.Errorf("commit rebuild: %w", err)
	}
	return nil
}

// runScript executes each statement of script, then makes sure no row
// refers to a missing parent.
func runScript(ctx context.Context, c *sql.Conn, script string) error {
	for _, stmt := range statements(script) {
		if _, err := c.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("rebuild: %w\n%s", err, stmt)
		}
	}
	rows, err := c.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table string
		var rowid sql.NullInt64
		var parent string
		var fkid int
		rows.Scan(&table, &rowid, &parent, &fkid)
		return fmt.Errorf("rebuild left %s row %d without its %s", table, rowid.Int64, parent)
	}
	return rows.Err()
}

// statements splits a script at the semicolons that end a line, dropping
// comment lines.
func statements(script string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(script, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(t, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
