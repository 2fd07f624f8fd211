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
		loc := s.localizer(r)
		s.renderError(w, r, http.StatusForbidden, loc.T("signup.disabled_title", nil), loc.T("signup.disabled_text", nil))
		return true
	}
	return false
}

// signUpForm serves GET /users/sign_up.
func (s *Server) signUpForm(w http.ResponseWriter, r *http.Request) error {
	return s.signForm(w, r, s.signUpsClosed, "sign_up.html", "signup.title")
}

// signUpSubmit serves POST /users/sign_up: create the account and sign in.
func (s *Server) signUpSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.signUpsClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	email := formValue(r, "email")
	u, err := s.svc.SignUpWith(r.Context(), service.SignUpInput{Email: email, Password: formValue(r, "password"),
		Confirm: formValue(r, "password_confirmation"), Origin: s.origin(r), Meta: s.meta(r)})
	if err == nil && u.ConfirmPending {
		// Not signed in until the address is confirmed (docs/decisions.md, D39).
		s.render(w, r, "message.html", page{TitleKey: "signup.confirm_title",
			Data: s.localizer(r).T("signup.confirm_sent", map[string]any{"Email": u.Email})})
		return nil
	}
	return s.signedIn(w, r, u, err, "sign_up.html", "signup.title", signInView{Email: email})
}
