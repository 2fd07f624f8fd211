package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"hush/internal/blob"
	"hush/internal/blob/s3"
	"hush/internal/config"
)

// s3PingTimeout bounds the start-up check of the S3 bucket.
const s3PingTimeout = 20 * time.Second

// openFileStore returns the store for file contents: the S3 bucket when
// HUSH_S3_ENDPOINT is set, checked to be reachable, else <data-dir>/files.
func openFileStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (blob.FileStore, error) {
	if cfg.S3 == nil {
		return blob.NewDisk(filepath.Join(cfg.DataDir, "files"))
	}
	s := cfg.S3
	store, err := s3.New(s3.Options{Endpoint: s.Endpoint, Bucket: s.Bucket, AccessKey: s.AccessKey,
		SecretKey: s.SecretKey, Region: s.Region, UseSSL: s.UseSSL, Prefix: s.Prefix})
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, s3PingTimeout)
	defer cancel()
	if err := store.Ping(pctx); err != nil {
		return nil, fmt.Errorf("S3 file store not usable (check HUSH_S3_ENDPOINT, HUSH_S3_BUCKET, HUSH_S3_USE_SSL and the keys): %w", err)
	}
	log.Info("file store", "kind", "s3", "endpoint", s.Endpoint, "bucket", s.Bucket, "prefix", s.Prefix, "tls", s.UseSSL)
	return store, nil
}
