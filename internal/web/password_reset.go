package web

import (
	"net/http"
	"net/url"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// Password resets by email (docs/decisions.md, D36), at Password Pusher's
// address /users/password/new: the visitor names an address and is told
// the same, after the same work, whether or not it has an account; the
// email's link opens /users/password/edit, where a new password is set
// once. The pages exist only where Hush sends email and web sign-in is on.

// resetView is what the reset pages show.
type resetView struct {
	Email string
	Token string
	Sent  bool // the request was taken: the answer is the same for every address
}

// resetClosed answers the reset pages where there are none.
func (s *Server) resetClosed(w http.ResponseWriter, r *http.Request) bool {
	if s.loginsDisabled(w, r) || s.passwordClosed(w, r) {
		return true
	}
	if !s.svc.MailEnabled() {
		s.notFound(w, r)
		return true
	}
	return false
}

// resetForm serves GET /users/password/new.
func (s *Server) resetForm(w http.ResponseWriter, r *http.Request) error {
	if s.resetClosed(w, r) {
		return nil
	}
	s.render(w, r, "password_new.html", page{TitleKey: "password.forgot_title", Data: resetView{}})
	return nil
}

// resetRequest serves POST /users/password/new: the reset is queued, and
// the answer says so in words that fit an address without an account too.
func (s *Server) resetRequest(w http.ResponseWriter, r *http.Request) error {
	if s.resetClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	email := formValue(r, "email")
	err := s.svc.RequestPasswordReset(r.Context(), email, s.origin(r), s.meta(r))
	if s.formAgain(w, r, err, "password_new.html", "password.forgot_title", resetView{Email: email}) {
		return nil
	}
	if err != nil {
		return err
	}
	s.render(w, r, "password_new.html", page{TitleKey: "account.check_email",
		Data: resetView{Email: service.NormalizeEmail(email), Sent: true}})
	return nil
}

// resetEditForm serves GET /users/password/edit?reset_password_token=…:
// the new password form, while the link still works.
func (s *Server) resetEditForm(w http.ResponseWriter, r *http.Request) error {
	if s.resetClosed(w, r) {
		return nil
	}
	token := httpx.Query(r, service.ResetTokenParam)
	ok, err := s.svc.ResetValid(r.Context(), token)
	if err != nil {
		return err
	}
	if !ok {
		s.resetInvalid(w, r)
		return nil
	}
	s.render(w, switchTo(r, tokenPage("/users/password/edit", service.ResetTokenParam, token)), "password_edit.html",
		page{TitleKey: "password.choose_title", Data: resetView{Token: token}})
	return nil
}

// tokenPage is the page p of an emailed link, whose token is its query's
// param: the language switch of the page, and of the answers to its form,
// leads there with the token, since without it the page says that the
// link no longer works.
func tokenPage(p, param, token string) string {
	return p + "?" + url.Values{param: {token}}.Encode()
}

// resetInvalid tells that a reset link no longer works; its language
// switch leads to asking for a new one.
func (s *Server) resetInvalid(w http.ResponseWriter, r *http.Request) {
	s.render(w, switchTo(r, "/users/password/new"), "password_edit.html", page{TitleKey: "account.link_dead_title",
		Status: http.StatusNotFound, Error: s.sayIn(r, service.MsgResetInvalid), Data: resetView{}})
}

// resetSubmit serves POST /users/password/edit: the new password, once per
// link. Every session of the account ends, this browser's too; the visitor
// signs in with the new password.
func (s *Server) resetSubmit(w http.ResponseWriter, r *http.Request) error {
	if s.resetClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	token := formValue(r, service.ResetTokenParam)
	_, err := s.svc.ResetPassword(r.Context(), token, formValue(r, "password"), formValue(r, "password_confirmation"))
	if push.ErrorCode(err) == push.CodeNotFound {
		s.resetInvalid(w, r)
		return nil
	}
	if s.formAgain(w, switchTo(r, tokenPage("/users/password/edit", service.ResetTokenParam, token)),
		err, "password_edit.html", "password.choose_title", resetView{Token: token}) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.sessions.Destroy(r.Context()); err != nil {
		return err
	}
	// The link is spent: the switch leads where the person goes next.
	s.render(w, switchTo(r, "/users/sign_in"), "message.html", page{TitleKey: "password.changed_title",
		Data: s.localizer(r).T("password.changed_text", nil)})
	return nil
}

// confirmView is what the confirmation pages show.
type confirmView struct {
	Email string
	Sent  bool
	Token string // the link's token, on the page that asks to press the button
}

// confirmClosed answers the confirmation pages where new accounts do not
// confirm their address.
func (s *Server) confirmClosed(w http.ResponseWriter, r *http.Request) bool {
	if s.loginsDisabled(w, r) {
		return true
	}
	if !s.svc.ConfirmEmail() {
		s.notFound(w, r)
		return true
	}
	return false
}

// confirmPage serves GET /users/confirmation?confirmation_token=…, the
// link of the confirmation email: a page whose button confirms. Opening the
// link changes nothing, so a mail scanner that follows every link does not
// use it up before the person does.
func (s *Server) confirmPage(w http.ResponseWriter, r *http.Request) error {
	if s.confirmClosed(w, r) || s.passwordClosed(w, r) {
		return nil
	}
	token := httpx.Query(r, service.ConfirmTokenParam)
	if token == "" {
		s.render(w, switchTo(r, "/users/confirmation/new"), "confirmation_new.html", page{TitleKey: "account.link_dead_title",
			Status: http.StatusNotFound, Error: s.sayIn(r, service.MsgConfirmInvalid), Data: confirmView{}})
		return nil
	}
	s.render(w, switchTo(r, tokenPage("/users/confirmation", service.ConfirmTokenParam, token)), "confirmation_new.html",
		page{TitleKey: "signup.confirm_title", Data: confirmView{Token: token}})
	return nil
}

// confirm serves POST /users/confirmation, the page's form: with the
// password the account's sign-up set, the address is confirmed and the
// account signed in (service.ConfirmAccount; docs/decisions.md, D68).
func (s *Server) confirm(w http.ResponseWriter, r *http.Request) error {
	if s.confirmClosed(w, r) || s.passwordClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	token := formValue(r, service.ConfirmTokenParam)
	u, err := s.svc.ConfirmAccount(r.Context(), token, formValue(r, "password"), s.meta(r))
	if push.ErrorCode(err) == push.CodeNotFound {
		s.render(w, r, "confirmation_new.html", page{TitleKey: "account.link_dead_title", Status: http.StatusNotFound,
			Error: s.sayIn(r, service.MsgConfirmInvalid), Data: confirmView{}})
		return nil
	}
	if err == nil {
		s.flash(r, s.localizer(r).T("signup.confirmed_title", nil))
	}
	return s.signedIn(w, switchTo(r, tokenPage("/users/confirmation", service.ConfirmTokenParam, token)), u, err,
		"confirmation_new.html", "signup.confirm_title", confirmView{Token: token})
}

// confirmForm serves GET /users/confirmation/new: ask for the link again.
func (s *Server) confirmForm(w http.ResponseWriter, r *http.Request) error {
	if s.confirmClosed(w, r) {
		return nil
	}
	s.render(w, r, "confirmation_new.html", page{TitleKey: "signup.confirm_title", Data: confirmView{}})
	return nil
}

// confirmRequest serves POST /users/confirmation/new, answering as the
// reset request does.
func (s *Server) confirmRequest(w http.ResponseWriter, r *http.Request) error {
	if s.confirmClosed(w, r) {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	email := formValue(r, "email")
	err := s.svc.RequestConfirmation(r.Context(), email, s.origin(r), s.meta(r))
	if s.formAgain(w, r, err, "confirmation_new.html", "signup.confirm_title", confirmView{Email: email}) {
		return nil
	}
	if err != nil {
		return err
	}
	s.render(w, r, "confirmation_new.html", page{TitleKey: "account.check_email",
		Data: confirmView{Email: service.NormalizeEmail(email), Sent: true}})
	return nil
}
