package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"hush/internal/push"
)

// Identity is an account's identity at an OpenID Connect provider: the
// provider's issuer and its subject for the person (docs/decisions.md, D50).
type Identity struct {
	Issuer, Subject string
	Email           string // the address the provider vouched for when the link was made
}

// UserByIdentity finds the account linked to the identity (issuer,
// subject); push.CodeNotFound when none is.
func (s *Store) UserByIdentity(ctx context.Context, issuer, subject string) (*push.User, error) {
	return scanUser(s.r.QueryRowContext(ctx, `SELECT `+userColumnsOf("u")+`
		FROM user_identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = $1 AND i.subject = $2`, issuer, subject))
}

// LinkIdentity links the identity to the account userID, which the
// provider vouched holds its address: an account awaiting confirmation of
// that address is confirmed. With endCredentials, the account's web
// sessions end, its API token is revoked and its webhook endpoints are
// turned off (push.HookOffLinked), in the same transaction.
// push.CodeConflict when the account already has an identity at that
// provider or the identity another account; push.CodeNotFound when the
// account is gone.
func (s *Store) LinkIdentity(ctx context.Context, userID int64, id Identity, now time.Time, endCredentials bool) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		if err := linkIdentity(ctx, tx, userID, id, now); err != nil || !endCredentials {
			return none{}, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE user_id = $1`, userID); err != nil {
			return none{}, fmt.Errorf("end credentials: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $1, updated_at = $2
			WHERE user_id = $3 AND enabled = 1`, push.HookOffLinked, ms(now), userID); err != nil {
			return none{}, fmt.Errorf("end credentials: %w", err)
		}
		return none{}, revokeSessions(ctx, tx, userID, now)
	})
	return err
}

func linkIdentity(ctx context.Context, tx *Tx, userID int64, id Identity, now time.Time) error {
	var taken int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM user_identities
		WHERE (issuer = $1 AND subject = $2) OR (user_id = $3 AND issuer = $1)`, id.Issuer, id.Subject, userID).Scan(&taken)
	if err != nil {
		return fmt.Errorf("check identity: %w", err)
	}
	if taken > 0 {
		return push.Errorf(push.CodeConflict, "the identity or the account is already linked")
	}
	n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE users SET confirm_pending = 0, confirm_digest = NULL, confirm_expires_at = NULL
		WHERE id = $1 AND email = $2`, userID, strings.ToLower(id.Email)))
	if err != nil {
		return fmt.Errorf("link identity: %w", err)
	}
	if n == 0 {
		return push.Errorf(push.CodeNotFound, "no such user with that address")
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO user_identities (user_id, issuer, subject, email, created_at)
		VALUES ($1, $2, $3, $4, $5)`, userID, id.Issuer, id.Subject, strings.ToLower(id.Email), ms(now))
	if isUniqueViolation(err) {
		return push.Errorf(push.CodeConflict, "the identity or the account is already linked")
	}
	if err != nil {
		return fmt.Errorf("link identity: %w", err)
	}
	return nil
}

// CreateIdentityUser creates an account without a password (it signs in
// through its provider only) linked to the identity, in one transaction.
// push.CodeConflict when the address or the identity is taken.
func (s *Store) CreateIdentityUser(ctx context.Context, id Identity, now time.Time) (*push.User, error) {
	email := strings.ToLower(strings.TrimSpace(id.Email))
	u := &push.User{Email: email, AuthEpoch: newEpoch(), CreatedAt: now}
	uid, err := write(ctx, s, func(tx *Tx) (int64, error) {
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE email = $1`, email).Scan(&exists); err != nil {
			return 0, fmt.Errorf("check email: %w", err)
		}
		if exists > 0 {
			return 0, push.Errorf(push.CodeConflict, "a user with email %s already exists", email)
		}
		var uid int64
		err := tx.QueryRowContext(ctx, `INSERT INTO users (email, password_hash, auth_epoch, created_at, updated_at, confirm_pending)
			VALUES ($1, '', $2, $3, $3, 0) RETURNING id`, email, u.AuthEpoch, ms(now)).Scan(&uid)
		if isUniqueViolation(err) {
			return 0, push.Errorf(push.CodeConflict, "a user with email %s already exists", email)
		}
		if err != nil {
			return 0, fmt.Errorf("create user: %w", err)
		}
		return uid, linkIdentity(ctx, tx, uid, Identity{Issuer: id.Issuer, Subject: id.Subject, Email: email}, now)
	})
	if err != nil {
		return nil, err
	}
	u.ID = uid
	return u, nil
}

// Identities lists the identities linked to the account, oldest first.
func (s *Store) Identities(ctx context.Context, userID int64) ([]Identity, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT issuer, subject, email FROM user_identities WHERE user_id = $1 ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list identities: %w", err)
	}
	defer rows.Close()
	var out []Identity
	for rows.Next() {
		var id Identity
		if err := rows.Scan(&id.Issuer, &id.Subject, &id.Email); err != nil {
			return nil, fmt.Errorf("list identities: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
