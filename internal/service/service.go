// Package service is the life of a push, shared by the JSON API and the web
// pages: create, retrieve (claiming views), expire, audit and list. It
// speaks in domain values and push.Error codes, never HTTP.
package service

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"hush/internal/blob"
	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Service is the one door into Hush's rules: pushes (create, retrieve,
// expire, audit, lists, files, sweeps) and accounts (sign-up, sign-in,
// passwords, API tokens, web sessions). The HTTP packages speak to it only;
// it speaks in domain values and push.Error codes, never HTTP. Build it
// with New; nothing is set after that.
type Service struct {
	store       *store.Store
	keys        *secure.Keyring
	argon       *secure.Argon // passphrase key derivation and password hashing
	files       blob.FileStore
	clock       func() time.Time
	observer    func(event string)
	settings    push.Settings
	maxFileSize int64
	maxPushSize int64
	log         *slog.Logger

	requireTwoFactor bool // every account must sign in with a second factor

	sweep        sweepState
	faults       faultLog
	ready        readyCache
	bcryptHashes bcryptState // whether imported bcrypt password hashes are left (passwords.go)

	mail       Mailer                    // nil: no email
	origin     string                    // the instance's fixed origin, for messages sent without a request
	deliveries func(kind, result string) // told of each outbox delivery attempt
	kick       chan struct{}             // wakes the outbox worker of this instance
	sso        atomic.Pointer[ssoState]  // nil: single sign-on is off (sso.go)
	hooks      WebhookPoster             // nil: no webhooks
	// hookAllowPrivate lets endpoints name private addresses and http
	// (HUSH_WEBHOOK_ALLOW_PRIVATE).
	hookAllowPrivate bool
	accounts         AccountRules
	holdsKeyFn       func(*push.Push) error // s.holdsKey, made once (keyfault.go)
	keyLogged        atomic.Int64           // when keyFault last logged, Unix nanoseconds
}

// Deps are what a Service works with.
type Deps struct {
	Store *store.Store
	Keys  *secure.Keyring
	Argon *secure.Argon
	// Files keeps attachment contents; nil turns attachments off.
	Files blob.FileStore
	// Now is the clock; nil is the wall clock.
	Now func() time.Time
	// Observe, when set, is told of push life events (EventCreated, …).
	Observe func(event string)
	// Log receives what an operator must know (storage faults, files that
	// could not be deleted); nil discards it.
	Log *slog.Logger
	// Mail sends email (mail.Sender); nil: Hush sends none, and what needs
	// email is off.
	Mail Mailer
	// Origin is the instance's fixed origin (HUSH_BASE_URL), named in the
	// messages sent without a request (receipts); "" when it has none.
	Origin string
	// Deliveries, when set, is told of each outbox delivery attempt: the
	// message's kind and sent, retry, failed or dropped (for metrics).
	Deliveries func(kind, result string)
	// Webhooks delivers webhook requests (hush/internal/webhook); nil:
	// webhooks are off.
	Webhooks WebhookPoster
	// WebhookAllowPrivate lets endpoints be http URLs and name private
	// addresses (the poster must allow them too).
	WebhookAllowPrivate bool
}

// Limits are the instance's rules for pushes and accounts.
type Limits struct {
	Settings    push.Settings
	MaxFileSize int64 // largest attached file in bytes; 0: DefaultMaxFileSize
	MaxPushSize int64 // largest total of a push's files; 0: DefaultMaxPushSize
	Accounts    AccountRules
	// RequireTwoFactor makes every account set up a second factor before
	// anything else on the web, and refuses the API tokens of accounts
	// without one (PWP__REQUIRE_MFA).
	RequireTwoFactor bool
}

// AccountRules are the instance's rules for new accounts.
type AccountRules struct {
	// ConfirmEmail makes a new account confirm its address, by a link
	// emailed to it, before it signs in on the web (needs Deps.Mail).
	ConfirmEmail bool
	// SignUpEmail, when set, is what the address of a new account must
	// match to sign up (PWP__SIGNUP_EMAIL_REGEXP).
	SignUpEmail *regexp.Regexp
}

// New returns a Service.
func New(d Deps, l Limits) *Service {
	s := &Service{store: d.Store, keys: d.Keys, argon: d.Argon, files: d.Files, clock: d.Now,
		observer: d.Observe, settings: l.Settings, maxFileSize: l.MaxFileSize, maxPushSize: l.MaxPushSize, log: d.Log,
		mail: d.Mail, origin: d.Origin, deliveries: d.Deliveries, kick: make(chan struct{}, 1), accounts: l.Accounts,
		requireTwoFactor: l.RequireTwoFactor, hooks: d.Webhooks, hookAllowPrivate: d.WebhookAllowPrivate}
	s.holdsKeyFn = s.holdsKey
	if s.hooks != nil && s.store != nil {
		s.store.OnHooksQueued(s.wake)
	}
	if s.mail == nil {
		// What needs email is off without a way to send it.
		s.settings.NotifyByEmail, s.settings.Receipts, s.accounts.ConfirmEmail = false, false, false
	}
	if s.log == nil {
		s.log = discardLogger
	}
	if s.settings.Locales == nil {
		// push_locale names a shipped language (docs/decisions.md, D53).
		s.settings.Locales = i18n.Codes()
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.maxFileSize <= 0 {
		s.maxFileSize = DefaultMaxFileSize
	}
	if s.maxPushSize <= 0 {
		s.maxPushSize = DefaultMaxPushSize
	}
	return s
}

// Now is the service's clock, in UTC.
func (s *Service) Now() time.Time { return s.clock().UTC() }

// Settings are the instance's push settings.
func (s *Service) Settings() push.Settings { return s.settings }

// MaxFileSize and MaxPushSize bound attachments: a file, and a push's files
// together, in bytes.
func (s *Service) MaxFileSize() int64 { return s.maxFileSize }

// MaxPushSize is the largest total of a push's files, in bytes.
func (s *Service) MaxPushSize() int64 { return s.maxPushSize }

// FilesEnabled reports whether pushes may carry files: file pushes are on
// and a file store is configured.
func (s *Service) FilesEnabled() bool { return s.settings.EnableFilePushes && s.files != nil }

// MayAttach is the one rule for attaching files: a signed-in caller, on an
// instance where files are enabled.
func (s *Service) MayAttach(u *push.User) bool { return u != nil && s.FilesEnabled() }

func (s *Service) event(kind push.EventKind, u *push.User, m push.Meta, now time.Time) push.Event {
	return push.Event{Kind: kind, IP: m.IP, UserAgent: m.UserAgent, Referrer: m.Referrer, UserID: UserID(u), CreatedAt: now}
}

// UserID is the id of u, or 0 for an anonymous caller.
func UserID(u *push.User) int64 {
	if u == nil {
		return 0
	}
	return u.ID
}

// Messages of Password Pusher that clients match on.
const (
	MsgSignIn       = "You need to sign in or sign up before continuing."
	MsgNotOwner     = "That push doesn't belong to you."
	MsgNotDeletable = "That push is not deletable by viewers."
	MsgTooManyGuess = "Too many passphrase attempts. Please try again in a minute."
)

// ErrPassphrase is returned when a passphrase is missing or wrong.
var ErrPassphrase = &push.Error{Code: push.CodeUnauthenticated, Message: "That passphrase is incorrect."}

// errWrongPassphrase marks a passphrase that does not open the payload.
var errWrongPassphrase = errors.New("wrong passphrase")

// Lookup loads the push a url_token names, without any side effect. The
// database knows the push by the token's key only (secure.TokenKey); the
// returned push carries the token in memory.
func (s *Service) Lookup(ctx context.Context, token string) (*push.Push, error) {
	if !ValidToken(token) {
		return nil, push.ErrNotFound
	}
	p, err := s.store.PushByKey(ctx, secure.TokenKey(token))
	if err != nil {
		return nil, err
	}
	p.URLToken = token
	return p, nil
}

// reload reads p again after a change, keeping its token.
func (s *Service) reload(ctx context.Context, p *push.Push) (*push.Push, error) {
	q, err := s.store.PushByKey(ctx, p.TokenKey)
	if err != nil {
		return nil, err
	}
	q.URLToken = p.URLToken
	return q, nil
}

// ValidToken reports whether token could name a push: tokens never hold
// "/", "." or NUL, are valid UTF-8 (PostgreSQL refuses anything else) and
// are bounded in length.
func ValidToken(token string) bool {
	if token == "" || len(token) > 128 || !utf8.ValidString(token) {
		return false
	}
	for i := 0; i < len(token); i++ {
		switch token[i] {
		case '/', '.', '?', 0:
			return false
		}
	}
	return true
}
