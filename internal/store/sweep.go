package store

import (
	"context"
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
// is deleted (the reference's daily clean-up job).
const AnonymousRetention = 24 * time.Hour

// Sweep expires every push past a limit, deletes expired anonymous pushes
// older than AnonymousRetention, and, when purgeAfter > 0, expired owned
// pushes older than that. Each step is one idempotent statement, so several
// instances may sweep at once.
func (s *Store) Sweep(ctx context.Context, now time.Time, purgeAfter time.Duration) (SweepResult, error) {
	var r SweepResult
	res, err := s.w.ExecContext(ctx, `UPDATE pushes SET `+expireSet("$1")+`
		WHERE expired = 0 AND (expires_at <= $1 OR view_count >= expire_after_views)`, ms(now))
	if err != nil {
		return r, fmt.Errorf("sweep expire: %w", err)
	}
	r.Expired, _ = res.RowsAffected()
	_, err = s.w.ExecContext(ctx, `UPDATE push_files SET file_key = NULL, purge_at = $1
		WHERE purge_at IS NULL AND push_id IN (SELECT id FROM pushes WHERE expired = 1)`, ms(now.Add(push.FileLinkTTL)))
	if err != nil {
		return r, fmt.Errorf("sweep files: %w", err)
	}
	res, err = s.w.ExecContext(ctx, `DELETE FROM pushes WHERE expired = 1 AND user_id IS NULL AND expired_on <= $1`,
		ms(now.Add(-AnonymousRetention)))
	if err != nil {
		return r, fmt.Errorf("sweep anonymous: %w", err)
	}
	r.Deleted, _ = res.RowsAffected()
	if purgeAfter > 0 {
		res, err = s.w.ExecContext(ctx, `DELETE FROM pushes WHERE expired = 1 AND user_id IS NOT NULL AND expired_on <= $1`,
			ms(now.Add(-purgeAfter)))
		if err != nil {
			return r, fmt.Errorf("sweep purge: %w", err)
		}
		n, _ := res.RowsAffected()
		r.Deleted += n
	}
	return r, nil
}
