package web

import (
	"context"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"

	"hush/internal/push"
	"hush/internal/service"
)

// sessionStore keeps scs sessions through the service, which stores them by
// the digest of the cookie's token and ties each to the user signed in, so
// that the account's sessions end with it (docs/decisions.md, D21).
type sessionStore struct{ svc *service.Service }

func (s sessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	return s.svc.FindSession(ctx, token)
}

func (s sessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	var userID int64
	if _, values, err := (scs.GobCodec{}).Decode(b); err == nil {
		userID, _ = values[keyUserID].(int64)
	}
	return s.svc.CommitSession(ctx, token, userID, b, expiry)
}

func (s sessionStore) DeleteCtx(ctx context.Context, token string) error {
	return s.svc.DeleteSession(ctx, token)
}

func (s sessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s sessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

func (s sessionStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}

// Session keys.
const (
	keyUserID = "user_id"
	keyEpoch  = "auth_epoch" // the account's auth epoch when it signed in
)

// currentUser is the signed-in user, or nil. A session is honoured only
// while the account's auth epoch is the one it signed in with.
func (s *Server) currentUser(r *http.Request) *push.User {
	ctx := r.Context()
	id := s.sessions.GetInt64(ctx, keyUserID)
	if id == 0 {
		return nil
	}
	u, err := s.svc.SessionUser(ctx, id, s.sessions.GetString(ctx, keyEpoch))
	if err != nil {
		s.log.ErrorContext(ctx, "load session user", "err", err)
		return nil
	}
	return u
}

// signIn renews the session token (against fixation) and binds the user
// and its auth epoch.
func (s *Server) signIn(r *http.Request, u *push.User) error {
	if err := s.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	s.sessions.Put(r.Context(), keyUserID, u.ID)
	s.sessions.Put(r.Context(), keyEpoch, u.AuthEpoch)
	return nil
}
