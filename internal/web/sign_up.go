package web

import (
	"net/http"

	"hush/internal/service"
)

// signUpsClosed answers the sign-up pages when accounts cannot be created
// here: sign-ups are disabled, or sign-ins are (an account that cannot sign
// in must not come with a signed-in session either).
func (s *Server) signUpsClosed(w http.ResponseWriter, r *http.Request) bool {
	if s.passwordClosed(w, r) {
		return true
	}
	if s.disableSignups || s.disableLogins {
		s.renderError(w, r, http.StatusForbidden, "Sign-ups are disabled", "New accounts cannot be created on this server.")
		return true
	}
	return false
}

// signUpForm serves GET /users/sign_up.
func (s *Server) signUpForm(w http.ResponseWriter, r *http.Request) error {
	return s.signForm(w, r, s.signUpsClosed, "sign_up.html", "Sign up")
}

// signUpSubmit serves POST /users/sign_up: create the account and sign in.
func (s *Server) signUpSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.signUpsClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	u, err := s.svc.SignUpWith(r.Context(), service.SignUpInput{Email: f.Get("email"), Password: f.Get("password"),
		Confirm: f.Get("password_confirmation"), Origin: s.origin(r), Meta: s.meta(r)})
	if err == nil && u.ConfirmPending {
		// Not signed in until the address is confirmed (docs/decisions.md, D39).
		s.render(w, r, "message.html", page{Title: "Confirm your email address",
			Data: "We sent a link to " + u.Email + ". Open it within a day to confirm your address, then sign in."})
		return nil
	}
	return s.signedIn(w, r, u, err, "sign_up.html", "Sign up", signInView{Email: f.Get("email")})
}
