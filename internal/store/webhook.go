package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
)

// Webhooks (migration 00012, docs/decisions.md D48 and D49). An event of a
// push writes, in its own transaction, one webhook_messages row for each
// enabled endpoint that wants it (the owner's and the instance's) and an
// outbox message of kind webhook naming that row, so that delivery shares
// the outbox's claims and leases across instances.

// OutboxKindWebhook is the kind of an outbox message that delivers a
// webhook message (SubjectID: its id).
const OutboxKindWebhook = "webhook"

// MaxWebhooksPerOwner bounds the endpoints of one account, and those of the
// instance.
const MaxWebhooksPerOwner = 20

const webhookColumns = `id, user_id, url, events, enabled, disabled_reason, failing_since, created_at, updated_at`

func scanWebhook(row scanner) (*push.Webhook, error) {
	var (
		w                       push.Webhook
		user                    sql.NullInt64
		events, enabled         int
		failing, created, updat int64
	)
	if err := row.Scan(&w.ID, &user, &w.URL, &events, &enabled, &w.DisabledReason, &failing, &created, &updat); err != nil {
		return nil, err
	}
	w.UserID, w.Events, w.Enabled = user.Int64, push.HookEvents(events), enabled == 1
	if failing != 0 {
		w.FailingSince = fromMS(failing)
	}
	w.CreatedAt, w.UpdatedAt = fromMS(created), fromMS(updat)
	return &w, nil
}

// CreateWebhook stores a new endpoint with its sealed secret (bound to ref)
// unless its owner already has MaxWebhooksPerOwner; it sets w.ID. New
// endpoints are serialized by a lock row, as admin actions are, so that
// the count and the insert hold across instances on PostgreSQL (SQLite's
// single writer does the same): adding them is rare.
func (s *Store) CreateWebhook(ctx context.Context, w *push.Webhook, sealed []byte, ref string) error {
	id, err := write(ctx, s, func(tx *Tx) (int64, error) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (name, value) VALUES ('webhook_lock', $1)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, []byte{}); err != nil {
			return 0, fmt.Errorf("lock webhook endpoints: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_endpoints WHERE ($1 = 0 AND user_id IS NULL) OR user_id = $1`,
			w.UserID).Scan(&n); err != nil {
			return 0, fmt.Errorf("count webhooks: %w", err)
		}
		if n >= MaxWebhooksPerOwner {
			return 0, &push.Error{Code: push.CodeInvalid, Fields: push.FieldErrors{"base": {
				fmt.Sprintf("You can have at most %d webhook endpoints.", MaxWebhooksPerOwner)}}}
		}
		var id int64
		err := tx.QueryRowContext(ctx, `INSERT INTO webhook_endpoints (user_id, url, events, secret_sealed, ref, enabled, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`, nullInt(w.UserID), w.URL, int(w.Events), sealed, ref,
			b2i(w.Enabled), ms(w.CreatedAt)).Scan(&id)
		tx.endpointsChanged()
		return id, err
	})
	if err != nil {
		return fmt.Errorf("create webhook: %w", err)
	}
	w.ID, w.UpdatedAt = id, w.CreatedAt
	return nil
}

// Webhooks lists the endpoints of user userID, or the instance's when
// userID is 0, oldest first.
func (s *Store) Webhooks(ctx context.Context, userID int64) ([]*push.Webhook, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints
		WHERE ($1 = 0 AND user_id IS NULL) OR user_id = $1 ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	out := []*push.Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("list webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// Webhook loads endpoint id; push.ErrNotFound when there is none.
func (s *Store) Webhook(ctx context.Context, id int64) (*push.Webhook, error) {
	return loadOne(s.r.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = $1`, id),
		scanWebhook, "load webhook")
}

// WebhookSecret returns the sealed secret of endpoint id and the ref it is
// bound to.
func (s *Store) WebhookSecret(ctx context.Context, id int64) ([]byte, string, error) {
	var (
		sealed []byte
		ref    string
	)
	err := s.r.QueryRowContext(ctx, `SELECT secret_sealed, ref FROM webhook_endpoints WHERE id = $1`, id).Scan(&sealed, &ref)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", push.ErrNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("webhook secret: %w", err)
	}
	return sealed, ref, nil
}

// UpdateWebhook sets the events and the state of endpoint id. Turning it
// on clears why Hush turned it off and its record of failures.
func (s *Store) UpdateWebhook(ctx context.Context, id int64, events push.HookEvents, enabled bool, now time.Time) error {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) {
		tx.endpointsChanged()
		return rowsAffected(tx.ExecContext(ctx, `UPDATE webhook_endpoints SET events = $2, updated_at = $4,
			disabled_reason = CASE WHEN $3 = 1 THEN '' ELSE disabled_reason END,
			failing_since = CASE WHEN $3 = 1 AND enabled = 0 THEN 0 ELSE failing_since END,
			enabled = $3 WHERE id = $1`, id, int(events), b2i(enabled), ms(now)))
	})
	if err != nil {
		return fmt.Errorf("update webhook: %w", err)
	}
	if n == 0 {
		return push.ErrNotFound
	}
	return nil
}

// DeleteWebhook deletes endpoint id with its messages and delivery log.
func (s *Store) DeleteWebhook(ctx context.Context, id int64) error {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE endpoint_id = $1`, id); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_messages WHERE endpoint_id = $1`, id); err != nil {
			return 0, err
		}
		return rowsAffected(tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE id = $1`, id))
	})
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	if n == 0 {
		return push.ErrNotFound
	}
	return nil
}

// queueHooks writes event e of push id, as ip and ua did it at, for every
// enabled endpoint that wants it — its owner's and the instance's — with
// the outbox message that delivers each.
func queueHooks(ctx context.Context, tx *Tx, id int64, e push.HookEvents, ip, ua string, at time.Time) error {
	if wanted, err := tx.wantedHooks(ctx); err != nil || wanted&e == 0 {
		return err
	}
	eventID := "evt_" + rand.Text()
	n, err := rowsAffected(tx.ExecContext(ctx, `INSERT INTO webhook_messages (endpoint_id, event_id, msg_id, event, push_id,
			token_key, push_kind, push_name, views_left, expires_at, ip, user_agent, created_at, updated_at)
		SELECT e.id, $2, CAST($3 AS TEXT) || CAST(e.id AS TEXT), $4, p.id, COALESCE(p.token_key, ''), p.kind, p.name,
			CASE WHEN p.expired = 0 AND p.expire_after_views > p.view_count THEN p.expire_after_views - p.view_count ELSE 0 END,
			p.expires_at, $5, $6, $7, $7
		FROM pushes p JOIN webhook_endpoints e ON e.enabled = 1 AND (e.events & $4) <> 0
			AND (e.user_id IS NULL OR e.user_id = p.user_id)
		WHERE p.id = $1`, id, eventID, "msg_"+eventID[4:]+"_", int(e), ip, push.Truncate255(ua), ms(at)))
	if err != nil {
		return fmt.Errorf("queue webhooks: %w", err)
	}
	if n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (kind, ref, subject_id, event, due_at, created_at)
		SELECT $2, msg_id, id, '', $3, $3 FROM webhook_messages WHERE event_id = $1`, eventID, OutboxKindWebhook, ms(at)); err != nil {
		return fmt.Errorf("queue webhooks: %w", err)
	}
	tx.c.hooks.Store(true)
	return nil
}

// hooksWanted reports whether any enabled endpoint wants e, for the sweep,
// which expires many pushes at once.
func hooksWanted(ctx context.Context, tx *Tx, e push.HookEvents) (bool, error) {
	wanted, err := tx.wantedHooks(ctx)
	return wanted&e != 0, err
}

// wantedHooks is every event some enabled endpoint wants, read once per
// transaction (D54): a shared transaction carries up to 64 writes, and
// most instances have no endpoint, so an event costs no statement then.
// A write to the endpoints in the same transaction reads them again
// (endpointsChanged). On SQLite no other writer can change them during
// the transaction; on PostgreSQL an endpoint another instance adds during
// it gets the events of the next one.
func (t *Tx) wantedHooks(ctx context.Context) (push.HookEvents, error) {
	if t.hookEventsKnown {
		return t.hookEvents, nil
	}
	rows, err := t.QueryContext(ctx, `SELECT DISTINCT events FROM webhook_endpoints WHERE enabled = 1`)
	if err != nil {
		return 0, fmt.Errorf("read webhook endpoints: %w", err)
	}
	defer rows.Close()
	var wanted push.HookEvents
	for rows.Next() {
		var e int64
		if err := rows.Scan(&e); err != nil {
			return 0, fmt.Errorf("read webhook endpoints: %w", err)
		}
		wanted |= push.HookEvents(e)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read webhook endpoints: %w", err)
	}
	t.hookEvents, t.hookEventsKnown = wanted, true
	return wanted, nil
}

// endpointsChanged makes the transaction read the endpoints again before
// its next event: one was added, or its events or state changed.
func (t *Tx) endpointsChanged() { t.hookEventsKnown = false }

// OnHooksQueued sets fn, called after a write that queued webhook messages
// has committed (to wake the outbox worker).
func (s *Store) OnHooksQueued(fn func()) { s.w.kick = fn }

// hooksCommitted calls the OnHooksQueued function when a committed write
// queued webhook messages.
func (s *Store) hooksCommitted() {
	if s.w.hooks.Load() && s.w.hooks.Swap(false) && s.w.kick != nil {
		s.w.kick()
	}
}

const hookMessageColumns = `id, endpoint_id, msg_id, event_id, event, token_key, push_kind, push_name, views_left, expires_at,
	ip, user_agent, created_at, state, attempts, last_status`

func scanHookMessage(row scanner) (*push.HookMessage, error) {
	var (
		m                  push.HookMessage
		event              int
		kind               string
		expires, createdAt int64
	)
	if err := row.Scan(&m.ID, &m.EndpointID, &m.MsgID, &m.EventID, &event, &m.TokenKey, &kind, &m.PushName, &m.ViewsLeft,
		&expires, &m.IP, &m.UserAgent, &createdAt, &m.State, &m.Attempts, &m.LastStatus); err != nil {
		return nil, err
	}
	m.Event, m.PushKind, m.ExpiresAt, m.CreatedAt = push.HookEvents(event), push.Kind(kind), fromMS(expires), fromMS(createdAt)
	return &m, nil
}

// HookMessage loads webhook message id; push.ErrNotFound when there is none.
func (s *Store) HookMessage(ctx context.Context, id int64) (*push.HookMessage, error) {
	return loadOne(s.r.QueryRowContext(ctx, `SELECT `+hookMessageColumns+` FROM webhook_messages WHERE id = $1`, id),
		scanHookMessage, "load webhook message")
}

// HookMessages lists the latest messages of endpoint id, newest first.
func (s *Store) HookMessages(ctx context.Context, endpointID int64, limit, offset int) ([]*push.HookMessage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+hookMessageColumns+` FROM webhook_messages
		WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`, endpointID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("list webhook messages: %w", err)
	}
	defer rows.Close()
	out := []*push.HookMessage{}
	for rows.Next() {
		m, err := scanHookMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("list webhook messages: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// HookAttempts lists the delivery log of endpoint id, newest first.
func (s *Store) HookAttempts(ctx context.Context, endpointID int64, limit, offset int) ([]push.HookAttempt, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT a.id, a.message_id, m.msg_id, m.event, a.attempt, a.status_code, a.latency_ms,
			a.error, a.next_retry_at, a.created_at
		FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
		WHERE a.endpoint_id = $1 ORDER BY a.id DESC LIMIT $2 OFFSET $3`, endpointID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("webhook deliveries: %w", err)
	}
	defer rows.Close()
	out := []push.HookAttempt{}
	for rows.Next() {
		var (
			a                 push.HookAttempt
			event             int
			latency, next, at int64
		)
		if err := rows.Scan(&a.ID, &a.MessageID, &a.MsgID, &event, &a.Attempt, &a.StatusCode, &latency, &a.Error, &next, &at); err != nil {
			return nil, fmt.Errorf("webhook deliveries: %w", err)
		}
		a.Event, a.Latency, a.CreatedAt = push.HookEvents(event), time.Duration(latency)*time.Millisecond, fromMS(at)
		if next != 0 {
			a.NextRetry = fromMS(next)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// HookOutcome is what one delivery attempt of a message came to.
type HookOutcome struct {
	Message    *push.HookMessage
	StatusCode int
	Latency    time.Duration
	Error      string
	Delivered  bool
	NextRetry  time.Time // zero: no retry (delivered, or given up)
	At         time.Time
	// Disable, when set, turns the endpoint off with this reason: its
	// deliveries have failed for too long.
	Disable string
}

// RecordHookAttempt logs an attempt, sets its message's state and keeps
// the endpoint's record of failures: cleared by a success, begun by the
// first failure after one. It reports whether this call turned the
// endpoint off.
func (s *Store) RecordHookAttempt(ctx context.Context, o HookOutcome) (bool, error) {
	state := push.HookPending
	switch {
	case o.Delivered:
		state = push.HookDelivered
	case o.NextRetry.IsZero():
		state = push.HookFailed
	}
	var next int64
	if !o.NextRetry.IsZero() {
		next = ms(o.NextRetry)
	}
	return maintain(ctx, s, func(tx *Tx) (bool, error) {
		m := o.Message
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (message_id, endpoint_id, attempt, status_code, latency_ms,
			error, next_retry_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, m.ID, m.EndpointID, m.Attempts+1,
			o.StatusCode, o.Latency.Milliseconds(), push.Truncate255(o.Error), next, ms(o.At)); err != nil {
			return false, fmt.Errorf("log webhook attempt: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_messages SET state = $2, attempts = attempts + 1, last_status = $3,
			updated_at = $4 WHERE id = $1`, m.ID, state, o.StatusCode, ms(o.At)); err != nil {
			return false, fmt.Errorf("webhook message state: %w", err)
		}
		if o.Delivered {
			_, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = 0 WHERE id = $1 AND failing_since <> 0`, m.EndpointID)
			return false, err
		}
		if o.Disable != "" {
			n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $2, updated_at = $3
				WHERE id = $1 AND enabled = 1`, m.EndpointID, push.Truncate255(o.Disable), ms(o.At)))
			return n > 0, err
		}
		_, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since = 0`,
			m.EndpointID, ms(o.At))
		return false, err
	})
}

// SetHookState sets the state of message id (a message whose endpoint is
// off or gone fails without an attempt).
func (s *Store) SetHookState(ctx context.Context, id int64, state string, now time.Time) error {
	_, err := maintain(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `UPDATE webhook_messages SET state = $2, updated_at = $3 WHERE id = $1`,
			id, state, ms(now)))
	})
	return err
}

// Redeliver queues message id of endpoint endpointID again, due at once,
// unless a delivery of it is already waiting: then it reports false.
func (s *Store) Redeliver(ctx context.Context, endpointID, id int64, now time.Time) (bool, error) {
	return write(ctx, s, func(tx *Tx) (bool, error) {
		var msgID, state string
		err := tx.QueryRowContext(ctx, `SELECT msg_id, state FROM webhook_messages WHERE id = $1 AND endpoint_id = $2`,
			id, endpointID).Scan(&msgID, &state)
		if errors.Is(err, sql.ErrNoRows) {
			return false, push.ErrNotFound
		}
		if err != nil {
			return false, fmt.Errorf("redeliver: %w", err)
		}
		var waiting int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = $1 AND subject_id = $2 AND failed = 0`,
			OutboxKindWebhook, id).Scan(&waiting); err != nil {
			return false, fmt.Errorf("redeliver: %w", err)
		}
		if waiting > 0 {
			return false, nil
		}
		if err := insertOutbox(ctx, tx, OutboxMessage{Kind: OutboxKindWebhook, Ref: msgID, SubjectID: id}, now); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_messages SET state = $2, updated_at = $3 WHERE id = $1`,
			id, push.HookPending, ms(now)); err != nil {
			return false, fmt.Errorf("redeliver: %w", err)
		}
		tx.c.hooks.Store(true)
		return true, nil
	})
}

// PruneWebhooks deletes the messages (and their delivery log) made before
// before that wait for nothing, and returns how many.
func (s *Store) PruneWebhooks(ctx context.Context, before time.Time) (int64, error) {
	n, err := maintain(ctx, s, func(tx *Tx) (int64, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_attempts WHERE message_id IN (SELECT id FROM webhook_messages
			WHERE created_at < $1 AND state <> $2)`, ms(before), push.HookPending); err != nil {
			return 0, err
		}
		return rowsAffected(tx.ExecContext(ctx, `DELETE FROM webhook_messages WHERE created_at < $1 AND state <> $2`,
			ms(before), push.HookPending))
	})
	if err != nil {
		return 0, fmt.Errorf("prune webhooks: %w", err)
	}
	return n, nil
}
