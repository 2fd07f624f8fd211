// Package service is the life of a push, shared by the JSON API and the web
// pages: create, retrieve (claiming views), expire, audit and list. It
// speaks in domain values and push.Error codes, never HTTP.
package service

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"hush/internal/blob"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Service performs push operations. Build it with New.
type Service struct {
	Store    *store.Store
	Keys     *secure.Keyring
	Argon    *secure.Argon // passphrase key derivation
	Settings push.Settings
	Now      func() time.Time

	// Files keeps attachment contents; MaxFileSize and MaxPushSize bound them.
	Files       blob.FileStore
	MaxFileSize int64
	MaxPushSize int64

	// Observe, when set, is told of push life events (EventCreated, …).
	Observe func(event string)

	sweep sweepState
}

// New returns a Service; now may be nil for the wall clock. Set Files to
// enable attachments.
func New(st *store.Store, keys *secure.Keyring, argon *secure.Argon, settings push.Settings, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{Store: st, Keys: keys, Argon: argon, Settings: settings, Now: now,
		MaxFileSize: DefaultMaxFileSize, MaxPushSize: DefaultMaxPushSize}
}

// Meta are the facts about a request that the audit log records.
type Meta struct {
	IP        string
	UserAgent string
	Referrer  string
}

func (s *Service) now() time.Time { return s.Now().UTC() }

func (s *Service) event(kind push.EventKind, u *push.User, m Meta, now time.Time) push.Event {
	return push.Event{Kind: kind, IP: m.IP, UserAgent: m.UserAgent, Referrer: m.Referrer, UserID: UserID(u), CreatedAt: now}
}

// UserID is the id of u, or 0 for an anonymous caller.
func UserID(u *push.User) int64 {
	if u == nil {
		return 0
	}
	return u.ID
}

// Messages of the reference that clients match on.
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
	p, err := s.Store.PushByKey(ctx, secure.TokenKey(token))
	if err != nil {
		return nil, err
	}
	p.URLToken = token
	return p, nil
}

// reload reads p again after a change, keeping its token.
func (s *Service) reload(ctx context.Context, p *push.Push) (*push.Push, error) {
	q, err := s.Store.PushByKey(ctx, p.TokenKey)
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
