package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
)

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// wipeFiles drops the file keys of an expired push and schedules its
// contents for deletion at purgeAt.
func wipeFiles(ctx context.Context, ex execer, pushID int64, purgeAt time.Time) error {
	_, err := ex.ExecContext(ctx, `UPDATE push_files SET file_key = NULL, purge_at = $2
		WHERE push_id = $1 AND purge_at IS NULL`, pushID, ms(purgeAt))
	if err != nil {
		return fmt.Errorf("wipe file keys: %w", err)
	}
	return nil
}

// insertFiles stores the files of push pushID in their order and returns
// their ids.
func insertFiles(ctx context.Context, tx *Tx, pushID int64, created time.Time, files []*push.File) ([]int64, error) {
	ids := make([]int64, len(files))
	for i, f := range files {
		var err error
		ids[i], err = tx.insertID(ctx, `INSERT INTO push_files (push_id, position, blob_id, meta, file_key, size, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			pushID, i, f.BlobID, f.MetaSealed, f.KeySealed, f.Size, ms(created))
		if err != nil {
			return nil, fmt.Errorf("insert file: %w", err)
		}
	}
	return ids, nil
}

const fileColumns = `id, push_id, position, blob_id, meta, file_key, size, purge_at, created_at`

func scanFile(row scanner) (*push.File, error) {
	var (
		f       push.File
		purgeAt sql.NullInt64
		created int64
	)
	if err := row.Scan(&f.ID, &f.PushID, &f.Position, &f.BlobID, &f.MetaSealed, &f.KeySealed, &f.Size, &purgeAt, &created); err != nil {
		return nil, err
	}
	if purgeAt.Valid {
		f.PurgeAt = fromMS(purgeAt.Int64)
	}
	f.CreatedAt = fromMS(created)
	return &f, nil
}

// FilesOf returns a push's files in upload order.
func (s *Store) FilesOf(ctx context.Context, pushID int64) ([]*push.File, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+fileColumns+` FROM push_files WHERE push_id = $1 ORDER BY position`, pushID)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	defer rows.Close()
	var files []*push.File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("list files: %w", err)
		}
		files = append(files, f)
	}
	return files, rows.Err()
}

// FileByID loads one file; push.ErrNotFound when it is gone.
func (s *Store) FileByID(ctx context.Context, id int64) (*push.File, error) {
	return loadOne(s.r.QueryRowContext(ctx, `SELECT `+fileColumns+` FROM push_files WHERE id = $1`, id), scanFile, "load file")
}

// DueFiles returns up to limit files whose contents are due for deletion.
func (s *Store) DueFiles(ctx context.Context, now time.Time, limit int) ([]*push.File, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+fileColumns+` FROM push_files
		WHERE purge_at IS NOT NULL AND purge_at <= $1 ORDER BY purge_at LIMIT $2`, ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("due files: %w", err)
	}
	defer rows.Close()
	var files []*push.File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("due files: %w", err)
		}
		files = append(files, f)
	}
	return files, rows.Err()
}

// DeleteFile removes a file's row (after its blob was deleted).
func (s *Store) DeleteFile(ctx context.Context, id int64) error {
	_, err := maintain(ctx, s, func(tx *Tx) (none, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM push_files WHERE id = $1`, id); err != nil {
			return none{}, fmt.Errorf("delete file: %w", err)
		}
		return none{}, nil
	})
	return err
}

// BlobReferenced reports whether a file row names the blob.
func (s *Store) BlobReferenced(ctx context.Context, blobID string) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM push_files WHERE blob_id = $1`, blobID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("blob reference: %w", err)
	}
	return true, nil
}
