package store

import (
	"context"
	"fmt"
	"strings"
)

// copyTables lists what CopyAll moves, parents before children: every
// column of every table but notCopied (TestCopyCoversEverything).
var copyTables = []struct {
	name    string
	columns []string
}{
	{"users", []string{"id", "email", "password_hash", "auth_epoch", "created_at", "updated_at",
		"reset_digest", "reset_expires_at", "confirm_pending", "confirm_digest", "confirm_expires_at", "receipts_default",
		"admin", "disabled_at", "totp_secret", "totp_enabled_at", "totp_last_step", "totp_pending", "totp_pending_epoch", "preferred_language", "pwpush_user_id"}},
	{"recovery_codes", []string{"id", "user_id", "digest", "created_at"}},
	{"user_identities", []string{"id", "user_id", "issuer", "subject", "email", "created_at"}},
	{"api_tokens", []string{"id", "user_id", "digest", "created_at"}},
	{"pushes", []string{"id", "token_key", "token_sealed", "legacy_token", "kind", "user_id", "name", "note", "payload", "passphrase_salt",
		"expire_after_days", "expire_after_views", "deletable_by_viewer", "retrieval_step", "view_count",
		"log_count", "expired", "deleted", "expires_at", "expired_on", "created_at", "updated_at", "file_count",
		"receipts", "notify_count", "locale"}},
	{"audit_logs", []string{"id", "push_id", "kind", "ip", "user_agent", "referrer", "user_id", "created_at"}},
	{"push_files", []string{"id", "push_id", "position", "blob_id", "meta", "file_key", "size", "purge_at", "created_at"}},
	{"meta", []string{"name", "value"}},
	{"sessions", []string{"token", "user_id", "data", "expiry"}},
	{"admin_log", []string{"id", "actor_id", "actor", "action", "target_id", "target", "ip", "created_at"}},
	{"outbox", []string{"id", "kind", "ref", "subject_id", "event", "payload", "failed", "attempts", "due_at",
		"lease_until", "lease_owner", "last_error", "created_at"}},
	{"webhook_endpoints", []string{"id", "user_id", "url", "events", "secret_sealed", "ref", "enabled", "disabled_reason",
		"failing_since", "created_at", "updated_at"}},
	{"webhook_messages", []string{"id", "endpoint_id", "event_id", "msg_id", "event", "push_id", "token_key", "push_kind",
		"push_name", "views_left", "expires_at", "ip", "user_agent", "state", "attempts", "last_status", "created_at", "updated_at"}},
	{"webhook_attempts", []string{"id", "message_id", "endpoint_id", "attempt", "status_code", "latency_ms", "error",
		"next_retry_at", "created_at"}},
}

// notCopied are the tables CopyAll leaves behind on purpose: rate-limit
// counters are transient, the migrations keep their own bookkeeping, and
// the ids' sequences are continued by CopyAll itself, on either engine.
var notCopied = []string{"rate_events", "rate_buckets", "goose_db_version", "sqlite_sequence"}

// CopyAll copies every user (with its second factor and recovery codes),
// token, push, audit entry, file record, session, the admin log and the key
// check from s into dst, keeping ids, so a deployment moves from
// one engine to the other without losing anything; the target then hands
// out ids after the highest the source ever did. dst must be migrated and
// hold no users or pushes. It returns the rows copied per table.
func (s *Store) CopyAll(ctx context.Context, dst *Store) (map[string]int, error) {
	for _, t := range []string{"users", "pushes"} {
		var n int
		if err := dst.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("check target: %w", err)
		}
		if n > 0 {
			return nil, fmt.Errorf("the target database already holds %s; copy into an empty one", t)
		}
	}
	return maintain(ctx, dst, func(tx *Tx) (map[string]int, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta`); err != nil {
			return nil, fmt.Errorf("clear target meta: %w", err)
		}
		counts := map[string]int{}
		for _, t := range copyTables {
			n, err := s.copyTable(ctx, tx, t.name, t.columns)
			if err != nil {
				return nil, fmt.Errorf("copy %s: %w", t.name, err)
			}
			counts[t.name] = n
		}
		// Ids continue after the highest the source ever handed out, not
		// after the highest left: rows copied in with their ids do not
		// move a PostgreSQL sequence, and sqlite_sequence is not a copied
		// table, so the next row would get a deleted row's id (D21).
		for _, t := range copyTables {
			if t.columns[0] != "id" {
				continue
			}
			last, err := s.lastID(ctx, t.name)
			if err != nil {
				return nil, fmt.Errorf("read %s ids: %w", t.name, err)
			}
			if err := dst.continueIDs(ctx, tx, t.name, last); err != nil {
				return nil, fmt.Errorf("advance %s ids: %w", t.name, err)
			}
		}
		return counts, nil
	})
}

// lastID is the highest id table has handed out: its sequence's last
// value (SQLite: sqlite_sequence, for the tables with AUTOINCREMENT), or
// the highest id left where that is higher or there is no sequence.
func (s *Store) lastID(ctx context.Context, table string) (int64, error) {
	q := `SELECT MAX(n) FROM (SELECT COALESCE(MAX(id), 0) AS n FROM ` + table + `
		UNION ALL SELECT seq FROM sqlite_sequence WHERE name = $1) AS ids`
	if s.Engine() == "postgres" {
		q = `SELECT GREATEST(COALESCE(pg_sequence_last_value(pg_get_serial_sequence($1, 'id')::regclass), 0),
			COALESCE((SELECT MAX(id) FROM ` + table + `), 0))`
	}
	var last int64
	err := s.r.QueryRowContext(ctx, q, table).Scan(&last)
	return last, err
}

// continueIDs makes table hand out ids after last, in tx. On SQLite only a
// table with AUTOINCREMENT keeps a sequence; any other takes the highest
// id left plus one, whatever is done here.
func (s *Store) continueIDs(ctx context.Context, tx *Tx, table string, last int64) error {
	if s.Engine() == "postgres" {
		_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence($1, 'id'), $2::bigint + 1, false)`, table, last)
		return err
	}
	var auto int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master
		WHERE type = 'table' AND name = $1 AND sql LIKE '%AUTOINCREMENT%'`, table).Scan(&auto); err != nil || auto == 0 {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sqlite_sequence WHERE name = $1`, table); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES ($1, $2)`, table, last)
	return err
}

func (s *Store) copyTable(ctx context.Context, tx *Tx, table string, columns []string) (int, error) {
	cols := strings.Join(columns, ", ")
	rows, err := s.r.QueryContext(ctx, `SELECT `+cols+` FROM `+table)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	marks := make([]string, len(columns))
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", i+1)
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO `+table+` (`+cols+`) VALUES (`+strings.Join(marks, ", ")+`)`)
	if err != nil {
		return 0, err
	}
	defer insert.Close()
	vals := make([]any, len(columns))
	ptrs := make([]any, len(columns))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, v := range vals {
			// SQLite reads an empty blob back as a nil []byte, which the
			// insert would store as NULL; a NULL is a nil any, not a nil
			// []byte, so only empty values are turned back into empty ones.
			if b, ok := v.([]byte); ok && b == nil {
				vals[i] = []byte{}
			}
		}
		if _, err := insert.ExecContext(ctx, vals...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
