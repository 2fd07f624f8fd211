package web

import (
	"context"
	"net/http"
	"slices"
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
	keyUserID  = "user_id"
	keyEpoch   = "auth_epoch" // the account's auth epoch when it signed in
	keyCreated = "created"    // token keys of pushes created in this session
	maxCreated = 20
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

// rememberCreated records that this session created the push, so that its
// preview page is shown to the creator only. The session keeps the token's
// key, not the token: session rows hold no secret link.
func (s *Server) rememberCreated(r *http.Request, token string) {
	list, _ := s.sessions.Get(r.Context(), keyCreated).([]string)
	list = append(list, service.TokenKey(token))
	if len(list) > maxCreated {
		list = list[len(list)-maxCreated:]
	}
	s.sessions.Put(r.Context(), keyCreated, list)
}

// createdHere reports whether this session created the push.
func (s *Server) createdHere(r *http.Request, token string) bool {
	list, _ := s.sessions.Get(r.Context(), keyCreated).([]string)
	return slices.Contains(list, service.TokenKey(token))
}
