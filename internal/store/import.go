package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hush/internal/push"
)

// The importer (hush import-pwpush) copies another deployment's accounts
// and pushes in: each account and each push with everything it owns is one
// transaction of its own (maintain), and one that is already there — the
// account an import made for the user, a token key — is left alone, so
// running the import again adds only what is new. An account the import
// did not make is never given the pushes of a user with its address.

// Holdings counts the accounts and pushes a database holds.
func (s *Store) Holdings(ctx context.Context) (users, pushes int64, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM pushes)`).Scan(&users, &pushes)
	if err != nil {
		return 0, 0, fmt.Errorf("count users and pushes: %w", err)
	}
	return users, pushes, nil
}

// ImportedUser is an account copied from another deployment.
type ImportedUser struct {
	SourceID     int64  // the user's id in Password Pusher's database
	Email        string // stored lower-cased, as CreateUser does
	PasswordHash string
	TokenDigest  string // the API token's digest; "" for none
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// ImportedAccount is the account ImportUser found or made for a user.
type ImportedAccount struct {
	// ID is the account an import made for the user, which the user's
	// pushes go to; 0 when the user's address belongs to an account no
	// import made for that user (Taken).
	ID      int64
	Created bool // this call made the account
	Taken   bool // the address is another account's: the user's pushes have no account here
}

// ImportUser finds or adds the account of a user copied from another
// deployment. An account an import made for the user (by its SourceID) is
// returned as it is, whatever its email now. Else, when an account holds
// the email, it was made by someone else — a sign-up, hush user create —
// and is returned as Taken: the user's pushes must not go to it. Else the
// account and its API token are added, in one transaction, recording
// SourceID with it (docs/decisions.md, D28).
func (s *Store) ImportUser(ctx context.Context, u ImportedUser) (ImportedAccount, error) {
	if u.SourceID <= 0 {
		return ImportedAccount{}, fmt.Errorf("import user: no source id")
	}
	email := strings.ToLower(strings.TrimSpace(u.Email))
	insert := func(tx *Tx) (ImportedAccount, error) {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM users WHERE pwpush_user_id = $1`, u.SourceID).Scan(&id)
		if err == nil {
			return ImportedAccount{ID: id}, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return ImportedAccount{}, fmt.Errorf("check imported user: %w", err)
		}
		err = tx.QueryRowContext(ctx, `SELECT id FROM users WHERE email = $1`, email).Scan(&id)
		if err == nil {
			return ImportedAccount{Taken: true}, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return ImportedAccount{}, fmt.Errorf("check email: %w", err)
		}
		err = tx.QueryRowContext(ctx, `INSERT INTO users (email, password_hash, auth_epoch, created_at, updated_at, pwpush_user_id)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, email, u.PasswordHash, newEpoch(), ms(u.CreatedAt),
			ms(u.UpdatedAt), u.SourceID).Scan(&id)
		if err != nil {
			return ImportedAccount{}, fmt.Errorf("insert user: %w", err)
		}
		if u.TokenDigest != "" {
			_, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (user_id, digest, created_at) VALUES ($1, $2, $3)`,
				id, u.TokenDigest, ms(u.UpdatedAt))
			if isUniqueViolation(err) {
				return ImportedAccount{}, push.Errorf(push.CodeConflict, "the API token of %s is another account's", email)
			}
			if err != nil {
				return ImportedAccount{}, fmt.Errorf("insert token: %w", err)
			}
		}
		return ImportedAccount{ID: id, Created: true}, nil
	}
	r, err := maintain(ctx, s, insert)
	if isUniqueViolation(err) {
		// Another run added the user or the email meanwhile: now it is found.
		r, err = maintain(ctx, s, insert)
	}
	return r, err
}

// ImportPush adds p exactly as given — counts, flags and times included —
// with its audit entries in their order and its files, in one
// transaction, and sets p.ID. When a push with p's token key exists it
// changes nothing and returns false.
func (s *Store) ImportPush(ctx context.Context, p *push.Push, events []push.Event, files []*push.File) (bool, error) {
	id, err := maintain(ctx, s, func(tx *Tx) (int64, error) {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM pushes WHERE token_key = $1`, p.TokenKey).Scan(&id)
		if err == nil {
			return 0, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("check token key: %w", err)
		}
		if id, err = insertImported(ctx, tx, p, len(events), len(files)); err != nil {
			return 0, err
		}
		for _, ev := range events {
			if err := insertAudit(ctx, tx, id, ev); err != nil {
				return 0, err
			}
		}
		if _, err := insertFiles(ctx, tx, id, p.CreatedAt, files); err != nil {
			return 0, err
		}
		return id, nil
	})
	if isUniqueViolation(err) {
		return false, nil // imported meanwhile by another run
	}
	if err != nil || id == 0 {
		return false, err
	}
	p.ID, p.LogCount, p.FileCount = id, len(events), len(files)
	return true, nil
}

func insertImported(ctx context.Context, tx *Tx, p *push.Push, logs, files int) (int64, error) {
	var deletable sql.NullInt64
	if p.DeletableByViewer != nil {
		deletable = sql.NullInt64{Int64: int64(b2i(*p.DeletableByViewer)), Valid: true}
	}
	var expiredOn sql.NullInt64
	if !p.ExpiredOn.IsZero() {
		expiredOn = sql.NullInt64{Int64: ms(p.ExpiredOn), Valid: true}
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO pushes (token_key, token_sealed, kind, user_id, name, note, payload,
		passphrase_salt, expire_after_days, expire_after_views, deletable_by_viewer, retrieval_step, view_count,
		log_count, expired, deleted, expires_at, expired_on, created_at, updated_at, file_count)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) RETURNING id`,
		p.TokenKey, p.TokenSealed, string(p.Kind), nullInt(p.UserID), p.Name, p.NoteSealed, p.PayloadSealed,
		p.PassphraseSalt, p.ExpireAfterDays, p.ExpireAfterViews, deletable, b2i(p.RetrievalStep), p.ViewCount,
		logs, b2i(p.Expired), b2i(p.Deleted), ms(p.ExpiresAt()), expiredOn, ms(p.CreatedAt), ms(p.UpdatedAt),
		files).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert push: %w", err)
	}
	return id, nil
}

// ReplacePasswordHash swaps a user's password hash for another hash of the
// same password (a stronger algorithm), if the hash is still old. The auth
// epoch and the sessions stay: the password did not change. It reports
// whether it replaced the hash.
func (s *Store) ReplacePasswordHash(ctx context.Context, userID int64, old, hash string, now time.Time) (bool, error) {
	n, err := write(ctx, s, func(tx *Tx) (int64, error) {
		return rowsAffected(tx.ExecContext(ctx, `UPDATE users SET password_hash = $1, updated_at = $2
			WHERE id = $3 AND password_hash = $4`, hash, ms(now), userID, old))
	})
	if err != nil {
		return false, fmt.Errorf("replace password hash: %w", err)
	}
	return n == 1, nil
}

// HasBcryptHashes reports whether any account still has a bcrypt password
// hash (imported, not yet replaced at a sign-in).
func (s *Store) HasBcryptHashes(ctx context.Context) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM users WHERE password_hash LIKE '$2%' LIMIT 1`).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look for bcrypt hashes: %w", err)
	}
	return true, nil
}
