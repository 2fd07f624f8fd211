package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"hush/internal/push"
)

// The outbox holds every message Hush sends until it is delivered
// (migration 00010). A message is written in the transaction of what
// caused it, so it exists exactly when that did; the outbox worker of any
// instance claims it for a lease, delivers it through the sender its kind
// names, and deletes it. A claim is one statement that takes due messages
// whose lease has run out (on PostgreSQL with FOR UPDATE SKIP LOCKED, so
// instances claiming together take different rows; SQLite's single writer
// serializes claims anyway), and every later change names the claim's
// lease, so a worker whose lease ran out and was taken over changes
// nothing. A worker that dies mid-delivery leaves its messages to whoever
// claims them after the lease: delivery is at least once.

// OutboxKindReceipt is the kind of a read receipt: it has no payload, and
// names its push (SubjectID) and event; the outbox worker writes it at
// delivery from what the push is then.
const OutboxKindReceipt = "receipt"

// OutboxMessage is one message of the outbox.
type OutboxMessage struct {
	ID        int64
	Kind      string // chooses the sender
	Ref       string // random name the sealed payload is bound to
	SubjectID int64  // what the message is about, when Payload does not say (0: nothing)
	Event     string
	Payload   []byte // sealed by the service; nil for a receipt
	Attempts  int    // delivery attempts, this one included once claimed
	Lease     string // the claim's owner, for the changes that follow it
	CreatedAt time.Time
}

// NewOutboxRef returns a fresh random ref for a message.
func NewOutboxRef() string { return rand.Text() }

// insertOutbox adds m, due at once, in tx.
func insertOutbox(ctx context.Context, tx *Tx, m OutboxMessage, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox (kind, ref, subject_id, event, payload, due_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, m.Kind, m.Ref, nullInt(m.SubjectID), m.Event, m.Payload, ms(now))
	if err != nil {
		return fmt.Errorf("queue message: %w", err)
	}
	return nil
}

// Enqueue adds messages to the outbox, due at once, in one transaction.
func (s *Store) Enqueue(ctx context.Context, now time.Time, msgs ...OutboxMessage) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		for _, m := range msgs {
			if err := insertOutbox(ctx, tx, m, now); err != nil {
				return none{}, err
			}
		}
		return none{}, nil
	})
	return err
}

// queueReceipt adds the receipt r of push id, in tx, when its owner asked
// for it.
func queueReceipt(ctx context.Context, tx *Tx, id int64, r push.Receipts, now time.Time) error {
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO outbox (kind, ref, subject_id, event, due_at, created_at)
		SELECT $1, $2, id, $3, $4, $4 FROM pushes WHERE id = $5 AND user_id IS NOT NULL AND (receipts & %d) <> 0`, int(r)),
		OutboxKindReceipt, NewOutboxRef(), r.Event(), ms(now), id)
	if err != nil {
		return fmt.Errorf("queue receipt: %w", err)
	}
	return nil
}

// QueueReceipt adds the receipt r of push id when its owner asked for it.
func (s *Store) QueueReceipt(ctx context.Context, id int64, r push.Receipts, now time.Time) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) { return none{}, queueReceipt(ctx, tx, id, r, now) })
	return err
}

// claimOutbox takes the messages due at $1 whose lease ran out, at most $4,
// oldest due first, for the lease $3 until $2. The lease check is repeated
// outside the subquery: on PostgreSQL a row another instance claimed after
// this statement's snapshot is checked again in its new state.
const (
	claimOutboxSQLite = `UPDATE outbox SET lease_until = $2, lease_owner = $3, attempts = attempts + 1
		WHERE id IN (SELECT id FROM outbox WHERE failed = 0 AND due_at <= $1 AND lease_until <= $1
			ORDER BY due_at, id LIMIT $4) AND lease_until <= $1
		RETURNING id, kind, ref, subject_id, event, payload, attempts, created_at`
	claimOutboxPostgres = `UPDATE outbox SET lease_until = $2, lease_owner = $3, attempts = attempts + 1
		WHERE id IN (SELECT id FROM outbox WHERE failed = 0 AND due_at <= $1 AND lease_until <= $1
			ORDER BY due_at, id LIMIT $4 FOR UPDATE SKIP LOCKED) AND lease_until <= $1
		RETURNING id, kind, ref, subject_id, event, payload, attempts, created_at`
)

// ClaimOutbox claims at most limit messages due at now, for lease, and
// returns them. No other claim can take them until the lease runs out.
func (s *Store) ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]OutboxMessage, error) {
	query := claimOutboxSQLite
	if s.Engine() == "postgres" {
		query = claimOutboxPostgres
	}
	owner := rand.Text()
	msgs, err := maintain(ctx, s, func(tx *Tx) ([]OutboxMessage, error) {
		rows, err := tx.QueryContext(ctx, query, ms(now), ms(now.Add(lease)), owner, limit)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []OutboxMessage
		for rows.Next() {
			var (
				m       OutboxMessage
				subject sql.NullInt64
				at      int64
			)
			if err := rows.Scan(&m.ID, &m.Kind, &m.Ref, &subject, &m.Event, &m.Payload, &m.Attempts, &at); err != nil {
				return nil, err
			}
			m.SubjectID, m.CreatedAt, m.Lease = subject.Int64, fromMS(at), owner
			out = append(out, m)
		}
		// RETURNING keeps no order on PostgreSQL: deliver oldest first.
		slices.SortFunc(out, func(a, b OutboxMessage) int { return cmp.Compare(a.ID, b.ID) })
		return out, rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("claim outbox: %w", err)
	}
	return msgs, nil
}

// errLeaseLost reports a change to a message whose claim ran out and was
// taken over, or that is gone.
var errLeaseLost = errors.New("outbox: the message's lease was lost")

// IsLeaseLost reports whether err says the claim of a message was lost.
func IsLeaseLost(err error) bool { return errors.Is(err, errLeaseLost) }

// outboxChange runs one statement on the message m names, under its lease.
func (s *Store) outboxChange(ctx context.Context, m OutboxMessage, query string, args ...any) error {
	n, err := maintain(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, query, append([]any{m.ID, m.Lease}, args...)...))
	})
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	if n == 0 {
		return errLeaseLost
	}
	return nil
}

// OutboxDelivered deletes a delivered message.
func (s *Store) OutboxDelivered(ctx context.Context, m OutboxMessage) error {
	return s.outboxChange(ctx, m, `DELETE FROM outbox WHERE id = $1 AND lease_owner = $2`)
}

// OutboxRetry gives the message back to be tried again at due, noting why
// this attempt failed (a message for the operator: never a secret).
func (s *Store) OutboxRetry(ctx context.Context, m OutboxMessage, due time.Time, why string) error {
	return s.outboxChange(ctx, m, `UPDATE outbox SET due_at = $3, lease_until = 0, lease_owner = '', last_error = $4
		WHERE id = $1 AND lease_owner = $2`, ms(due), push.Truncate255(why))
}

// OutboxFailed marks a message as failed for good: it is not tried again
// and its payload is deleted; the row stays a while, for the operator.
func (s *Store) OutboxFailed(ctx context.Context, m OutboxMessage, why string) error {
	return s.outboxChange(ctx, m, `UPDATE outbox SET failed = 1, payload = NULL, lease_until = 0, lease_owner = '',
		last_error = $3 WHERE id = $1 AND lease_owner = $2`, push.Truncate255(why))
}

// OutboxRelease gives back, unsent, a message claimed by a worker that
// stops: another may claim it at once.
func (s *Store) OutboxRelease(ctx context.Context, m OutboxMessage) error {
	err := s.outboxChange(ctx, m, `UPDATE outbox SET lease_until = 0, lease_owner = '', attempts = attempts - 1
		WHERE id = $1 AND lease_owner = $2`)
	if IsLeaseLost(err) {
		return nil
	}
	return err
}

// OutboxStats counts the outbox: messages waiting (due or not), messages
// failed for good, and when the oldest waiting one was queued (zero when
// none waits).
type OutboxStats struct {
	Pending, Failed int
	OldestPending   time.Time
}

// Outbox returns the outbox's counts.
func (s *Store) Outbox(ctx context.Context) (OutboxStats, error) {
	var (
		st     OutboxStats
		oldest sql.NullInt64
	)
	err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM outbox WHERE failed = 0),
		(SELECT COUNT(*) FROM outbox WHERE failed = 1),
		(SELECT MIN(created_at) FROM outbox WHERE failed = 0)`).Scan(&st.Pending, &st.Failed, &oldest)
	if err != nil {
		return st, fmt.Errorf("count outbox: %w", err)
	}
	if oldest.Valid {
		st.OldestPending = fromMS(oldest.Int64)
	}
	return st, nil
}

// PruneOutbox deletes the messages that failed for good before before, and
// returns how many.
func (s *Store) PruneOutbox(ctx context.Context, before time.Time) (int64, error) {
	n, err := maintain(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `DELETE FROM outbox WHERE failed = 1 AND created_at < $1`, ms(before)))
	})
	if err != nil {
		return 0, fmt.Errorf("prune outbox: %w", err)
	}
	return n, nil
}

// OutboxDue reports whether a message is due at now and not claimed: a
// read, so that an idle worker never takes the writer.
func (s *Store) OutboxDue(ctx context.Context, now time.Time) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM outbox WHERE failed = 0 AND due_at <= $1 AND lease_until <= $1 LIMIT 1`,
		ms(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("outbox due: %w", err)
	}
	return true, nil
}
