package web

import (
	"errors"
	"html/template"
	"net/http"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

// passphraseView is what passphrase.html shows: the form carries the
// push's view stamp, so that a reload of the secret it opens spends no
// view (docs/decisions.md, D47).
type passphraseView struct {
	Token string
	Stamp string
}

// passphraseForm serves GET /p/{token}/passphrase.
func (s *Server) passphraseForm(w http.ResponseWriter, r *http.Request) error {
	p := s.activePush(w, r)
	switch {
	case p == nil:
	case !p.HasPassphrase:
		redirect(w, r, "/p/"+p.URLToken)
	default:
		s.render(w, r, "passphrase.html", page{TitleKey: "passphrase.title",
			Data: passphraseView{Token: p.URLToken, Stamp: s.svc.ViewStamp(p)}})
	}
	return nil
}

// passphraseSubmit serves POST /p/{token}/passphrase: a correct passphrase
// shows the secret in this very response (it is never put in a cookie or a
// URL); a wrong one shows the form again. Guessing limits are the service's,
// shared with the API (docs/decisions.md, D8). A form sent again after it
// opened the secret — a reload — opens nothing (D47): the stale page says
// so and offers to open it again.
func (s *Server) passphraseSubmit(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	if err := parseForm(w, r); err != nil {
		return err
	}
	var stamp *string
	if r.PostForm.Has("stamp") {
		v := formValue(r, "stamp")
		stamp = &v
	}
	loc := s.localizer(r)
	again := func(status int, msg string, e *push.Error) {
		p := page{TitleKey: "passphrase.title", Data: passphraseView{Token: token, Stamp: formValue(r, "stamp")}, Error: msg, Status: status}
		if e != nil {
			p.RetryAfter = e.RetryAfter
		}
		s.render(w, r, "passphrase.html", p)
	}
	pass := formValue(r, "passphrase")
	if pass == "" {
		again(http.StatusUnprocessableEntity, loc.T("passphrase.missing", nil), nil)
		return nil
	}
	var qr template.HTML
	req := s.retrieveRequest(r, token, pass, &qr)
	req.Stamp = stamp
	res, err := s.svc.RetrieveWith(r.Context(), req)
	var e *push.Error
	switch {
	case errors.Is(err, service.ErrPassphrase):
		again(http.StatusUnauthorized, loc.T("passphrase.wrong", nil), nil)
	case errors.Is(err, service.ErrStale):
		s.stalePage(w, r, langPath(r, "/p/"+token+"/passphrase"), true)
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

// staleView is what stale.html shows: why nothing was opened, and a form
// that opens the secret again, deliberately, with a fresh stamp.
type staleView struct {
	Action     string
	Stamp      string
	Passphrase bool
	ViewsLeft  int
}

// stalePage answers a recipient's form sent again after it had opened the
// secret (docs/decisions.md, D47): nothing is opened and no view is used;
// the page explains and offers to open the secret again, which spends a
// view. When the push is gone meanwhile, it is the expired page.
func (s *Server) stalePage(w http.ResponseWriter, r *http.Request, action string, passphrase bool) {
	p := s.activePush(w, r)
	if p == nil {
		return
	}
	s.render(w, r, "stale.html", page{TitleKey: "stale.title", Status: http.StatusConflict,
		Data: staleView{Action: action, Stamp: s.svc.ViewStamp(p), Passphrase: passphrase, ViewsLeft: p.ViewsRemaining()}})
}
