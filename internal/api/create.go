package api

import (
	"net/http"

	"hush/internal/push"
	"hush/internal/service"
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
	return s.createAndAnswer(w, r, user, params, files)
}

// createAndAnswer creates the push and answers 201 with it as its owner
// sees it (v2 and v1 alike).
func (s *Server) createAndAnswer(w http.ResponseWriter, r *http.Request, user *push.User, params push.Params, files service.FileSet) error {
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
