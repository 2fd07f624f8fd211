package service

import (
	"context"

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

// HasToken reports whether u has an API token.
func (s *Service) HasToken(ctx context.Context, u *push.User) (bool, error) {
	return s.store.HasToken(ctx, u.ID)
}

// UserByToken returns the owner of an API token (looked up by its digest);
// CodeNotFound when it names nobody.
func (s *Service) UserByToken(ctx context.Context, token string) (*push.User, error) {
	if token == "" || len(token) > maxTokenLen {
		return nil, push.Errorf(push.CodeNotFound, "no such token")
	}
	return s.store.UserByTokenDigest(ctx, secure.TokenDigest(token))
}
