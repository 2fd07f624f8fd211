package app

import (
	"context"
	"log/slog"

	"hush/internal/config"
	"hush/internal/secure"
	"hush/internal/store"
)

// OpenKeyed loads the keyring and opens and migrates the database exactly as
// `hush serve` does with cfg (generating the master key into the data
// directory on first use, refusing a key that does not match the database).
// It is for the development tools that work on a data directory, such as
// cmd/hush-seed.
func OpenKeyed(ctx context.Context, cfg *config.Config, log *slog.Logger) (*secure.Keyring, *store.Store, error) {
	return openKeyed(ctx, cfg, log)
}
