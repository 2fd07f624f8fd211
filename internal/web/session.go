package web

import (
	"context"
	"net/http"
	"slices"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// sessionStore keeps scs sessions in our own table, keyed by the SHA-256
// digest of the cookie's token, so a database dump holds no usable session.
type sessionStore struct {
	st  *store.Store
	now func() time.Time
}

func (s *sessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	return s.st.FindSession(ctx, secure.TokenDigest(token), s.now())
}

func (s *sessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	return s.st.CommitSession(ctx, secure.TokenDigest(token), b, expiry)
}

func (s *sessionStore) DeleteCtx(ctx context.Context, token string) error {
	return s.st.DeleteSession(ctx, secure.TokenDigest(token))
}

func (s *sessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

func (s *sessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

func (s *sessionStore) Delete(token string) error {
	return s.DeleteCtx(context.Background(), token)
}

// Session keys.
const (
	keyUserID  = "user_id"
	keyCreated = "created" // url_tokens of pushes created in this session
	maxCreated = 20
)

// currentUser is the signed-in user, or nil.
func (s *Server) currentUser(r *http.Request) *push.User {
	id := s.sessions.GetInt64(r.Context(), keyUserID)
	if id == 0 {
		return nil
	}
	u, err := s.Service.Store.UserByID(r.Context(), id)
	if err != nil {
		return nil
	}
	return u
}

// signIn renews the session token (against fixation) and binds the user.
func (s *Server) signIn(r *http.Request, u *push.User) error {
	if err := s.sessions.RenewToken(r.Context()); err != nil {
		return err
	}
	s.sessions.Put(r.Context(), keyUserID, u.ID)
	return nil
}

// rememberCreated records that this session created the push, so that its
// preview page is shown to the creator only.
func (s *Server) rememberCreated(r *http.Request, token string) {
	list, _ := s.sessions.Get(r.Context(), keyCreated).([]string)
	list = append(list, token)
	if len(list) > maxCreated {
		list = list[len(list)-maxCreated:]
	}
	s.sessions.Put(r.Context(), keyCreated, list)
}

// createdHere reports whether this session created the push.
func (s *Server) createdHere(r *http.Request, token string) bool {
	list, _ := s.sessions.Get(r.Context(), keyCreated).([]string)
	return slices.Contains(list, token)
}
