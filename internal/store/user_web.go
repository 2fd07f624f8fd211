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
	return s.user(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id)
}

// SetPassword replaces a user's password hash and gives the account a new
// auth epoch, in one transaction that also deletes every web session of the
// account (a session signed in with the old password, stolen or not, ends)
// and any password reset link it has outstanding.
// It returns the new epoch, for the session of the caller to carry on with.
func (s *Store) SetPassword(ctx context.Context, userID int64, passwordHash string, now time.Time) (string, error) {
	epoch := newEpoch()
	_, err := write(ctx, s, func(tx *Tx) (none, error) {
		return none{}, setPassword(ctx, tx, userID, passwordHash, epoch, now)
	})
	if err != nil {
		return "", err
	}
	return epoch, nil
}

// setPassword is SetPassword in tx, with the new epoch.
func setPassword(ctx context.Context, tx *Tx, userID int64, passwordHash, epoch string, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $1, auth_epoch = $2, updated_at = $3,
		reset_digest = NULL, reset_expires_at = NULL WHERE id = $4`,
		passwordHash, epoch, ms(now), userID)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return push.Errorf(push.CodeNotFound, "no such user")
	}
	return deleteSessionsOf(ctx, tx, userID)
}

// RevokeSessions ends every web session of a user: the sessions are deleted
// and the account gets a new auth epoch, so a session row that escaped the
// delete (written by a request in flight) no longer signs anyone in.
func (s *Store) RevokeSessions(ctx context.Context, userID int64, now time.Time) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) { return none{}, revokeSessions(ctx, tx, userID, now) })
	return err
}

// revokeSessions is RevokeSessions in tx.
func revokeSessions(ctx context.Context, tx *Tx, userID int64, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE users SET auth_epoch = $1, updated_at = $2 WHERE id = $3`,
		newEpoch(), ms(now), userID)
	if err != nil {
		return fmt.Errorf("revoke sessions: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return push.Errorf(push.CodeNotFound, "no such user")
	}
	return deleteSessionsOf(ctx, tx, userID)
}

func deleteSessionsOf(ctx context.Context, tx *Tx, userID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete sessions: %w", err)
	}
	return nil
}

// DeleteUser removes an account. Its API tokens, its web sessions, its
// pushes and their audit logs and file rows go with it (ON DELETE CASCADE;
// foreign keys are on for SQLite). The id is never given to another
// account. It returns the blob ids of the files it deleted, for the caller
// to delete from the file store: their keys went with the rows.
func (s *Store) DeleteUser(ctx context.Context, userID int64) ([]string, error) {
	return write(ctx, s, func(tx *Tx) ([]string, error) { return deleteUser(ctx, tx, userID) })
}

// deleteUser is DeleteUser in tx.
func deleteUser(ctx context.Context, tx *Tx, userID int64) ([]string, error) {
	blobs, err := userBlobs(ctx, tx, userID)
	if err != nil {
		return nil, err
	}
	// Explicit deletes keep this right even where cascades are off.
	for _, q := range []string{
		`DELETE FROM audit_logs WHERE push_id IN (SELECT id FROM pushes WHERE user_id = $1)`,
		`DELETE FROM push_files WHERE push_id IN (SELECT id FROM pushes WHERE user_id = $1)`,
		`DELETE FROM pushes WHERE user_id = $1`,
		`DELETE FROM api_tokens WHERE user_id = $1`,
		`DELETE FROM sessions WHERE user_id = $1`,
		`DELETE FROM recovery_codes WHERE user_id = $1`,
		`DELETE FROM user_identities WHERE user_id = $1`,
	} {
		if _, err := tx.ExecContext(ctx, q, userID); err != nil {
			return nil, fmt.Errorf("delete user data: %w", err)
		}
	}
	n, err := rowsAffected(tx.ExecContext(ctx, `DELETE FROM users WHERE id = $1`, userID))
	if err != nil {
		return nil, fmt.Errorf("delete user: %w", err)
	}
	if n == 0 {
		return nil, push.Errorf(push.CodeNotFound, "no such user")
	}
	return blobs, nil
}

// userBlobs returns the blob ids of the files of userID's pushes, in tx.
func userBlobs(ctx context.Context, tx *Tx, userID int64) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT blob_id FROM push_files
		WHERE push_id IN (SELECT id FROM pushes WHERE user_id = $1) ORDER BY id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list user files: %w", err)
	}
	defer rows.Close()
	var blobs []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list user files: %w", err)
		}
		blobs = append(blobs, id)
	}
	return blobs, rows.Err()
}

// TokenCreated returns when the user's API token was made; zero when the
// user has none.
func (s *Store) TokenCreated(ctx context.Context, userID int64) (time.Time, error) {
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT created_at FROM api_tokens WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, userID).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("check token: %w", err)
	}
	return fromMS(at), nil
}

// HasToken reports whether the user has an API token.
func (s *Store) HasToken(ctx context.Context, userID int64) (bool, error) {
	at, err := s.TokenCreated(ctx, userID)
	return !at.IsZero(), err
}
