package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
)

// TwoFactor is what the store keeps of an account's second factor. The
// secrets are sealed by the service; the store never sees them in clear.
type TwoFactor struct {
	Secret       []byte    // the sealed TOTP secret; nil while the second factor is off
	EnabledAt    time.Time // zero while it is off
	LastStep     int64     // the last TOTP time step whose code was accepted
	Pending      []byte    // the sealed secret of an enrolment not yet confirmed
	PendingEpoch string    // the auth epoch that enrolment began under
	RecoveryLeft int       // unused recovery codes
}

// TwoFactor loads the second factor of an account; push.CodeNotFound when
// the account does not exist.
func (s *Store) TwoFactor(ctx context.Context, userID int64) (*TwoFactor, error) {
	var (
		tf           TwoFactor
		enabled      sql.NullInt64
		pendingEpoch sql.NullString
	)
	err := s.r.QueryRowContext(ctx, `SELECT totp_secret, totp_enabled_at, totp_last_step, totp_pending, totp_pending_epoch,
		(SELECT COUNT(*) FROM recovery_codes r WHERE r.user_id = u.id) FROM users u WHERE u.id = $1`, userID).
		Scan(&tf.Secret, &enabled, &tf.LastStep, &tf.Pending, &pendingEpoch, &tf.RecoveryLeft)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, push.Errorf(push.CodeNotFound, "no such user")
	}
	if err != nil {
		return nil, fmt.Errorf("load second factor: %w", err)
	}
	if enabled.Valid {
		tf.EnabledAt = fromMS(enabled.Int64)
	}
	tf.PendingEpoch = pendingEpoch.String
	return &tf, nil
}

// errEnrolment reports an enrolment that no longer holds: the second factor
// was turned on meanwhile, or the account's auth epoch moved on (a password
// change, revoked sessions), or the account is gone.
var errEnrolment = push.Errorf(push.CodeConflict, "the enrolment is no longer valid")

// BeginTwoFactor stores the sealed secret of a new enrolment, bound to the
// account's current auth epoch epoch. It fails with push.CodeConflict when
// the second factor is already on or the epoch is not the account's.
func (s *Store) BeginTwoFactor(ctx context.Context, userID int64, epoch string, sealed []byte, now time.Time) error {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `UPDATE users SET totp_pending = $1, totp_pending_epoch = $2, updated_at = $3
			WHERE id = $4 AND auth_epoch = $2 AND totp_enabled_at IS NULL AND disabled_at IS NULL`, sealed, epoch, ms(now), userID))
	})
	if err != nil {
		return fmt.Errorf("begin enrolment: %w", err)
	}
	if n == 0 {
		return errEnrolment
	}
	return nil
}

// EnableTwoFactor confirms the enrolment whose sealed secret is pending and
// whose epoch is the account's: the secret becomes the account's second
// factor, step the last accepted step, digests its recovery codes (any
// earlier ones are deleted). The account gets a new auth epoch and every web
// session of it ends, as on a password change: sessions signed in with one
// factor do not outlive the second. It returns the new epoch, for the
// caller's own session; push.CodeConflict when the enrolment no longer holds.
func (s *Store) EnableTwoFactor(ctx context.Context, userID int64, epoch string, pending []byte, step int64, digests []string, now time.Time) (string, error) {
	newE := newEpoch()
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE users SET totp_secret = totp_pending, totp_pending = NULL,
			totp_pending_epoch = NULL, totp_enabled_at = $1, totp_last_step = $2, auth_epoch = $3, updated_at = $1
			WHERE id = $4 AND auth_epoch = $5 AND totp_pending_epoch = $5 AND totp_pending = $6
			AND totp_enabled_at IS NULL AND disabled_at IS NULL`, ms(now), step, newE, userID, epoch, pending))
		if err != nil {
			return none{}, fmt.Errorf("enable second factor: %w", err)
		}
		if n == 0 {
			return none{}, errEnrolment
		}
		if err := replaceRecoveryCodes(ctx, tx, userID, digests, now); err != nil {
			return none{}, err
		}
		return none{}, deleteSessionsOf(ctx, tx, userID)
	})
	if err != nil {
		return "", err
	}
	return newE, nil
}

func replaceRecoveryCodes(ctx context.Context, tx *Tx, userID int64, digests []string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete recovery codes: %w", err)
	}
	for _, d := range digests {
		if _, err := tx.ExecContext(ctx, `INSERT INTO recovery_codes (user_id, digest, created_at) VALUES ($1, $2, $3)`,
			userID, d, ms(now)); err != nil {
			return fmt.Errorf("store recovery code: %w", err)
		}
	}
	return nil
}

// DisableTwoFactor turns an account's second factor off: its secret, any
// enrolment under way and its recovery codes are deleted.
func (s *Store) DisableTwoFactor(ctx context.Context, userID int64, now time.Time) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) { return none{}, disableTwoFactor(ctx, tx, userID, now) })
	return err
}

func disableTwoFactor(ctx context.Context, tx *Tx, userID int64, now time.Time) error {
	n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_pending = NULL,
		totp_pending_epoch = NULL, updated_at = $1 WHERE id = $2`, ms(now), userID))
	if err != nil {
		return fmt.Errorf("disable second factor: %w", err)
	}
	if n == 0 {
		return push.Errorf(push.CodeNotFound, "no such user")
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete recovery codes: %w", err)
	}
	return nil
}

// UseTOTPStep records that a code of time step step was accepted for the
// account, and reports false when that step or a later one already was: a
// code is good once, and of two requests with the same code only one wins.
func (s *Store) UseTOTPStep(ctx context.Context, userID, step int64) (bool, error) {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `UPDATE users SET totp_last_step = $1
			WHERE id = $2 AND totp_last_step < $1 AND totp_enabled_at IS NOT NULL`, step, userID))
	})
	if err != nil {
		return false, fmt.Errorf("use code: %w", err)
	}
	return n == 1, nil
}

// UseRecoveryCode spends the account's recovery code with digest digest and
// reports whether there was one: each is good once.
func (s *Store) UseRecoveryCode(ctx context.Context, userID int64, digest string) (bool, error) {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `DELETE FROM recovery_codes WHERE user_id = $1 AND digest = $2
			AND user_id IN (SELECT id FROM users WHERE totp_enabled_at IS NOT NULL)`, userID, digest))
	})
	if err != nil {
		return false, fmt.Errorf("use recovery code: %w", err)
	}
	return n == 1, nil
}
