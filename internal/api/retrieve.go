package api

import (
	"net/http"

	"hush/internal/httpx"
)

// retrieve answers GET /api/v2/pushes/{token}: one view, claimed before the
// payload is sent; an expired push answers 200 with the expired object.
func (s *Server) retrieve(w http.ResponseWriter, r *http.Request) error {
	user, err := s.caller(r)
	if err != nil {
		return err
	}
	ret, err := s.svc.Retrieve(r.Context(), r.PathValue("token"), httpx.Query(r, "passphrase"), user, s.meta(r))
	if err != nil {
		return err
	}
	files := make([]fileJSON, len(ret.Files))
	for i, f := range ret.Files {
		files[i] = fileJSON{Filename: f.Name, ContentType: f.ContentType, URL: httpx.FileURL(s.origin(r), f.Token, f.Name)}
	}
	writeJSON(w, http.StatusOK, shownPushJSON{
		pushJSON: s.render(r, ret.Push, ret.Passphrase),
		Payload:  ret.Payload,
		Files:    files,
	})
	return nil
}
