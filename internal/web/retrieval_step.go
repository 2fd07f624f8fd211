package web

import "net/http"

// retrievalStep serves GET /p/{token}/r: a page with one "Reveal" link. It
// uses no view, so link previewers and mail scanners never burn a secret.
func (s *Server) retrievalStep(w http.ResponseWriter, r *http.Request) {
	token := r.PathValue("token")
	p, err := s.Service.Lookup(r.Context(), token)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if p.Expired || p.LimitsReached(s.Service.Now()) {
		s.expiredPage(w, r)
		return
	}
	s.render(w, r, "retrieval.html", page{Title: "You have been sent a secret", Data: token})
}
