package api

import (
	"net/http"
	"strings"

	"hush/internal/push"
	"hush/internal/service"
)

// authenticate resolves the caller from an API token, never from a cookie
// (docs/decisions.md, D9 and D18): the X-User-Token of an X-User-Email and
// X-User-Token pair, else the last word of Authorization. It returns nil for
// an anonymous caller, and an error when a token was presented but matches
// no user — an X-User-Token without X-User-Email included, which
// authenticates nobody, as in Password Pusher.
func (s *Server) authenticate(r *http.Request) (*push.User, error) {
	var token string
	email, userToken := r.Header.Get("X-User-Email"), r.Header.Get("X-User-Token")
	authz, hasAuthz := r.Header["Authorization"]
	_, hasUserToken := r.Header["X-User-Token"]
	switch {
	case email != "" && userToken != "":
		token = userToken
	case hasAuthz:
		if words := strings.Fields(strings.Join(authz, " ")); len(words) > 0 {
			token = words[len(words)-1]
		}
	case hasUserToken:
		return nil, unauthenticated(msgBadToken)
	default:
		return nil, nil
	}
	u, err := s.svc.UserByToken(r.Context(), token)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, unauthenticated(msgBadToken)
	}
	return u, err
}

// caller authenticates and applies allow_anonymous for the public endpoints.
func (s *Server) caller(r *http.Request) (*push.User, error) {
	u, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	if u == nil && !s.svc.Settings().AllowAnonymous {
		return nil, unauthenticated(service.MsgSignIn)
	}
	return u, nil
}

// requireUser authenticates an endpoint that always needs a token.
func (s *Server) requireUser(r *http.Request) (*push.User, error) {
	u, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, unauthenticated(service.MsgSignIn)
	}
	return u, nil
}
