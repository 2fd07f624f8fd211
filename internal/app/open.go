package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"hush/internal/config"
	"hush/internal/secure"
	"hush/internal/store"
)

// openStore opens the configured database and migrates it. A database
// that had no schema yet (a new SQLite file, an empty PostgreSQL database)
// is reported to created with where it is, so that a mistyped data
// directory or URL does not go unnoticed.
func openStore(ctx context.Context, cfg *config.Config, created func(where string)) (*store.Store, error) {
	st, err := openDatabase(ctx, cfg)
	return migrateOpened(ctx, st, err, func() {
		if created == nil {
			return
		}
		if path, ok := cfg.SQLitePath(); ok {
			created(path)
		} else {
			created("the PostgreSQL database of HUSH_DATABASE_URL")
		}
	})
}

// openStore, for a command-line verb, is openStore with a new database
// said on stderr.
func (e *env) openStore(ctx context.Context, cfg *config.Config) (*store.Store, error) {
	return openStore(ctx, cfg, func(where string) {
		fmt.Fprintf(e.stderr, "hush: created a new, empty database (%s); if you meant an existing one, check --data-dir or HUSH_DATABASE_URL\n", where)
	})
}

// migrateOpened migrates a store just opened (or passes on the error of
// opening it), closing it when the migration fails. fresh, when set, is
// called when the migration started from an empty schema.
func migrateOpened(ctx context.Context, st *store.Store, err error, fresh func()) (*store.Store, error) {
	if err != nil {
		return nil, err
	}
	applied, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	if fresh != nil && slices.Contains(applied, 1) {
		fresh()
	}
	return st, nil
}

// openDatabase opens the configured engine without migrating.
func openDatabase(ctx context.Context, cfg *config.Config) (*store.Store, error) {
	if path, ok := cfg.SQLitePath(); ok {
		return store.OpenSQLiteWith(ctx, path, store.Options{Sync: cfg.SQLiteSync, BusyTimeout: cfg.SQLiteBusyTimeout})
	}
	return store.OpenPostgres(ctx, cfg.DatabaseURL)
}

// masterKeyFile is where a generated master key is kept.
const masterKeyFile = "master.key"

// errNoKey reports that no master key is configured or kept in the data
// directory, where one is needed and must not be generated.
var errNoKey = errors.New("no master key: set HUSH_MASTER_KEY or HUSH_MASTER_KEY_FILE (or keep master.key in the data directory)")

// loadKeys builds the keyring from HUSH_MASTER_KEY(_FILE) and
// HUSH_MASTER_KEY_PREVIOUS. Without a configured key, the key in the data
// directory is used; when there is none, generate says whether to create
// it (serve's first start) or fail with errNoKey. A key file that others may
// read is used, with a warning.
func loadKeys(cfg *config.Config, log *slog.Logger, generate bool) (*secure.Keyring, error) {
	hexKey := cfg.MasterKey
	if cfg.MasterKeyFile != "" {
		warnKeyMode(log, cfg.MasterKeyFile)
	}
	if hexKey == "" {
		path := filepath.Join(cfg.DataDir, masterKeyFile)
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			hexKey = string(b)
			warnKeyMode(log, path)
		case errors.Is(err, fs.ErrNotExist) && !generate:
			return nil, errNoKey
		case errors.Is(err, fs.ErrNotExist):
			if hexKey, err = generateKeyFile(path); err != nil {
				return nil, err
			}
			log.Warn("no HUSH_MASTER_KEY set: generated a master key in the data directory; "+
				"the key now sits beside the data it protects — keep a copy elsewhere and set HUSH_MASTER_KEY_FILE",
				"path", path)
		default:
			return nil, fmt.Errorf("read master key: %w", err)
		}
	}
	current, err := secure.ParseHexKey(hexKey)
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	var previous [][]byte
	for i, h := range cfg.MasterKeyPrevious {
		k, err := secure.ParseHexKey(h)
		if err != nil {
			return nil, fmt.Errorf("HUSH_MASTER_KEY_PREVIOUS entry %d: %w", i+1, err)
		}
		previous = append(previous, k)
	}
	return secure.NewKeyring(current, previous...)
}

// warnKeyMode warns when a master key file may be read by users other than
// its owner, as ssh does for private keys. It only warns: key files mounted
// from a secret store are often readable by a group on purpose.
func warnKeyMode(log *slog.Logger, path string) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	log.Warn("the master key file can be read by other users than its owner: restrict it with chmod 600",
		"file", path, "mode", fmt.Sprintf("%#o", fi.Mode().Perm()))
}

func generateKeyFile(path string) (string, error) {
	key, err := secure.GenerateKey()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	hexKey := fmt.Sprintf("%x", key)
	// Written whole under another name, then linked into place: a process
	// that loses the race reads a complete key, never a partly written one.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".master.key-*")
	if err != nil {
		return "", fmt.Errorf("write master key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(hexKey + "\n"); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write master key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write master key: %w", err)
	}
	err = os.Link(tmp.Name(), path)
	if errors.Is(err, fs.ErrExist) {
		b, rerr := os.ReadFile(path) // another process won the race
		return string(b), rerr
	}
	if err != nil { // a file system without hard links: create it in place
		return writeKeyFile(path, hexKey)
	}
	return hexKey, nil
}

// writeKeyFile creates the key file with hexKey, or reads the key another
// process put there first.
func writeKeyFile(path, hexKey string) (string, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		b, rerr := os.ReadFile(path)
		return string(b), rerr
	}
	if err != nil {
		return "", fmt.Errorf("write master key: %w", err)
	}
	if _, err := f.WriteString(hexKey + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("write master key: %w", err)
	}
	return hexKey, f.Close()
}
