package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"hush/internal/config"
	"hush/internal/store"
)

// migrateData copies a whole deployment from one database to another:
// hush migrate-data --from sqlite:./data/hush.db --to postgres://…
func (e *env) migrateData(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate-data", flag.ContinueOnError)
	from := fs.String("from", "", "source database: a SQLite path (sqlite:PATH) or a postgres:// URL; it must exist and be up to date (hush migrate)")
	to := fs.String("to", "", "target database, empty: a SQLite path or a postgres:// URL")
	if err := e.parseFlags(fs, args); err != nil {
		return err
	}
	if *from == "" || *to == "" || fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "usage: hush migrate-data --from DATABASE --to DATABASE")
		return errUsage
	}
	src, err := openSource(ctx, *from)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer src.Close()
	dst, err := openURL(ctx, *to)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer dst.Close()
	counts, err := src.CopyAll(ctx, dst)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, counts[n]))
	}
	fmt.Fprintf(e.stdout, "copied from %s to %s: %s\n", src.Engine(), dst.Engine(), strings.Join(parts, ", "))
	fmt.Fprintln(e.stdout, "file contents stay in the file store: point the new deployment at the same data directory or bucket, with the same master key")
	return nil
}

// openSource opens the database to copy from, named as openURL's are, as
// it is: it must exist and hold an up-to-date schema, and is never created
// or migrated, so that a mistyped name is an error and not an empty copy.
func openSource(ctx context.Context, s string) (*store.Store, error) {
	if path, ok := config.SQLitePathOf(s); ok {
		s = path
	}
	if s == "" {
		return nil, errors.New("no database given")
	}
	return store.OpenExisting(ctx, s)
}

// openURL opens and migrates a database named by a postgres:// URL or a
// SQLite path (optionally sqlite://, sqlite: or file:, as HUSH_DATABASE_URL).
func openURL(ctx context.Context, s string) (*store.Store, error) {
	if path, ok := config.SQLitePathOf(s); ok {
		s = path
	}
	if s == "" {
		return nil, errors.New("no database given")
	}
	st, err := store.Open(ctx, s)
	return migrateOpened(ctx, st, err, nil)
}
