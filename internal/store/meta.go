package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Meta returns an instance-wide value, or nil when it is not set.
func (s *Store) Meta(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE name = $1`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read meta %s: %w", name, err)
	}
	return v, nil
}

// SetMeta stores an instance-wide value. With onlyIfAbsent an existing value
// is kept (several instances may start at once); it reports whether it wrote.
func (s *Store) SetMeta(ctx context.Context, name string, value []byte, onlyIfAbsent bool) (bool, error) {
	q := `INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value`
	if onlyIfAbsent {
		q = `INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`
	}
	n, err := maintain(ctx, s, func(tx *Tx) (int64, error) { return rowsAffected(tx.ExecContext(ctx, q, name, value)) })
	if err != nil {
		return false, fmt.Errorf("write meta %s: %w", name, err)
	}
	return n == 1, nil
}

// ProbeWrite commits a small write through the same door as the requests'
// writes, so that readiness sees what they would: a lock held elsewhere, a
// full disk, a database that cannot be reached.
func (s *Store) ProbeWrite(ctx context.Context, at int64) error {
	_, err := write(ctx, s, func(tx *Tx) (struct{}, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (name, value) VALUES ('ready_probe', $1)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, []byte(fmt.Sprint(at)))
		return struct{}{}, err
	})
	return err
}
