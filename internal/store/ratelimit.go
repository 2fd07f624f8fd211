package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limit is one rate limit: at most Max events in any Window in Bucket.
type Limit struct {
	Bucket string
	Max    int
	Window time.Duration
}

// Reserve takes a slot at now in every limit's bucket, or none: when a
// bucket is full it takes nothing and returns how long until the fullest
// one frees a slot. The check and the taking are one transaction, and
// concurrent reservers of a bucket are serialized on its lock row (SQLite's
// single writer does the same), so N concurrent requests against a limit of
// M get at most M slots, on one instance or many. The ids name the slots
// taken, for Release.
func (s *Store) Reserve(ctx context.Context, now time.Time, limits ...Limit) (ids []int64, wait time.Duration, err error) {
	sorted := slices.Clone(limits)
	// One lock order for everyone, so two reservers never wait on each other.
	slices.SortFunc(sorted, func(a, b Limit) int { return strings.Compare(a.Bucket, b.Bucket) })
	r, err := write(ctx, s, func(tx *Tx) (reservation, error) { return reserve(ctx, tx, now, sorted) })
	return r.ids, r.wait, err
}

// reservation is what Reserve took, or how long to wait.
type reservation struct {
	ids  []int64
	wait time.Duration
}

// reserve is Reserve in tx, with the limits sorted by bucket.
func reserve(ctx context.Context, tx *Tx, now time.Time, sorted []Limit) (reservation, error) {
	var r reservation
	for i, l := range sorted {
		if i > 0 && l.Bucket == sorted[i-1].Bucket {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rate_buckets (bucket, touched_at) VALUES ($1, $2)
			ON CONFLICT (bucket) DO UPDATE SET touched_at = excluded.touched_at`, l.Bucket, ms(now)); err != nil {
			return r, fmt.Errorf("lock rate bucket: %w", err)
		}
	}
	for _, l := range sorted {
		d, err := fullFor(ctx, tx, l, now)
		if err != nil {
			return r, err
		}
		r.wait = max(r.wait, d)
	}
	if r.wait > 0 {
		return r, nil
	}
	for _, l := range sorted {
		id, err := tx.insertID(ctx, `INSERT INTO rate_events (bucket, at) VALUES ($1, $2)`, l.Bucket, ms(now))
		if err != nil {
			return r, fmt.Errorf("take rate slot: %w", err)
		}
		r.ids = append(r.ids, id)
	}
	return r, nil
}

// Wait returns how long until every limit has a free slot at now (0: now),
// as the last commit left them. It writes nothing; only Reserve takes slots.
func (s *Store) Wait(ctx context.Context, now time.Time, limits ...Limit) (time.Duration, error) {
	var wait time.Duration
	for _, l := range limits {
		d, err := fullFor(ctx, s.r, l, now)
		if err != nil {
			return 0, err
		}
		wait = max(wait, d)
	}
	return wait, nil
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// fullFor returns 0 when l's bucket has a free slot at now, else how long
// until its oldest counted event leaves the window.
func fullFor(ctx context.Context, tx rowQuerier, l Limit, now time.Time) (time.Duration, error) {
	if l.Max <= 0 {
		return l.Window, nil
	}
	// The Max-th newest event in the window decides: the bucket is full
	// while it is in the window.
	var at int64
	err := tx.QueryRowContext(ctx, `SELECT at FROM rate_events WHERE bucket = $1 AND at > $2
		ORDER BY at DESC LIMIT 1 OFFSET $3`, l.Bucket, ms(now.Add(-l.Window)), l.Max-1).Scan(&at)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return 0, fmt.Errorf("count rate events: %w", err)
	}
	return max(fromMS(at).Add(l.Window).Sub(now), time.Millisecond), nil
}

// Release gives back the slots a Reserve took (work that succeeded does not
// count against the limit).
func (s *Store) Release(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM rate_events WHERE id = $1`, id); err != nil {
				return none{}, fmt.Errorf("release rate slot: %w", err)
			}
		}
		return none{}, nil
	})
	return err
}

// CountEvents returns how many events of a bucket lie in the window ending at now.
func (s *Store) CountEvents(ctx context.Context, bucket string, now time.Time, window time.Duration) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM rate_events WHERE bucket = $1 AND at > $2`,
		bucket, ms(now.Add(-window))).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count rate events: %w", err)
	}
	return n, nil
}

// PruneEvents deletes events older than before, and the lock rows of
// buckets untouched since then.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	return maintain(ctx, s, func(tx *Tx) (int64, error) {
		n, err := rowsAffected(tx.ExecContext(ctx, `DELETE FROM rate_events WHERE at < $1`, ms(before)))
		if err != nil {
			return 0, fmt.Errorf("prune rate events: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM rate_buckets WHERE touched_at < $1`, ms(before)); err != nil {
			return 0, fmt.Errorf("prune rate buckets: %w", err)
		}
		return n, nil
	})
}
