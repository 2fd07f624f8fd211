package pwpush

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"
)

// Kind is a push's kind, Password Pusher's pushes.kind enum.
type Kind int

// The values of pushes.kind (enum :kind, [:text, :file, :url, :qr]).
const (
	KindText Kind = 0
	KindFile Kind = 1
	KindURL  Kind = 2
	KindQR   Kind = 3
)

// String returns the kind's name in Password Pusher (and Hush): text,
// file, url or qr; "kind(N)" for a value Password Pusher does not define.
func (k Kind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindFile:
		return "file"
	case KindURL:
		return "url"
	case KindQR:
		return "qr"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Push is a row of Password Pusher's pushes table, with what its model
// derives from the audit log.
type Push struct {
	ID               int64
	URLToken         string // the secret link's token, as stored
	Kind             Kind
	ExpireAfterDays  int // NULL reads 0; Password Pusher sets both at creation
	ExpireAfterViews int
	// Expired is the stored flag. Password Pusher also expires a push whose
	// days or views ran out the next time it is retrieved or swept, so a
	// push can be past its limits with Expired still false: see Live.
	Expired   bool
	ExpiredOn time.Time // zero when NULL
	// Deleted is true when the audit log holds an expire entry: an owner,
	// a viewer (deletable_by_viewer) or an admin deleted the push. Password
	// Pusher has no deleted column since 1.56; it derives this the same way.
	Deleted           bool
	DeletableByViewer bool // NULL (url pushes from the legacy tables) reads false, as Password Pusher treats it
	RetrievalStep     bool
	UserID            int64 // the owner; 0 for an anonymous push
	Name              string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// ViewCount is the number of views Password Pusher counts against
	// ExpireAfterViews: audit log entries of kind view or failed_view.
	// Owner and admin views count nothing.
	ViewCount int

	// Decrypted is true when the secret fields below were decrypted, that
	// is when the reader was given Keys and every non-NULL one opened.
	Decrypted bool
	// Payload is the text, the URL or the QR code's content (Valid false:
	// NULL, as for an expired push, whose payload Password Pusher erases).
	// Note and Passphrase are "" when the push has none; Password Pusher
	// writes "" for them at creation, and erases the passphrase on expiry.
	Payload    sql.Null[string]
	Note       sql.Null[string]
	Passphrase sql.Null[string]
}

// ViewsRemaining is max(ExpireAfterViews − ViewCount, 0), as Password Pusher
// computes it.
func (p Push) ViewsRemaining() int { return max(p.ExpireAfterViews-p.ViewCount, 0) }

// DaysRemaining is max(ExpireAfterDays − whole days since creation, 0) at
// now, as Password Pusher computes it.
func (p Push) DaysRemaining(now time.Time) int {
	old := int(now.Sub(p.CreatedAt) / (24 * time.Hour))
	return max(p.ExpireAfterDays-old, 0)
}

// ExpiresAt is when the push's days run out: ExpireAfterDays whole days
// after its creation.
func (p Push) ExpiresAt() time.Time {
	return p.CreatedAt.Add(time.Duration(p.ExpireAfterDays) * 24 * time.Hour)
}

// Live reports whether Password Pusher would still show the push at now:
// not expired, with days and views remaining.
func (p Push) Live(now time.Time) bool {
	return !p.Expired && p.DaysRemaining(now) > 0 && p.ViewsRemaining() > 0
}

// DecryptError is the error of one row whose encrypted column did not open
// (it wraps ErrDecrypt or ErrNotCiphertext). It names the row and column,
// never the value.
type DecryptError struct {
	Table  string
	Column string
	ID     int64
	Err    error
}

func (e *DecryptError) Error() string {
	return fmt.Sprintf("%s %d: %s: %v", e.Table, e.ID, e.Column, e.Err)
}

func (e *DecryptError) Unwrap() error { return e.Err }

// pushColumns are the columns of pushes the readers use.
var pushColumns = []string{"id", "url_token", "kind", "expire_after_days", "expire_after_views", "expired",
	"expired_on", "deletable_by_viewer", "retrieval_step", "user_id", "name", "created_at", "updated_at",
	"payload_ciphertext", "note_ciphertext", "passphrase_ciphertext"}

// Audit log kinds that count as views, and the one that marks a deletion.
const (
	countedKinds = "1, 2" // view, failed_view
	expireKind   = "3"
)

const pushQuery = `SELECT p.id, p.url_token, p.kind, p.expire_after_days, p.expire_after_views, p.expired,
	p.expired_on, p.deletable_by_viewer, p.retrieval_step, p.user_id, p.name, p.created_at, p.updated_at,
	p.payload_ciphertext, p.note_ciphertext, p.passphrase_ciphertext,
	(SELECT count(*) FROM audit_logs a WHERE a.push_id = p.id AND a.kind IN (` + countedKinds + `)),
	(SELECT count(*) FROM audit_logs a WHERE a.push_id = p.id AND a.kind = ` + expireKind + `)
	FROM pushes p`

// Pushes streams every push in id order, expired ones included. With keys
// the payload, note and passphrase are decrypted; with nil keys they are
// left NULL and Decrypted is false. A column that does not open yields the
// push (its secret fields NULL) with a *DecryptError, and the iteration
// goes on if the loop does; any other error ends it.
func (s *Source) Pushes(ctx context.Context, keys *Keys) iter.Seq2[Push, error] {
	return stream(ctx, s, "read pushes", pushQuery+` ORDER BY p.id`, nil, func(r *sql.Rows) (Push, error) {
		return scanPush(r, keys)
	})
}

// Push reads the push whose url_token is token, as Pushes does; it
// returns ErrNotFound when there is none.
func (s *Source) Push(ctx context.Context, keys *Keys, token string) (Push, error) {
	for p, err := range stream(ctx, s, "read push", pushQuery+` WHERE p.url_token = $1`, []any{token},
		func(r *sql.Rows) (Push, error) { return scanPush(r, keys) }) {
		return p, err
	}
	return Push{}, ErrNotFound
}

// ErrNotFound is returned for a row that does not exist.
var ErrNotFound = errors.New("not found")

func scanPush(r *sql.Rows, keys *Keys) (Push, error) {
	var (
		p                                          Push
		days, views, kind, user, counted, expiries intCol
		expired, deletable, step                   boolCol
		expiredOn, created, updated                timeCol
		token, name, payload, note, passphrase     sql.NullString
	)
	if err := r.Scan(&p.ID, &token, &kind, &days, &views, &expired, &expiredOn, &deletable, &step, &user, &name,
		&created, &updated, &payload, &note, &passphrase, &counted, &expiries); err != nil {
		return Push{}, err
	}
	p.URLToken, p.Kind, p.Name = token.String, Kind(kind.v), name.String
	p.ExpireAfterDays, p.ExpireAfterViews = int(days.v), int(views.v)
	p.Expired, p.DeletableByViewer, p.RetrievalStep = expired.v, deletable.v, step.v
	p.ExpiredOn, p.CreatedAt, p.UpdatedAt = expiredOn.v, created.v, updated.v
	p.UserID, p.ViewCount, p.Deleted = user.v, int(counted.v), expiries.v > 0
	if keys == nil {
		return p, nil
	}
	var out [3]sql.Null[string]
	for i, c := range []struct {
		col string
		v   sql.NullString
	}{{"payload_ciphertext", payload}, {"note_ciphertext", note}, {"passphrase_ciphertext", passphrase}} {
		if !c.v.Valid {
			continue
		}
		plain, err := keys.Decrypt("pushes", c.col, c.v.String)
		if err != nil {
			return p, &DecryptError{Table: "pushes", Column: c.col, ID: p.ID, Err: err}
		}
		out[i] = sql.Null[string]{V: plain, Valid: true}
	}
	p.Payload, p.Note, p.Passphrase, p.Decrypted = out[0], out[1], out[2], true
	return p, nil
}

// CheckKeys tells whether keys open this database's secrets: it decrypts
// the encrypted columns of the newest push that has any. It returns nil
// when they open or when no push holds an encrypted value, and an error
// wrapping ErrDecrypt when they do not; so an importer given no key can
// try DefaultMasterKey first and ask for the real key only if that fails.
func (s *Source) CheckKeys(ctx context.Context, keys *Keys) error {
	var id int64
	var payload, note, passphrase sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT id, payload_ciphertext, note_ciphertext, passphrase_ciphertext
		FROM pushes WHERE COALESCE(payload_ciphertext, '') <> '' OR COALESCE(note_ciphertext, '') <> ''
			OR COALESCE(passphrase_ciphertext, '') <> ''
		ORDER BY id DESC LIMIT 1`).Scan(&id, &payload, &note, &passphrase)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read pushes: %w", err)
	}
	for _, c := range []struct {
		col string
		v   sql.NullString
	}{{"payload_ciphertext", payload}, {"note_ciphertext", note}, {"passphrase_ciphertext", passphrase}} {
		if _, err := keys.Decrypt("pushes", c.col, c.v.String); err != nil {
			return &DecryptError{Table: "pushes", Column: c.col, ID: id, Err: err}
		}
	}
	return nil
}

// stream runs a query and yields each row as scan reads it. A scan error
// that is a *DecryptError is yielded with its row and the iteration goes
// on; any other error is yielded last.
func stream[T any](ctx context.Context, s *Source, what, query string, args []any,
	scan func(*sql.Rows) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		rows, err := s.db.QueryContext(ctx, query, args...)
		if err != nil {
			yield(zero, fmt.Errorf("%s: %w", what, err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			var de *DecryptError
			if err != nil && !errors.As(err, &de) {
				yield(zero, fmt.Errorf("%s: %w", what, err))
				return
			}
			if !yield(v, err) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(zero, fmt.Errorf("%s: %w", what, err))
		}
	}
}
