package web

import (
	"errors"
	"html/template"
	"net/http"

	"hush/internal/push"
	"hush/internal/service"
)

// retrievalView is what retrieval.html shows. Its "Reveal" is a form that
// posts the push's view stamp, so that a reload of the secret it opens
// spends no view (docs/decisions.md, D47); for a passphrase push it leads
// to the passphrase form, and for a URL push it is a link, whose redirect
// leaves this site (a reload then reloads the other site).
type retrievalView struct {
	Token      string
	Stamp      string
	Passphrase bool
	URL        bool
}

// retrievalStep serves GET /p/{token}/r: a page with one "Reveal" button.
// It uses no view, so link previewers and mail scanners never burn a secret.
func (s *Server) retrievalStep(w http.ResponseWriter, r *http.Request) error {
	if p := s.activePush(w, r); p != nil {
		s.render(w, r, "retrieval.html", page{TitleKey: "retrieval.title", Data: retrievalView{
			Token: p.URLToken, Stamp: s.svc.ViewStamp(p), Passphrase: p.HasPassphrase, URL: p.Kind == push.KindURL}})
	}
	return nil
}

// revealSubmit serves POST /p/{token}/r, the retrieval step's "Reveal": it
// spends a view only while the push is as the page saw it (its stamp); a
// reload of the secret it showed gets the stale page instead (D47).
func (s *Server) revealSubmit(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	if err := parseForm(w, r); err != nil {
		return err
	}
	p, err := s.svc.Lookup(r.Context(), token)
	if err != nil {
		return err
	}
	if p.HasPassphrase && !p.Expired && !p.LimitsReached(s.svc.Now()) {
		redirect(w, r, "/p/"+token+"/passphrase")
		return nil
	}
	// An expired push is the service's to answer, as show's: the attempt
	// is logged.
	stamp := formValue(r, "stamp")
	var qr template.HTML
	req := s.retrieveRequest(r, token, "", &qr)
	req.Stamp = &stamp
	res, err := s.svc.RetrieveWith(r.Context(), req)
	switch {
	case errors.Is(err, service.ErrStale):
		s.stalePage(w, r, langPath(r, "/p/"+token+"/r"), false)
	case err != nil:
		return err
	default:
		s.showRetrieval(w, r, res, qr)
	}
	return nil
}

// activePush returns the active push the request's token names. When there
// is none it answers the request itself — the expired page, or the error
// page — and returns nil. It uses no view.
func (s *Server) activePush(w http.ResponseWriter, r *http.Request) *push.Push {
	p, err := s.svc.Lookup(r.Context(), r.PathValue("token"))
	if err != nil {
		s.fail(w, r, err)
		return nil
	}
	if p.Expired || p.LimitsReached(s.svc.Now()) {
		s.expiredPage(w, r)
		return nil
	}
	return p
}
