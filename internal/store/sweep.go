package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
)

// SweepResult counts what one sweep did.
type SweepResult struct {
	Expired int64 // pushes expired for reaching a limit
	Deleted int64 // expired pushes removed with their audit logs
}

// AnonymousRetention is how long an expired anonymous push is kept before it
// is deleted (Password Pusher's daily clean-up job).
const AnonymousRetention = 24 * time.Hour

// sweepChunk is how many rows one sweep statement handles at most, and
// sweepDuty the share of the time the sweeper spends in its chunks: after a
// chunk that took d it waits d×(1−sweepDuty)/sweepDuty before the next. Each
// chunk is its own short write transaction, so on SQLite the view claims
// waiting for the single writer get in between chunks instead of waiting for
// the whole sweep, and the pause leaves them most of the writer (and of the
// CPU) while a large sweep runs. Expiry is also checked at every access, so a
// slower sweep serves no push too long. Measured with 200,000 due pushes
// (docs/performance.md): without the pause, retrieves during the sweep had
// 4 times their usual p99; with it, under 2 times.
const (
	sweepChunk = 250
	sweepDuty  = 0.25
)

// pace waits after a chunk that ran since start, so that chunks take at most
// sweepDuty of the time; it returns early with ctx's error.
func pace(ctx context.Context, start time.Time) error {
	t := time.NewTimer(time.Duration(float64(time.Since(start)) * (1 - sweepDuty) / sweepDuty))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// The chunk statements pick at most sweepChunk rows by id in a subquery
// (valid on SQLite and PostgreSQL, unlike UPDATE … LIMIT), served by an
// index, then reach them by primary key (TestSweepQueriesUseIndexes): $1 is
// the time, $2 the chunk size. An expiry checks "expired = 0" again outside
// the subquery: on PostgreSQL a row another instance expired after this
// statement's snapshot is checked again in its new state, so two instances
// never both count one push (a due push stays due: expires_at never changes
// and view_count only grows). The unary + keeps SQLite from answering that
// check through an index, which would walk every due push on every chunk
// instead of the chunk's ids.
const (
	// Pushes past their day limit: the partial index pushes_active_expiry
	// (expires_at) WHERE expired = 0 (migration 00007).
	sweepDueByDays = `expired = 0 AND expires_at <= $1`
	// Pushes out of views but not expired: the partial index
	// pushes_view_limit on SQLite (migration 00008). A claim expires the
	// push on its last view, so these are rare leftovers.
	sweepDueByViews = `expired = 0 AND view_count >= expire_after_views`
	// Expired anonymous pushes old enough to delete: the partial index
	// pushes_expired_on (expired_on) WHERE expired = 1.
	sweepOldAnonymous = `expired = 1 AND user_id IS NULL AND expired_on <= $1`
	// Expired owned pushes old enough to purge: pushes_expired_on.
	sweepOldOwned = `expired = 1 AND user_id IS NOT NULL AND expired_on <= $1`
)

// expireQuery expires a chunk of the pushes matching cond.
func expireQuery(cond string) string {
	return `UPDATE pushes SET ` + expireSet("$1") + `
		WHERE id IN (SELECT id FROM pushes WHERE ` + cond + ` LIMIT $2) AND +expired = 0
		RETURNING id, file_count, receipts`
}

// deleteQuery deletes a chunk of the pushes matching cond. Expired pushes
// stay eligible, and a push deleted by another instance is not counted, so
// no check outside the subquery is needed.
func deleteQuery(cond string) string {
	return `DELETE FROM pushes WHERE id IN (SELECT id FROM pushes WHERE ` + cond + ` LIMIT $2)`
}

// sweepFileKeysQuery drops the keys of a chunk of files whose push is
// expired. It walks the files not yet scheduled for deletion
// (push_files_purge), not the expired pushes, which may be many.
const sweepFileKeysQuery = `UPDATE push_files SET file_key = NULL, purge_at = $1
	WHERE id IN (SELECT f.id FROM push_files f JOIN pushes p ON p.id = f.push_id
		WHERE f.purge_at IS NULL AND p.expired = 1 LIMIT $2) AND +purge_at IS NULL`

// Sweep expires every push past a limit, deletes expired anonymous pushes
// older than AnonymousRetention, and, when purgeAfter > 0, expired owned
// pushes older than that. It works in chunks of at most sweepChunk rows, each
// in its own short transaction, looping until a chunk comes back short, and
// stops between chunks when ctx is cancelled (returning what it did so far).
// Every statement is idempotent, so several instances may sweep at once.
func (s *Store) Sweep(ctx context.Context, now time.Time, purgeAfter time.Duration) (SweepResult, error) {
	var r SweepResult
	for _, cond := range []string{sweepDueByDays, sweepDueByViews} {
		n, err := s.sweepExpire(ctx, cond, now)
		r.Expired += n
		if err != nil {
			return r, err
		}
	}
	// Files of pushes expired by other means than the steps above (every
	// expiry wipes them in its own transaction; this catches older rows).
	if err := s.sweepFileKeys(ctx, now.Add(push.FileLinkTTL)); err != nil {
		return r, err
	}
	n, err := s.sweepDelete(ctx, sweepOldAnonymous, now.Add(-AnonymousRetention))
	r.Deleted += n
	if err != nil {
		return r, fmt.Errorf("sweep anonymous: %w", err)
	}
	if purgeAfter > 0 {
		n, err := s.sweepDelete(ctx, sweepOldOwned, now.Add(-purgeAfter))
		r.Deleted += n
		if err != nil {
			return r, fmt.Errorf("sweep purge: %w", err)
		}
	}
	return r, nil
}

// inChunks runs step, one chunk a call, until a chunk handles fewer than
// sweepChunk rows, pacing between chunks and stopping when ctx is
// cancelled. It returns the rows handled.
//
// A chunk that has begun runs to its end even when ctx ends meanwhile (for
// chunkGrace at most): a commit cut short by a cancellation may have
// happened or not, and the sweep must know which rows it handled, so that
// the counts of several instances add up exactly.
func inChunks(ctx context.Context, step func(context.Context) (int64, error)) (int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		start := time.Now()
		chunk, done := chunkContext(ctx)
		n, err := step(chunk)
		done()
		if err != nil {
			return total, err
		}
		total += n
		if n < sweepChunk {
			return total, nil
		}
		if err := pace(ctx, start); err != nil {
			return total, err
		}
	}
}

// chunkGrace is how long a chunk may go on after its sweep was cancelled.
const chunkGrace = 5 * time.Second

// chunkContext is the context of one chunk of a sweep under ctx: it ends
// chunkGrace after ctx does, or when done is called.
func chunkContext(ctx context.Context) (chunk context.Context, done func()) {
	chunk, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(chunkGrace, cancel) })
	return chunk, func() {
		stop()
		cancel()
	}
}

// sweepExpire expires the pushes matching cond in chunks. The files of each
// chunk's pushes lose their keys in the chunk's own transaction, so no push
// is ever expired with readable files.
func (s *Store) sweepExpire(ctx context.Context, cond string, now time.Time) (int64, error) {
	query := expireQuery(cond)
	total, err := inChunks(ctx, func(ctx context.Context) (int64, error) {
		return maintain(ctx, s, func(tx *Tx) (int64, error) {
			rows, err := tx.QueryContext(ctx, query, ms(now), sweepChunk)
			if err != nil {
				return 0, err
			}
			var n int64
			var withFiles, withReceipt, all []int64
			for rows.Next() {
				var id int64
				var files int
				var receipts push.Receipts
				if err := rows.Scan(&id, &files, &receipts); err != nil {
					rows.Close()
					return 0, err
				}
				n++
				all = append(all, id)
				if files > 0 {
					withFiles = append(withFiles, id)
				}
				if receipts.Has(push.ReceiptExpire) {
					withReceipt = append(withReceipt, id)
				}
			}
			if err := errors.Join(rows.Close(), rows.Err()); err != nil {
				return 0, err
			}
			for _, id := range withFiles {
				if err := wipeFiles(ctx, tx, id, now.Add(push.FileLinkTTL)); err != nil {
					return 0, err
				}
			}
			for _, id := range withReceipt {
				if err := queueReceipt(ctx, tx, id, push.ReceiptExpire, now); err != nil {
					return 0, err
				}
			}
			return n, sweepHooks(ctx, tx, all, now)
		})
	})
	if err != nil {
		err = fmt.Errorf("sweep expire: %w", err)
	}
	return total, err
}

// sweepFileKeys drops the keys of files whose push is expired, in chunks.
func (s *Store) sweepFileKeys(ctx context.Context, purgeAt time.Time) error {
	_, err := inChunks(ctx, func(ctx context.Context) (int64, error) {
		return maintain(ctx, s, func(tx *Tx) (int64, error) {
			return rowsAffected(tx.ExecContext(ctx, sweepFileKeysQuery, ms(purgeAt), sweepChunk))
		})
	})
	if err != nil {
		err = fmt.Errorf("sweep files: %w", err)
	}
	return err
}

// sweepDelete deletes the pushes matching cond (with their audit logs and
// file rows, by cascade) in chunks, and returns how many it deleted.
func (s *Store) sweepDelete(ctx context.Context, cond string, before time.Time) (int64, error) {
	query := deleteQuery(cond)
	return inChunks(ctx, func(ctx context.Context) (int64, error) {
		return maintain(ctx, s, func(tx *Tx) (int64, error) {
			return rowsAffected(tx.ExecContext(ctx, query, ms(before), sweepChunk))
		})
	})
}

func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// sweepHooks queues push.expired for the pushes ids the sweep expired,
// when an endpoint wants it.
func sweepHooks(ctx context.Context, tx *Tx, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	if wanted, err := hooksWanted(ctx, tx, push.HookExpired); err != nil || !wanted {
		return err
	}
	for _, id := range ids {
		if err := queueHooks(ctx, tx, id, push.HookExpired, "", "", now); err != nil {
			return err
		}
	}
	return nil
}
