package web

import (
	"errors"
	"html/template"
	"net/http"

	"hush/internal/push"
	"hush/internal/service"
)

// passphraseForm serves GET /p/{token}/passphrase.
func (s *Server) passphraseForm(w http.ResponseWriter, r *http.Request) error {
	p := s.activePush(w, r)
	switch {
	case p == nil:
	case !p.HasPassphrase:
		redirect(w, r, "/p/"+p.URLToken)
	default:
		s.render(w, r, "passphrase.html", page{Title: "Passphrase required", Data: p.URLToken})
	}
	return nil
}

// passphraseSubmit serves POST /p/{token}/passphrase: a correct passphrase
// shows the secret in this very response (it is never put in a cookie or a
// URL); a wrong one shows the form again. Guessing limits are the service's,
// shared with the API (docs/decisions.md, D8).
func (s *Server) passphraseSubmit(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	if err := parseForm(w, r); err != nil {
		return err
	}
	again := func(status int, msg string, e *push.Error) {
		p := page{Title: "Passphrase required", Data: token, Error: msg, Status: status}
		if e != nil {
			p.RetryAfter = e.RetryAfter
		}
		s.render(w, r, "passphrase.html", p)
	}
	pass := r.PostForm.Get("passphrase")
	if pass == "" {
		again(http.StatusUnprocessableEntity, "Please enter the passphrase.", nil)
		return nil
	}
	var qr template.HTML
	res, err := s.svc.RetrieveWith(r.Context(), s.retrieveRequest(r, token, pass, &qr))
	var e *push.Error
	switch {
	case errors.Is(err, service.ErrPassphrase):
		again(http.StatusUnauthorized, "That passphrase is incorrect. Please try again.", nil)
	case errors.As(err, &e) && e.Code == push.CodeTooMany:
		again(http.StatusTooManyRequests, e.Message, e)
	case err != nil:
		return err
	default:
		s.showRetrieval(w, r, res, qr)
	}
	return nil
}
