package web

import (
	"net/http"

	"hush/internal/push"
)

// retrievalStep serves GET /p/{token}/r: a page with one "Reveal" link. It
// uses no view, so link previewers and mail scanners never burn a secret.
func (s *Server) retrievalStep(w http.ResponseWriter, r *http.Request) error {
	if p := s.activePush(w, r); p != nil {
		s.render(w, r, "retrieval.html", page{TitleKey: "retrieval.title", Data: p.URLToken})
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
