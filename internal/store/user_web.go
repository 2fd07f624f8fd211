package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
)

// UserByID finds an account; push.CodeNotFound when there is none.
func (s *Store) UserByID(ctx context.Context, id int64) (*push.User, error) {
	return s.user(ctx, `SELECT id, email, password_hash, created_at FROM users WHERE id = $1`, id)
}

// SetPassword replaces a user's password hash.
func (s *Store) SetPassword(ctx context.Context, userID int64, passwordHash string, now time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3`,
		passwordHash, ms(now), userID)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return push.Errorf(push.CodeNotFound, "no such user")
	}
	return nil
}

// DeleteUser removes an account. Its API tokens, its pushes and their audit
// logs go with it (ON DELETE CASCADE; foreign keys are on for SQLite).
func (s *Store) DeleteUser(ctx context.Context, userID int64) error {
	return s.inTx(ctx, func(tx *Tx) error {
		// Explicit deletes keep this right even where cascades are off.
		for _, q := range []string{
			`DELETE FROM audit_logs WHERE push_id IN (SELECT id FROM pushes WHERE user_id = $1)`,
			`DELETE FROM pushes WHERE user_id = $1`,
			`DELETE FROM api_tokens WHERE user_id = $1`,
		} {
			if _, err := tx.ExecContext(ctx, q, userID); err != nil {
				return fmt.Errorf("delete user data: %w", err)
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM users WHERE id = $1`, userID)
		if err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return push.Errorf(push.CodeNotFound, "no such user")
		}
		return nil
	})
}

// HasToken reports whether the user has an API token.
func (s *Store) HasToken(ctx context.Context, userID int64) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM api_tokens WHERE user_id = $1 LIMIT 1`, userID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check token: %w", err)
	}
	return true, nil
}
