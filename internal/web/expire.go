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
		key, cancel := "expire-viewer", "/"
		if owner {
			key, cancel = "expire-owner", "/p/"+token+"/audit"
		}
		q, err := localQuestion(s.localizer(r), key)
		if err != nil {
			return err
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
	s.renderMessage(w, r, page{Title: "message.deleted.title", Data: "message.deleted.text"})
	return nil
}

// notDeletable answers a refused expiry and reports whether err was one.
func (s *Server) notDeletable(w http.ResponseWriter, r *http.Request, err error) bool {
	if code := push.ErrorCode(err); code == push.CodeUnauthenticated || code == push.CodeForbidden {
		s.renderError(w, r, http.StatusForbidden, "message.forbidden.title", "message.not_deletable")
		return true
	}
	return false
}
