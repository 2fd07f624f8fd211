package web

import (
	"errors"
	"html/template"
	"net/http"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// passphraseForm serves GET /p/{token}/passphrase.
func (s *Server) passphraseForm(w http.ResponseWriter, r *http.Request) error {
	p := s.activePush(w, r)
	switch {
	case p == nil:
	case !p.HasPassphrase:
		redirect(w, r, langPath(r, "/p/"+p.URLToken))
	default:
		s.render(w, r, "passphrase.html", page{TitleKey: "passphrase.title", Data: p.URLToken})
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
	loc := s.localizer(r)
	again := func(status int, msg string, e *push.Error) {
		p := page{TitleKey: "passphrase.title", Data: token, Error: msg, Status: status}
		if e != nil {
			p.RetryAfter = e.RetryAfter
		}
		s.render(w, r, "passphrase.html", p)
	}
	pass := r.PostForm.Get("passphrase")
	if pass == "" {
		again(http.StatusUnprocessableEntity, loc.T("passphrase.missing", nil), nil)
		return nil
	}
	var qr template.HTML
	res, err := s.svc.RetrieveWith(r.Context(), s.retrieveRequest(r, token, pass, &qr))
	var e *push.Error
	switch {
	case errors.Is(err, service.ErrPassphrase):
		again(http.StatusUnauthorized, loc.T("passphrase.wrong", nil), nil)
	case errors.As(err, &e) && e.Code == push.CodeTooMany:
		// The wait in whole minutes, a part counting as one, as the
		// service words it.
		again(http.StatusTooManyRequests, loc.N("passphrase.too_many", max(1, int((e.RetryAfter+time.Minute-1)/time.Minute)), nil), e)
	case err != nil:
		return err
	default:
		s.showRetrieval(w, r, res, qr)
	}
	return nil
}
