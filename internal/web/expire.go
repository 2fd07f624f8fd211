package web

import (
	"net/http"

	"hush/internal/push"
)

// expire serves POST /p/{token}/expire, the "Delete this secret now" button
// of a recipient (when deletable by viewers) and the owner's "Expire now".
// It asks for confirmation first (confirm.go), once the caller is known to
// be allowed.
func (s *Server) expire(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	u := s.currentUser(r)
	if err := parseForm(w, r); err != nil {
		return err
	}
	p, err := s.svc.MayExpire(r.Context(), token, u)
	if s.notDeletable(w, r, err) {
		return nil
	}
	if err != nil {
		return err
	}
	owner := u != nil && p.OwnedBy(u.ID)
	if !p.Expired {
		q, cancel := questions["expire-viewer"], "/"
		if owner {
			q, cancel = questions["expire-owner"], "/p/"+token+"/audit"
		}
		if !s.confirmed(w, r, q, cancel, false) {
			return nil
		}
	}
	if _, err = s.svc.Expire(r.Context(), token, u, s.meta(r)); s.notDeletable(w, r, err) {
		return nil
	}
	if err != nil {
		return err
	}
	if owner {
		redirect(w, r, "/p/"+token+"/audit")
		return nil
	}
	s.render(w, r, "message.html", page{Title: "The secret has been deleted",
		Data: "This secret link has been deleted and cannot be opened again."})
	return nil
}

// notDeletable answers a refused expiry and reports whether err was one.
func (s *Server) notDeletable(w http.ResponseWriter, r *http.Request, err error) bool {
	if code := push.ErrorCode(err); code == push.CodeUnauthenticated || code == push.CodeForbidden {
		s.renderError(w, r, http.StatusForbidden, "Not allowed", "This secret cannot be deleted by its viewers.")
		return true
	}
	return false
}
