package store

import (
	"context"
	"database/sql"
	"fmt"

	"hush/internal/push"
)

// insertEvent writes the audit entry ev of push pushID and queues the
// webhook messages it raises (push.HookForEvent).
func insertEvent(ctx context.Context, tx *Tx, pushID int64, ev push.Event) error {
	if err := insertAudit(ctx, tx, pushID, ev); err != nil {
		return err
	}
	if e := push.HookForEvent(ev.Kind); e != 0 {
		return queueHooks(ctx, tx, pushID, e, ev.IP, ev.UserAgent, ev.CreatedAt)
	}
	return nil
}

// insertAudit writes the audit entry ev of push pushID, and nothing else
// (an imported entry raises no webhook).
func insertAudit(ctx context.Context, tx *Tx, pushID int64, ev push.Event) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_logs (push_id, kind, ip, user_agent, referrer, user_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, pushID, int(ev.Kind), ev.IP, push.Truncate255(ev.UserAgent),
		push.Truncate255(ev.Referrer), nullInt(ev.UserID), ms(ev.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert audit entry: %w", err)
	}
	return nil
}

// logCapped writes ev, an entry that counts no view, unless the push's log
// is full: of push.MaxAuditLogs entries, room stays for every view an
// active push has left and for its expiry, which are always logged. So
// entries that count nothing can never use up what views need, and a full
// log never ends a push that still has views and days.
func logCapped(ctx context.Context, tx *Tx, pushID int64, ev push.Event) error {
	res, err := tx.ExecContext(ctx, `UPDATE pushes SET log_count = log_count + 1 WHERE id = $1
		AND log_count + 1 + CASE WHEN expired = 0 AND expire_after_views > view_count
			THEN expire_after_views - view_count + 1 ELSE 0 END <= $2`,
		pushID, push.MaxAuditLogs)
	if err != nil {
		return fmt.Errorf("count audit entry: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return insertEvent(ctx, tx, pushID, ev)
}

// LogUncountedView records a view of push id that counts none (ev: an
// admin's or the owner's own) unless the push expired meanwhile: false
// then, and nothing is written. The first statement takes the row's lock (PostgreSQL re-reads
// the row when a concurrent expiry releases it; SQLite has one writer), so
// an expiry cannot come between the check and the entry.
func (s *Store) LogUncountedView(ctx context.Context, id int64, ev push.Event) (bool, error) {
	return write(ctx, s, func(tx *Tx) (bool, error) {
		n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE pushes SET updated_at = updated_at WHERE id = $1 AND expired = 0`, id))
		if err != nil {
			return false, fmt.Errorf("check push: %w", err)
		}
		if n == 0 {
			return false, nil
		}
		return true, logCapped(ctx, tx, id, ev)
	})
}

// AuditLog returns a push's audit entries, oldest first.
func (s *Store) AuditLog(ctx context.Context, pushID int64, limit, offset int) ([]push.Event, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT kind, ip, user_agent, referrer, user_id, created_at
		FROM audit_logs WHERE push_id = $1 ORDER BY id LIMIT $2 OFFSET $3`, pushID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	list := []push.Event{}
	for rows.Next() {
		var (
			ev     push.Event
			kind   int
			userID sql.NullInt64
			at     int64
		)
		if err := rows.Scan(&kind, &ev.IP, &ev.UserAgent, &ev.Referrer, &userID, &at); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		ev.Kind = push.EventKind(kind)
		ev.UserID = userID.Int64
		ev.CreatedAt = fromMS(at)
		list = append(list, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return list, nil
}
