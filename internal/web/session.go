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

	// The half-signed-in state between a right password and the second
	// factor's code (service.PendingSignIn). It is not a sign-in: nothing
	// reads it but the code form, and the session row names no user.
	keyCodeUserID  = "code_user_id"
	keyCodeEpoch   = "code_auth_epoch"
	keyCodeStarted = "code_started" // Unix milliseconds of the service's clock

	keyFlash = "flash" // a notice for the next page
)

// userCache keeps the session's account for the rest of a request, which
// asks for it more than once (the handler, the layout).
type userCache struct {
	id    int64
	epoch string
	u     *push.User
}

type userCacheKey struct{}

// withUserCache gives each request its userCache.
func withUserCache(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userCacheKey{}, &userCache{})))
	})
}

// sessionUser is the account the session is signed in as, or nil. A
// session is honoured only while the account's auth epoch is the one it
// signed in with and the account is enabled. The account may still have to
// set up its second factor before anything else: see currentUser.
func (s *Server) sessionUser(r *http.Request) *push.User {
	ctx := r.Context()
	id := s.sessions.GetInt64(ctx, keyUserID)
	if id == 0 {
		return nil
	}
	epoch := s.sessions.GetString(ctx, keyEpoch)
	c, _ := ctx.Value(userCacheKey{}).(*userCache)
	if c != nil && c.id == id && c.epoch == epoch {
		return c.u
	}
	u, err := s.svc.SessionUser(ctx, id, epoch)
	if err != nil {
		s.log.ErrorContext(ctx, "load session user", "err", err)
		return nil
	}
	if c != nil {
		c.id, c.epoch, c.u = id, epoch, u
	}
	return u
}

// currentUser is the signed-in user, with the rights of its account, or
// nil. An account that must set up its second factor first (the instance
// requires one) has no rights until it has: it is nil here.
func (s *Server) currentUser(r *http.Request) *push.User {
	u := s.sessionUser(r)
	if s.mustEnrol(r, u) {
		return nil
	}
	return u
}

// signIn renews the session token (against fixation) and binds the user
// and its auth epoch; any half-signed-in state ends.
func (s *Server) signIn(r *http.Request, u *push.User) error {
	ctx := r.Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		return err
	}
	s.endCodeStep(r)
	s.sessions.Remove(ctx, keySSO)
	s.sessions.Put(ctx, keyUserID, u.ID)
	s.sessions.Put(ctx, keyEpoch, u.AuthEpoch)
	s.linkWaiting(r, u)
	return nil
}

// startCodeStep puts the session in the half-signed-in state of u, whose
// password was right, with a renewed token; it signs no one in.
func (s *Server) startCodeStep(r *http.Request, u *push.User) error {
	ctx := r.Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		return err
	}
	p := s.svc.StartSignInCode(u)
	s.sessions.Remove(ctx, keyUserID)
	s.sessions.Remove(ctx, keyEpoch)
	s.sessions.Put(ctx, keyCodeUserID, p.UserID)
	s.sessions.Put(ctx, keyCodeEpoch, p.Epoch)
	s.sessions.Put(ctx, keyCodeStarted, p.Started.UnixMilli())
	return nil
}

// codeStep is the session's half-signed-in state; ok is false without one.
func (s *Server) codeStep(r *http.Request) (p service.PendingSignIn, ok bool) {
	ctx := r.Context()
	p.UserID = s.sessions.GetInt64(ctx, keyCodeUserID)
	p.Epoch = s.sessions.GetString(ctx, keyCodeEpoch)
	p.Started = time.UnixMilli(s.sessions.GetInt64(ctx, keyCodeStarted)).UTC()
	return p, p.UserID != 0
}

// endCodeStep ends the half-signed-in state.
func (s *Server) endCodeStep(r *http.Request) {
	for _, k := range []string{keyCodeUserID, keyCodeEpoch, keyCodeStarted} {
		s.sessions.Remove(r.Context(), k)
	}
}

// flash keeps a notice for the next page this session sees.
func (s *Server) flash(r *http.Request, msg string) { s.sessions.Put(r.Context(), keyFlash, msg) }

// popFlash returns the notice kept for this page, once.
func (s *Server) popFlash(r *http.Request) string { return s.sessions.PopString(r.Context(), keyFlash) }
