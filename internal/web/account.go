package web

import (
	"net/http"

	"hush/internal/push"
)

// requireUser returns the signed-in user, or sends the visitor to sign in
// and returns nil.
func (s *Server) requireUser(w http.ResponseWriter, r *http.Request) *push.User {
	u := s.currentUser(r)
	if u == nil {
		redirect(w, r, "/users/sign_in")
	}
	return u
}

// fieldMessage is the message of a validation error (the first one), or "".
func fieldMessage(err error) string {
	e, ok := err.(*push.Error)
	if !ok || e.Code != push.CodeInvalid {
		return ""
	}
	if e.Message != "" {
		return e.Message
	}
	for _, msgs := range e.Fields {
		if len(msgs) > 0 {
			return msgs[0]
		}
	}
	return ""
}
