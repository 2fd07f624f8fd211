package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// FindSession returns the data of the session whose token digest is digest,
// if it exists and has not expired at now.
func (s *Store) FindSession(ctx context.Context, digest string, now time.Time) ([]byte, bool, error) {
	var data []byte
	err := s.r.QueryRowContext(ctx, `SELECT data FROM sessions WHERE token = $1 AND expiry > $2`,
		digest, ms(now)).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("find session: %w", err)
	}
	return data, true, nil
}

// CommitSession inserts or replaces a session. userID (0: nobody signed in)
// ties the session to its account, so that deleting the account, changing
// its password or revoking its sessions deletes it; a session committed for
// an account that no longer exists belongs to nobody.
func (s *Store) CommitSession(ctx context.Context, digest string, userID int64, data []byte, expiry time.Time) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (token, user_id, data, expiry)
			VALUES ($1, (SELECT id FROM users WHERE id = $2), $3, $4)
			ON CONFLICT (token) DO UPDATE SET user_id = excluded.user_id, data = excluded.data, expiry = excluded.expiry`,
			digest, userID, data, ms(expiry))
		if err != nil {
			return none{}, fmt.Errorf("commit session: %w", err)
		}
		return none{}, nil
	})
	return err
}

// DeleteSession removes a session; a missing one is not an error.
func (s *Store) DeleteSession(ctx context.Context, digest string) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE token = $1`, digest); err != nil {
			return none{}, fmt.Errorf("delete session: %w", err)
		}
		return none{}, nil
	})
	return err
}

// DeleteExpiredSessions removes the sessions expired at now and returns how many.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	n, err := maintain(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `DELETE FROM sessions WHERE expiry <= $1`, ms(now)))
	})
	if err != nil {
		return 0, fmt.Errorf("delete expired sessions: %w", err)
	}
	return n, nil
}
