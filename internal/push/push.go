package push

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Day is the length of a push's day limit.
const Day = 24 * time.Hour

// Push is a stored push. Sealed fields hold ciphertext only.
//
// The database never holds the url_token: TokenKey names the row (the
// token's time prefix and digest, secure.TokenKey), and URLToken is filled
// in memory from the request that presented the token, or, for an owner's
// lists, from TokenSealed.
type Push struct {
	ID                int64
	URLToken          string // in memory only; "" when not known
	TokenKey          string
	TokenSealed       []byte // owned pushes: the url_token sealed under the master key
	Kind              Kind
	UserID            int64 // 0 for an anonymous push
	Name              string
	NoteSealed        []byte // nil when the note is empty
	PayloadSealed     []byte // nil once expired
	PassphraseSalt    []byte // non-nil while a passphrase protects the payload
	HasPassphrase     bool
	ExpireAfterDays   int
	ExpireAfter       time.Duration // a time limit shorter than a day (a sub-day duration, docs/decisions.md D4); 0: ExpireAfterDays days
	ExpireAfterViews  int
	DeletableByViewer *bool // nil for url pushes
	RetrievalStep     bool
	ViewCount         int      // view and failed_view events
	LogCount          int      // audit entries written
	FileCount         int      // attached files
	Receipts          Receipts // what the owner is emailed about
	NotifyCount       int      // recipients the link was emailed to
	Locale            string   // the language of its recipient pages and emails (push_locale); "": the recipient's own
	Expired           bool
	Deleted           bool // expired by hand
	ExpiredOn         time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// ExpiresAt is the instant the time limit is reached: created_at +
// ExpireAfter for a sub-day duration, else created_at + N×24h.
func (p *Push) ExpiresAt() time.Time {
	if p.ExpireAfter > 0 {
		return p.CreatedAt.Add(p.ExpireAfter)
	}
	return p.CreatedAt.Add(time.Duration(p.ExpireAfterDays) * Day)
}

// DaysRemaining is the time left until ExpiresAt in days, a part of a day
// counting as one, and 0 once it is reached: for a push of N days that is
// Password Pusher's max(N − whole days since creation, 0); a push of 15
// minutes has 1 until its 15 minutes are over. A clock before the creation
// counts as the creation.
func (p *Push) DaysRemaining(now time.Time) int {
	if now.Before(p.CreatedAt) {
		now = p.CreatedAt
	}
	left := p.ExpiresAt().Sub(now)
	if left <= 0 {
		return 0
	}
	return int((left + Day - 1) / Day)
}

// ViewsRemaining is max(expire_after_views − counted views, 0).
func (p *Push) ViewsRemaining() int {
	return max(p.ExpireAfterViews-p.ViewCount, 0)
}

// LimitsReached reports whether the push should be expired now.
func (p *Push) LimitsReached(now time.Time) bool {
	return !now.Before(p.ExpiresAt()) || p.ViewCount >= p.ExpireAfterViews
}

// SecretURL is the link of a push at origin (scheme://host): /p/<token>,
// with /r after it when the push has the retrieval step.
func SecretURL(origin, token string, retrievalStep bool) string {
	return LocaleURL(origin, "", token, retrievalStep)
}

// LocaleURL is SecretURL under the path prefix of a language
// (<origin>/de/p/<token>); locale "" leaves it out (docs/decisions.md, D53).
func LocaleURL(origin, locale, token string, retrievalStep bool) string {
	if locale != "" {
		origin += "/" + locale
	}
	u := origin + "/p/" + token
	if retrievalStep {
		u += "/r"
	}
	return u
}

// OwnedBy reports whether userID (0 = anonymous) owns the push.
func (p *Push) OwnedBy(userID int64) bool {
	return userID != 0 && p.UserID == userID
}

// User is an account.
type User struct {
	ID           int64
	Email        string
	PasswordHash string
	// AuthEpoch is a random value that changes whenever the account's
	// credentials do (password change, sessions revoked). A web session
	// records the epoch it was signed in with and ends when they differ.
	AuthEpoch string
	// ConfirmPending is true while the account's address awaits
	// confirmation: it cannot sign in on the web.
	ConfirmPending bool
	// ReceiptsDefault are the receipts its new pushes ask for unless told
	// otherwise.
	ReceiptsDefault Receipts
	// Language is the language the account chose for its pages; "": its
	// browser's (docs/decisions.md, D53).
	Language  string
	CreatedAt time.Time
	// Admin is true for an account that may use the admin pages.
	Admin bool
	// DisabledAt is when an admin disabled the account; zero while it is
	// enabled. A disabled account signs in nowhere.
	DisabledAt time.Time
	// TwoFactorAt is when the account turned its second factor (TOTP) on;
	// zero while it is off.
	TwoFactorAt time.Time
}

// Disabled reports whether an admin disabled the account.
func (u *User) Disabled() bool { return !u.DisabledAt.IsZero() }

// HasTwoFactor reports whether the account signs in with a second factor.
func (u *User) HasTwoFactor() bool { return !u.TwoFactorAt.IsZero() }

// EventKind is the kind of an audit entry (Password Pusher's integer enum).
type EventKind int

// Audit event kinds, with Password Pusher's integer values.
const (
	EventCreation          EventKind = 0
	EventView              EventKind = 1
	EventFailedView        EventKind = 2
	EventExpire            EventKind = 3
	EventFailedPassphrase  EventKind = 4
	EventAdminView         EventKind = 5
	EventOwnerView         EventKind = 6
	EventCreationEmailSend EventKind = 8  // the link was queued to be emailed to recipients
	EventFileUpload        EventKind = 9  // Hush: a file attached at creation
	EventFileDownload      EventKind = 10 // Hush: a file downloaded; does not count as a view
)

var eventNames = map[EventKind]string{
	EventCreation:          "creation",
	EventView:              "view",
	EventFailedView:        "failed_view",
	EventExpire:            "expire",
	EventFailedPassphrase:  "failed_passphrase",
	EventAdminView:         "admin_view",
	EventOwnerView:         "owner_view",
	EventCreationEmailSend: "creation_email_send",
	EventFileUpload:        "file_upload",
	EventFileDownload:      "file_download",
}

func (k EventKind) String() string {
	if n, ok := eventNames[k]; ok {
		return n
	}
	return "unknown"
}

// MaxAuditLogs is the audit cap per push. Entries that count no view
// (owner views, failed passphrases, downloads, retrievals after expiry) are
// logged only while room is left for every view the push still has and for
// its expiry, which are always logged: the cap never ends a push.
const MaxAuditLogs = 2000

// Meta are the facts about a request that the audit log records.
type Meta struct {
	IP        string
	UserAgent string
	Referrer  string
}

// Event is one audit entry.
type Event struct {
	Kind      EventKind
	IP        string
	UserAgent string
	Referrer  string
	UserID    int64
	CreatedAt time.Time
}

// StorableText reports whether s can be stored in a text column of either
// engine: valid UTF-8 without a NUL character, which PostgreSQL's text
// refuses (docs/decisions.md, D61).
func StorableText(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

// Truncate255 cuts s to at most 255 characters, as audit fields are stored,
// and makes it storable text (StorableText): a byte that is not UTF-8 and a
// NUL become U+FFFD. Such text comes from a request's headers or a remote
// server's answer, which are recorded, not refused.
func Truncate255(s string) string {
	n := 0
	for i, r := range s {
		if n == 255 {
			return s[:i]
		}
		if r == 0 || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return Truncate255(strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD"))
		}
		n++
	}
	return s
}

// File is an attachment of a push. Its contents live sealed in the file
// store under BlobID, encrypted with a random file key; the file key is
// sealed like the payload (under the passphrase too, when there is one).
type File struct {
	ID         int64
	PushID     int64
	Position   int
	BlobID     string
	MetaSealed []byte // filename and content type, sealed under the file key
	KeySealed  []byte // nil once the push expired
	Size       int64
	PurgeAt    time.Time // when the contents go; zero while the push is active
	CreatedAt  time.Time
}

// FileLinkTTL is how long a download link stays valid. Contents of an
// expired push are kept that long after expiry, so links handed out with the
// last view still work (docs/decisions.md, D14).
const FileLinkTTL = 5 * time.Minute
