package web

import (
	"net/http"

	"hush/internal/push"
)

// expire serves POST /p/{token}/expire, the "Delete this secret now" button
// of a recipient (when deletable by viewers) and the owner's "Expire now".
func (s *Server) expire(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	u := s.currentUser(r)
	p, err := s.svc.Expire(r.Context(), token, u, s.meta(r))
	switch code := push.ErrorCode(err); {
	case code == push.CodeUnauthenticated || code == push.CodeForbidden:
		s.renderError(w, r, http.StatusForbidden, "Not allowed", "This secret cannot be deleted by its viewers.")
		return nil
	case err != nil:
		return err
	}
	if u != nil && p.OwnedBy(u.ID) {
		redirect(w, r, "/p/"+token+"/audit")
		return nil
	}
	s.render(w, r, "message.html", page{Title: "The secret has been deleted",
		Data: "This secret link has been deleted and cannot be opened again."})
	return nil
}
