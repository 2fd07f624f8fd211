package api

import (
	"net/http"
)

// create answers POST /api/v2/pushes.
func (s *Server) create(w http.ResponseWriter, r *http.Request) error {
	user, err := s.caller(r)
	if err != nil {
		return err
	}
	params, files, err := s.decodeCreate(w, r, user)
	if err != nil {
		return err
	}
	c, err := s.Service.Create(r.Context(), user, params, files, s.meta(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ownerPushJSON{
		pushJSON: s.render(r, c.Push, &c.Draft.Passphrase),
		Note:     c.Draft.Note,
		Name:     c.Draft.Name,
	})
	return nil
}
