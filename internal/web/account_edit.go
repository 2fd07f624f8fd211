package web

import (
	"errors"
	"net/http"
	"net/url"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// accountView is what edit.html shows.
type accountView struct {
	Email     string
	Notice    string
	Receipts  []receiptBox    // the default receipts of new pushes; nil where the server sends no email
	TwoFactor bool            // the second factor is on
	Language  string          // the account's language for its pages; "": its browser's
	Languages []i18n.Language // the languages to choose from
	Webhooks  bool            // the server delivers webhooks
}

// receiptBox is one receipt's checkbox.
type receiptBox struct {
	Field   string
	Label   string
	Checked bool
}

// receiptLabels say what each receipt is, in push.AllReceipts' order (in
// English: edit.html says it in the page's language, by the field's name).
var receiptLabels = []string{"it is viewed", "a wrong passphrase is tried", "it expires"}

// receiptBoxes are the receipt checkboxes, checked as r says; nil where the
// server sends no email.
func (s *Server) receiptBoxes(r push.Receipts) []receiptBox {
	if !s.settings().Receipts {
		return nil
	}
	out := make([]receiptBox, len(push.AllReceipts))
	for i, x := range push.AllReceipts {
		out[i] = receiptBox{Field: x.Field(), Label: receiptLabels[i], Checked: r.Has(x)}
	}
	return out
}

// formReceipts are the receipts a form's checkboxes ask for.
func formReceipts(f url.Values) push.Receipts {
	var r push.Receipts
	for _, x := range push.AllReceipts {
		if f.Has(x.Field()) {
			r |= x
		}
	}
	return r
}

// view is the account page of u.
func (s *Server) accountView(u *push.User) accountView {
	return accountView{Email: u.Email, Receipts: s.receiptBoxes(u.ReceiptsDefault), TwoFactor: u.HasTwoFactor(),
		Language: u.Language, Languages: i18n.Languages(), Webhooks: s.svc.WebhooksEnabled()}
}

// setLanguage serves POST /users/language: the language of the account's
// pages, "" for its browser's (docs/decisions.md, D53). The page that
// answers is already in it: sent from an address with a language prefix,
// which would win over the choice, it answers under the chosen language's
// prefix instead, or under none for the browser's (D64).
func (s *Server) setLanguage(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	if err := s.svc.SetLanguage(r.Context(), u, formValue(r, "preferred_language")); err != nil {
		return err
	}
	if pathLang(r) != "" {
		r = withLang(r, u.Language)
	}
	v := s.accountView(u)
	v.Notice = s.localizer(r).T("account.language_saved", nil)
	s.render(w, r, "edit.html", page{TitleKey: "account.title", User: u, Data: v})
	return nil
}

// accountForm serves GET /users/edit: change password, delete account.
func (s *Server) accountForm(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	s.render(w, r, "edit.html", page{TitleKey: "account.title", User: u, Data: s.accountView(u)})
	return nil
}

// receiptsDefault serves POST /users/receipts: the receipts the user's new
// pushes ask for unless the create form says otherwise.
func (s *Server) receiptsDefault(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	rc := formReceipts(r.PostForm)
	if err := s.svc.SetReceiptsDefault(r.Context(), u, rc); err != nil {
		return err
	}
	u.ReceiptsDefault = rc
	v := s.accountView(u)
	v.Notice = s.localizer(r).T("account.receipts_saved", nil)
	s.render(w, r, "edit.html", page{TitleKey: "account.title", User: u, Data: v})
	return nil
}

// accountError shows the account page again for an error a person can act
// on (a wrong current password, a rejected new one, too many attempts) and
// reports whether it did; wrongPassword is the catalog key of what a wrong
// current password is told, and passwordField the id of the form's field
// for it, which gets the focus.
func (s *Server) accountError(w http.ResponseWriter, r *http.Request, u *push.User, err error, wrongPassword, passwordField string) bool {
	var e *push.Error
	if errors.As(err, &e) && e.Fields["current_password"] != nil {
		msg := s.localizer(r).T(wrongPassword, nil)
		err = &push.Error{Code: push.CodeUnauthenticated, Message: msg, Fields: map[string][]string{passwordField: {msg}}}
	}
	return s.formAgain(w, r, err, "edit.html", "account.title", s.accountView(u))
}

// changePassword serves POST /users/password. Every other session of the
// account ends; this one carries on with a new token.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	changed, err := s.svc.ChangePassword(r.Context(), u, formValue(r, "current_password"), formValue(r, "password"),
		formValue(r, "password_confirmation"), s.meta(r))
	if s.accountError(w, r, u, err, "account.msg.wrong_password", "current_password") {
		return nil
	}
	if err == nil {
		err = s.signIn(r, changed)
	}
	if err != nil {
		return err
	}
	v := s.accountView(changed)
	v.Notice = s.localizer(r).T("account.password_changed", nil)
	s.render(w, r, "edit.html", page{TitleKey: "account.title", User: changed, Data: v})
	return nil
}

// deleteAccount serves POST /users/delete: the account, its tokens,
// sessions, pushes and their audit logs are deleted, once confirmed (the
// confirmation page asks for the password again). The only enabled admin
// is refused, before the question and again when the account is deleted
// (docs/decisions.md, D41).
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	last, err := s.svc.LastAdmin(r.Context(), u)
	if err != nil {
		return err
	}
	if last {
		s.formAgain(w, r, push.Errorf(push.CodeForbidden, "%s", service.MsgLastAdmin), "edit.html", "account.title", s.accountView(u))
		return nil
	}
	loc := s.localizer(r) // the account's language, before its session ends
	if !s.confirmed(w, r, s.question(r, "account-delete"), "/users/edit", true) {
		return nil
	}
	err = s.svc.DeleteAccount(r.Context(), u, formValue(r, "current_password"), s.meta(r))
	if s.accountError(w, r, u, err, "account.msg.not_deleted", "delete_password") {
		return nil
	}
	if err == nil {
		err = s.sessions.Destroy(r.Context())
	}
	if err != nil {
		return err
	}
	// Signed out now: the account page would send the switch's links on to
	// sign in.
	s.render(w, switchTo(r, "/"), "message.html", page{Title: loc.T("account.deleted_title", nil),
		Data: loc.T("account.deleted_text", nil)})
	return nil
}
