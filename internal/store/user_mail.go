package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
)

// What email adds to accounts: one outstanding password reset and one
// outstanding address confirmation per account, each kept as the digest of
// its token (never the token) with its expiry; whether the address awaits
// confirmation; and the receipts new pushes ask for by default.

// CreatePendingUser is CreateUser for an account whose address must be
// confirmed before it signs in on the web; confirm, the message that asks
// for it, is queued in the same transaction. When the address has an
// account, nothing of that account changes: taken, the message that tells
// its owner, is queued in the same kind of transaction instead, and the
// answer is push.CodeConflict (docs/decisions.md, D63).
func (s *Store) CreatePendingUser(ctx context.Context, email, passwordHash string, now time.Time, confirm, taken OutboxMessage) (*push.User, error) {
	return s.createUser(ctx, email, passwordHash, now, &confirm, &taken)
}

// SetResetDigest makes digest the account's one password reset, valid until
// expires: an earlier reset stops working.
func (s *Store) SetResetDigest(ctx context.Context, userID int64, digest string, expires time.Time) error {
	return s.userChange(ctx, `UPDATE users SET reset_digest = $2, reset_expires_at = $3 WHERE id = $1`,
		userID, digest, ms(expires))
}

// SetConfirmDigest makes digest the account's one address confirmation,
// valid until expires, while the address awaits confirmation; false when it
// does not (it was confirmed meanwhile, or the account is gone).
func (s *Store) SetConfirmDigest(ctx context.Context, userID int64, digest string, expires time.Time) (bool, error) {
	err := s.userChange(ctx, `UPDATE users SET confirm_digest = $2, confirm_expires_at = $3
		WHERE id = $1 AND confirm_pending = 1`, userID, digest, ms(expires))
	if push.ErrorCode(err) == push.CodeNotFound {
		return false, nil
	}
	return err == nil, err
}

// SetLanguage stores the language the user chose for its pages ("": its
// browser's).
func (s *Store) SetLanguage(ctx context.Context, userID int64, code string, now time.Time) error {
	return s.userChange(ctx, `UPDATE users SET preferred_language = $2, updated_at = $3 WHERE id = $1`,
		userID, code, ms(now))
}

// SetReceiptsDefault stores the receipts the user's new pushes ask for.
func (s *Store) SetReceiptsDefault(ctx context.Context, userID int64, r push.Receipts, now time.Time) error {
	return s.userChange(ctx, `UPDATE users SET receipts_default = $2, updated_at = $3 WHERE id = $1`,
		userID, int(r), ms(now))
}

// userChange runs one UPDATE of the user whose id is the first argument;
// push.CodeNotFound when it changed no row.
func (s *Store) userChange(ctx context.Context, query string, args ...any) error {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) { return rowsAffected(tx.ExecContext(ctx, query, args...)) })
	if err != nil {
		return fmt.Errorf("update account: %w", err)
	}
	if n == 0 {
		return push.Errorf(push.CodeNotFound, "no such user")
	}
	return nil
}

// ResetValid reports whether digest is an account's password reset that
// has not expired at now.
func (s *Store) ResetValid(ctx context.Context, digest string, now time.Time) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM users WHERE reset_digest = $1 AND reset_expires_at > $2`,
		digest, ms(now)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check reset: %w", err)
	}
	return true, nil
}

// ResetPassword spends the password reset digest, if it has not expired at
// now, on the new password hash, in one statement, so a reset works once
// however many requests present it together. Like SetPassword it gives the
// account a new auth epoch and deletes every web session of it; the address
// counts as confirmed, since the reset link reached it. It returns the
// account; push.CodeNotFound when the reset is unknown, spent or expired.
func (s *Store) ResetPassword(ctx context.Context, digest, passwordHash string, now time.Time) (*push.User, error) {
	return write(ctx, s, func(tx *Tx) (*push.User, error) {
		u, err := scanUser(tx.QueryRowContext(ctx, `UPDATE users SET password_hash = $1, auth_epoch = $2,
				reset_digest = NULL, reset_expires_at = NULL, confirm_pending = 0, confirm_digest = NULL,
				confirm_expires_at = NULL, updated_at = $3
			WHERE reset_digest = $4 AND reset_expires_at > $3
			RETURNING `+userColumns, passwordHash, newEpoch(), ms(now), digest))
		if err != nil {
			return nil, err
		}
		return u, deleteSessionsOf(ctx, tx, u.ID)
	})
}

// UserByConfirmDigest finds the account whose address confirmation digest
// is digest, if it has not expired at now; push.CodeNotFound otherwise.
// It spends nothing (Confirm does).
func (s *Store) UserByConfirmDigest(ctx context.Context, digest string, now time.Time) (*push.User, error) {
	return scanUser(s.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users
		WHERE confirm_digest = $1 AND confirm_expires_at > $2`, digest, ms(now)))
}

// Confirm spends the address confirmation digest, if it has not expired at
// now and still belongs to the account userID with the password hash
// passwordHash (the one its confirmer gave), and returns the account;
// push.CodeNotFound when the confirmation is unknown, spent or expired, or
// the account's password changed since it was checked.
func (s *Store) Confirm(ctx context.Context, digest string, userID int64, passwordHash string, now time.Time) (*push.User, error) {
	return write(ctx, s, func(tx *Tx) (*push.User, error) {
		return scanUser(tx.QueryRowContext(ctx, `UPDATE users SET confirm_pending = 0, confirm_digest = NULL,
				confirm_expires_at = NULL, updated_at = $2
			WHERE confirm_digest = $1 AND confirm_expires_at > $2 AND id = $3 AND password_hash = $4
			RETURNING `+userColumns, digest, ms(now), userID, passwordHash))
	})
}
