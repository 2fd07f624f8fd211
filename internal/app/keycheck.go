package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"hush/internal/config"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
)

const (
	keyCheckName    = "master_key_check"
	keyCheckPurpose = "key-check"
	keyCheckText    = "hush master key check"
)

// checkKey makes sure the master key opens this database's data: the first
// start seals a known value; later starts must open it. Starting with the
// wrong key would otherwise answer every retrieval with an error.
func checkKey(ctx context.Context, st *store.Store, keys *secure.Keyring) error {
	sealed, err := st.Meta(ctx, keyCheckName)
	if err != nil {
		return err
	}
	if sealed == nil {
		v, err := keys.Seal(keyCheckPurpose, []byte(keyCheckText), []byte(keyCheckName))
		if err != nil {
			return err
		}
		if _, err := st.SetMeta(ctx, keyCheckName, v, true); err != nil {
			return err
		}
		if sealed, err = st.Meta(ctx, keyCheckName); err != nil {
			return err
		}
	}
	plain, err := keys.Open(keyCheckPurpose, sealed, []byte(keyCheckName))
	if err != nil || string(plain) != keyCheckText {
		return errors.New("the master key does not match this database: start with the key it was created " +
			"with (HUSH_MASTER_KEY or HUSH_MASTER_KEY_FILE), adding the old one to HUSH_MASTER_KEY_PREVIOUS " +
			"while rotating; a lost key means the stored secrets cannot be read")
	}
	return nil
}

// OpenKeyed loads the keyring and opens the migrated database as `hush
// serve` does (generating the master key into the data directory on first
// use), refusing a master key that does not match the database. Development
// tools that work on a data directory, such as cmd/hush-seed, use it too.
func OpenKeyed(ctx context.Context, cfg *config.Config, log *slog.Logger) (*secure.Keyring, *store.Store, error) {
	return openKeyed(ctx, cfg, log, true)
}

func openKeyed(ctx context.Context, cfg *config.Config, log *slog.Logger, generate bool) (*secure.Keyring, *store.Store, error) {
	keys, err := loadKeys(cfg, log, generate)
	if err != nil {
		return nil, nil, err
	}
	st, err := openStore(ctx, cfg, func(where string) {
		log.Info("created a new, empty database", "where", where)
	})
	if err != nil {
		return nil, nil, err
	}
	if err := checkKey(ctx, st, keys); err != nil {
		st.Close()
		return nil, nil, err
	}
	if err := migrateTokens(ctx, st, keys, log); err != nil {
		st.Close()
		return nil, nil, err
	}
	return keys, st, nil
}

// migrateTokens converts the pushes that still hold a clear url_token
// (service.MigrateTokens), logging its progress.
func migrateTokens(ctx context.Context, st *store.Store, keys *secure.Keyring, log *slog.Logger) error {
	last := 0
	n, err := service.MigrateTokens(ctx, st, keys, func(done, total int) {
		if done == total || done-last >= 10000 {
			log.Info("removing secret links from the database", "converted", done, "of", total)
			last = done
		}
	})
	if err != nil {
		return fmt.Errorf("convert stored secret links (%d done): %w", n, err)
	}
	return nil
}

// keyWatchEvery is how often serve looks whether `hush key rotate` moved
// the deployment's data to a master key it does not hold.
const keyWatchEvery = 2 * time.Second

// watchKey retires keys (secure.Keyring.Retire) while the key check value
// is sealed under a master key they do not hold: `hush key rotate` ran with
// a key this instance was not started with, so whatever it sealed now
// would be lost once the old key is dropped, and what the rotation
// re-sealed it cannot open. The instance then answers 503 and is not
// ready until it is restarted with both keys (docs/decisions.md, D58).
func watchKey(ctx context.Context, st *store.Store, keys *secure.Keyring, log *slog.Logger, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sealed, err := st.Meta(ctx, keyCheckName)
		if err != nil || sealed == nil {
			continue // a storage fault is the fault log's to report
		}
		retired := !keys.Holds(sealed)
		if retired == keys.Retired() {
			continue
		}
		keys.Retire(retired)
		if retired {
			log.Error(service.MsgKeyRetired)
		} else {
			log.Info("the deployment's master key is one this instance holds again; sealing resumes")
		}
	}
}

// resealKeyCheck re-seals the check value under the current key, once every
// stored value has been re-sealed (rotation): until then the check still
// opens only with the old key in the keyring, so a rotation cut short cannot
// let serve start without the key the rest of the data needs.
func resealKeyCheck(ctx context.Context, st *store.Store, keys *secure.Keyring) error {
	v, err := keys.Seal(keyCheckPurpose, []byte(keyCheckText), []byte(keyCheckName))
	if err != nil {
		return err
	}
	if _, err := st.SetMeta(ctx, keyCheckName, v, false); err != nil {
		return fmt.Errorf("re-seal key check: %w", err)
	}
	return nil
}
