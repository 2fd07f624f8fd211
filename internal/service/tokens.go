package service

import (
	"context"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
)

// apiTokenBytes is the size of an API token: 32 random bytes.
const apiTokenBytes = 32

// maxTokenLen bounds what is hashed and looked up as an API token.
const maxTokenLen = 256

// ReplaceToken gives u a new API token, shown to the caller only now (it is
// stored as its digest), and revokes every earlier one.
func (s *Service) ReplaceToken(ctx context.Context, u *push.User) (string, error) {
	tok, err := secure.NewToken(apiTokenBytes)
	if err != nil {
		return "", err
	}
	if err := s.store.ReplaceToken(ctx, u.ID, secure.TokenDigest(tok), s.Now()); err != nil {
		return "", err
	}
	return tok, nil
}

// TokenCreated returns when u's API token was made; zero when u has none.
func (s *Service) TokenCreated(ctx context.Context, u *push.User) (time.Time, error) {
	return s.store.TokenCreated(ctx, u.ID)
}

// HasToken reports whether u has an API token.
func (s *Service) HasToken(ctx context.Context, u *push.User) (bool, error) {
	return s.store.HasToken(ctx, u.ID)
}

// UserByToken returns the owner of an API token (looked up by its digest);
// CodeNotFound when it names nobody (a disabled account's token names
// nobody), CodeForbidden when the instance requires a second factor that
// the owner has not set up (PWP__REQUIRE_MFA, as Password Pusher answers).
// The token itself is single-factor: it was made by a session that passed
// the second factor (docs/decisions.md, D40).
func (s *Service) UserByToken(ctx context.Context, token string) (*push.User, error) {
	if token == "" || len(token) > maxTokenLen {
		return nil, push.Errorf(push.CodeNotFound, "no such token")
	}
	u, err := s.store.UserByTokenDigest(ctx, secure.TokenDigest(token))
	if err != nil {
		return nil, err
	}
	if s.MustEnrol(u) {
		return nil, &push.Error{Code: push.CodeForbidden, Message: MsgTwoFactorRequired}
	}
	return u, nil
}
