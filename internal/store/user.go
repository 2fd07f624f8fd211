package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"hush/internal/push"
)

// newEpoch returns a fresh random auth epoch (see push.User.AuthEpoch).
func newEpoch() string {
	return rand.Text()
}

// CreateUser adds an account with a fresh auth epoch. The email is stored
// lower-cased; a duplicate is reported as push.CodeConflict. Ids are never
// reused (AUTOINCREMENT on SQLite, an identity column on PostgreSQL), so a
// new account can never inherit what named a deleted one.
func (s *Store) CreateUser(ctx context.Context, email, passwordHash string, now time.Time) (*push.User, error) {
	return s.createUser(ctx, email, passwordHash, now, nil, nil)
}

// createUser is CreateUser; with confirm, the account awaits confirmation
// and the message is queued in the same transaction. With taken, an
// address that has an account queues taken in that transaction instead,
// and the answer is still push.CodeConflict.
func (s *Store) createUser(ctx context.Context, email, passwordHash string, now time.Time, confirm, taken *OutboxMessage) (*push.User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	u := &push.User{Email: email, PasswordHash: passwordHash, AuthEpoch: newEpoch(), CreatedAt: now, ConfirmPending: confirm != nil}
	id, err := write(ctx, s, func(tx *Tx) (int64, error) {
		id, err := insertUser(ctx, tx, u)
		if push.ErrorCode(err) == push.CodeConflict && taken != nil {
			return 0, insertOutbox(ctx, tx, *taken, now)
		}
		if err != nil || confirm == nil {
			return id, err
		}
		return id, insertOutbox(ctx, tx, *confirm, now)
	})
	if err == nil && id == 0 {
		err = errEmailTaken(email)
	}
	if err != nil {
		return nil, err
	}
	u.ID = id
	return u, nil
}

// errEmailTaken is the conflict of an address that has an account.
func errEmailTaken(email string) error {
	return push.Errorf(push.CodeConflict, "a user with email %s already exists", email)
}

// insertUser adds the account u (its email lower-cased already) in tx and
// returns its id; push.CodeConflict when the email is taken.
func insertUser(ctx context.Context, tx *Tx, u *push.User) (int64, error) {
	var exists int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM users WHERE email = $1`, u.Email).Scan(&exists)
	if err == nil {
		return 0, errEmailTaken(u.Email)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("check email: %w", err)
	}
	// An insert of the same address by another instance since the look
	// above inserts nothing rather than failing: a failed statement would
	// end a PostgreSQL transaction that may still queue a message.
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO users (email, password_hash, auth_epoch, created_at, updated_at, confirm_pending)
		VALUES ($1, $2, $3, $4, $4, $5) ON CONFLICT (email) DO NOTHING RETURNING id`,
		u.Email, u.PasswordHash, u.AuthEpoch, ms(u.CreatedAt), b2i(u.ConfirmPending)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errEmailTaken(u.Email)
	}
	return id, err
}

// UserByEmail finds an account; push.CodeNotFound when there is none.
func (s *Store) UserByEmail(ctx context.Context, email string) (*push.User, error) {
	return s.user(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1`,
		strings.ToLower(strings.TrimSpace(email)))
}

// UserByTokenDigest finds the owner of an API token by its SHA-256 digest.
// A disabled account's token names nobody.
func (s *Store) UserByTokenDigest(ctx context.Context, digest string) (*push.User, error) {
	return s.user(ctx, `SELECT `+userColumnsOf("u")+`
		FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.digest = $1 AND u.disabled_at IS NULL`, digest)
}

// userColumns are what a push.User is read from (scanUser).
const userColumns = `id, email, password_hash, auth_epoch, created_at, confirm_pending, receipts_default, admin, disabled_at, totp_enabled_at, preferred_language`

// userColumnsOf is userColumns of the table aliased a.
func userColumnsOf(a string) string {
	return a + "." + strings.ReplaceAll(userColumns, ", ", ", "+a+".")
}

// scanUser reads userColumns, then into extra the columns that follow them.
func scanUser(row scanner, extra ...any) (*push.User, error) {
	var (
		u                 push.User
		at                int64
		pending, admin    int
		disabled, twoFrom sql.NullInt64
	)
	dest := append([]any{&u.ID, &u.Email, &u.PasswordHash, &u.AuthEpoch, &at, &pending, &u.ReceiptsDefault, &admin, &disabled, &twoFrom, &u.Language}, extra...)
	err := row.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, push.Errorf(push.CodeNotFound, "no such user")
	}
	if err != nil {
		return nil, fmt.Errorf("load user: %w", err)
	}
	u.CreatedAt, u.ConfirmPending, u.Admin = fromMS(at), pending != 0, admin == 1
	if disabled.Valid {
		u.DisabledAt = fromMS(disabled.Int64)
	}
	if twoFrom.Valid {
		u.TwoFactorAt = fromMS(twoFrom.Int64)
	}
	return &u, nil
}

func (s *Store) user(ctx context.Context, query string, arg any) (*push.User, error) {
	return scanUser(s.r.QueryRowContext(ctx, query, arg))
}

// ReplaceToken makes digest the user's only API token: earlier tokens die.
func (s *Store) ReplaceToken(ctx context.Context, userID int64, digest string, now time.Time) error {
	_, err := write(ctx, s, func(tx *Tx) (none, error) { return none{}, replaceToken(ctx, tx, userID, digest, now) })
	return err
}

// replaceToken is ReplaceToken in tx.
func replaceToken(ctx context.Context, tx *Tx, userID int64, digest string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM api_tokens WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("revoke tokens: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (user_id, digest, created_at) VALUES ($1, $2, $3)`,
		userID, digest, ms(now)); err != nil {
		return fmt.Errorf("insert token: %w", err)
	}
	return nil
}
