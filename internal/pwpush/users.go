package pwpush

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
	"time"
)

// User is a row of Password Pusher's users table (Devise).
type User struct {
	ID    int64
	Email string
	// EncryptedPassword is Devise's bcrypt hash ("$2a$12$…"); "" if none.
	EncryptedPassword string
	// AuthenticationToken is the API token, stored in plaintext (Devise's
	// friendly_token, 20 characters); "" when the user has none.
	AuthenticationToken string
	Admin               bool
	// ConfirmedAt is when the email address was confirmed; zero when it
	// never was. Password Pusher requires confirmation only when it runs
	// with account emails enabled, so a zero here is common and harmless.
	ConfirmedAt      time.Time
	UnconfirmedEmail string    // a pending change of address
	LockedAt         time.Time // zero unless Devise's lockable locked the account
	FailedAttempts   int
	SignInCount      int
	LastSignInAt     time.Time
	// PreferredLanguage is a locale such as "en" or "pt-BR"; "" for the
	// default (and in databases older than the column, 2024).
	PreferredLanguage string
	// OTPRequired is true when the user signs in with a TOTP code too
	// (Password Pusher 2026 and later; false before).
	OTPRequired bool
	// OTPSecret is the decrypted base32 TOTP secret (users.otp_secret_ciphertext,
	// Lockbox); "" when none, or when the reader was given no keys.
	OTPSecret string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// optionalUserColumns are users columns that some supported versions lack.
var optionalUserColumns = []string{"admin", "confirmed_at", "unconfirmed_email", "locked_at", "failed_attempts",
	"sign_in_count", "last_sign_in_at", "preferred_language", "otp_required_for_login", "otp_secret_ciphertext",
	"created_at", "updated_at"}

// userQuery selects every column User needs, NULL for the ones this
// database lacks.
func (s *Source) userQuery() string {
	cols := []string{"id", "email", "encrypted_password", "authentication_token"}
	for _, c := range optionalUserColumns {
		if s.userCols[c] {
			cols = append(cols, c)
		} else {
			cols = append(cols, "NULL AS "+c)
		}
	}
	return `SELECT ` + strings.Join(cols, ", ") + ` FROM users`
}

// Users streams every user in id order. With keys the TOTP secret is
// decrypted; one that does not open yields the user (OTPSecret "") with a
// *DecryptError, and the iteration goes on if the loop does.
func (s *Source) Users(ctx context.Context, keys *Keys) iter.Seq2[User, error] {
	return stream(ctx, s, "read users", s.userQuery()+` ORDER BY id`, nil, func(r *sql.Rows) (User, error) {
		return scanUser(r, keys)
	})
}

func scanUser(r *sql.Rows, keys *Keys) (User, error) {
	var (
		u                                         User
		email, hash, token, unconfirmed, lang, ct sql.NullString
		admin, otp                                boolCol
		failed, signIns                           intCol
		confirmed, locked, lastSignIn, created    timeCol
		updated                                   timeCol
	)
	if err := r.Scan(&u.ID, &email, &hash, &token, &admin, &confirmed, &unconfirmed, &locked, &failed, &signIns,
		&lastSignIn, &lang, &otp, &ct, &created, &updated); err != nil {
		return User{}, err
	}
	u.Email, u.EncryptedPassword, u.AuthenticationToken = email.String, hash.String, token.String
	u.Admin, u.OTPRequired = admin.v, otp.v
	u.ConfirmedAt, u.LockedAt, u.LastSignInAt = confirmed.v, locked.v, lastSignIn.v
	u.CreatedAt, u.UpdatedAt = created.v, updated.v
	u.UnconfirmedEmail, u.PreferredLanguage = unconfirmed.String, lang.String
	u.FailedAttempts, u.SignInCount = int(failed.v), int(signIns.v)
	if keys != nil && ct.String != "" {
		secret, err := keys.Decrypt("users", "otp_secret_ciphertext", ct.String)
		if err != nil {
			return u, &DecryptError{Table: "users", Column: "otp_secret_ciphertext", ID: u.ID, Err: err}
		}
		u.OTPSecret = secret
	}
	return u, nil
}

// Counts are the numbers of rows an import reads, for progress reports.
type Counts struct {
	Users     int64
	Pushes    int64
	AuditLogs int64
	Files     int64 // attachments of pushes
}

// Count counts the rows each reader yields.
func (s *Source) Count(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM pushes),
		(SELECT count(*) FROM audit_logs),
		(SELECT count(*) FROM active_storage_attachments WHERE record_type = 'Push' AND name = 'files')`).
		Scan(&c.Users, &c.Pushes, &c.AuditLogs, &c.Files)
	if err != nil {
		return Counts{}, fmt.Errorf("count rows: %w", err)
	}
	return c, nil
}
