package service

import (
	"context"
	"time"

	"hush/internal/secure"
)

// Web sessions are kept by the digest of their cookie's token, so a
// database dump holds no usable session; each names the user signed in, so
// that it ends with the account (docs/decisions.md, D21).

// FindSession returns the data of the session whose cookie token is token,
// if it exists and has not expired.
func (s *Service) FindSession(ctx context.Context, token string) ([]byte, bool, error) {
	return s.store.FindSession(ctx, secure.TokenDigest(token), s.Now())
}

// CommitSession stores a session's data until expiry; userID is the user
// signed in (0: nobody).
func (s *Service) CommitSession(ctx context.Context, token string, userID int64, data []byte, expiry time.Time) error {
	return s.store.CommitSession(ctx, secure.TokenDigest(token), userID, data, expiry)
}

// DeleteSession removes a session; a missing one is not an error.
func (s *Service) DeleteSession(ctx context.Context, token string) error {
	return s.store.DeleteSession(ctx, secure.TokenDigest(token))
}

// DeleteExpiredSessions removes the sessions that have expired and returns
// how many.
func (s *Service) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	return s.store.DeleteExpiredSessions(ctx, s.Now())
}

// RevokeSessions ends every web session of the user with the given id.
func (s *Service) RevokeSessions(ctx context.Context, userID int64) error {
	return s.store.RevokeSessions(ctx, userID, s.Now())
}

// TokenKey is what names a push without its link (secure.TokenKey): what a
// session may remember of the pushes it created.
func TokenKey(token string) string { return secure.TokenKey(token) }
