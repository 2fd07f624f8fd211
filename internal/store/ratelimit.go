package store

import (
	"context"
	"fmt"
	"time"
)

// RecentEvents returns the times of up to n events of a bucket at or after
// since, newest first.
func (s *Store) RecentEvents(ctx context.Context, bucket string, since time.Time, n int) ([]time.Time, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT at FROM rate_events WHERE bucket = $1 AND at >= $2
		ORDER BY at DESC LIMIT $3`, bucket, ms(since), n)
	if err != nil {
		return nil, fmt.Errorf("rate events: %w", err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at); err != nil {
			return nil, fmt.Errorf("rate events: %w", err)
		}
		out = append(out, fromMS(at))
	}
	return out, rows.Err()
}

// AddEvents records one event at the given time in each bucket.
func (s *Store) AddEvents(ctx context.Context, at time.Time, buckets ...string) error {
	return s.inBatch(ctx, func(tx *Tx) error {
		for _, b := range buckets {
			if _, err := tx.ExecContext(ctx, `INSERT INTO rate_events (bucket, at) VALUES ($1, $2)`, b, ms(at)); err != nil {
				return fmt.Errorf("add rate event: %w", err)
			}
		}
		return nil
	})
}

// PruneEvents deletes events older than before.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM rate_events WHERE at < $1`, ms(before))
	if err != nil {
		return 0, fmt.Errorf("prune rate events: %w", err)
	}
	return res.RowsAffected()
}
