package api

import (
	"net/http"
	"strings"

	"hush/internal/httpx"
	"hush/internal/push"
)

// preview answers GET /api/v2/pushes/{token}/preview: the secret URL, with no
// side effect.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.caller(r); err != nil {
		return err
	}
	p, err := s.svc.Lookup(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	// ?push_locale= names the language of the link; as in Password
	// Pusher, one that names no shipped language is ignored here.
	if code, ok := s.locale(httpx.Query(r, "push_locale")); ok {
		p.Locale = code
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": s.secretURL(r, p)})
	return nil
}

// locale returns the shipped language code l names (any case), or false.
func (s *Server) locale(l string) (string, bool) {
	for _, c := range s.svc.Settings().Locales {
		if strings.EqualFold(c, strings.TrimSpace(l)) {
			return c, true
		}
	}
	return "", false
}

// expire answers DELETE /api/v2/pushes/{token}.
func (s *Server) expire(w http.ResponseWriter, r *http.Request) error {
	user, err := s.caller(r)
	if err != nil {
		return err
	}
	p, err := s.svc.Expire(r.Context(), r.PathValue("token"), user, s.meta(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.render(r, p, nil))
	return nil
}

type auditEntryJSON struct {
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
	Referrer  string `json:"referrer"`
	Kind      string `json:"kind"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// auditEvents authenticates the owner and returns one page of a push's
// audit log. Checks: token, push, owner, then page (400 for a bad one).
func (s *Server) auditEvents(r *http.Request) ([]push.Event, error) {
	user, err := s.requireUser(r)
	if err != nil {
		return nil, err
	}
	page, pageErr := pageParam(r)
	if pageErr != nil {
		page = 0 // reported by the service after the push and owner checks
	}
	_, events, err := s.svc.Audit(r.Context(), r.PathValue("token"), user, page)
	return events, err
}

// audit answers GET /api/v2/pushes/{token}/audit: the owner's view of the
// push's audit log, oldest first. Checks: token, push, owner, then page.
func (s *Server) audit(w http.ResponseWriter, r *http.Request) error {
	events, err := s.auditEvents(r)
	if err != nil {
		return err
	}
	logs := make([]auditEntryJSON, len(events))
	for i, ev := range events {
		at := formatTime(ev.CreatedAt)
		logs[i] = auditEntryJSON{IP: ev.IP, UserAgent: ev.UserAgent, Referrer: ev.Referrer,
			Kind: ev.Kind.String(), CreatedAt: at, UpdatedAt: at}
	}
	writeJSON(w, http.StatusOK, map[string]any{"logs": logs})
	return nil
}

func (s *Server) listActive(w http.ResponseWriter, r *http.Request) error {
	return s.list(w, r, false)
}

func (s *Server) listExpired(w http.ResponseWriter, r *http.Request) error {
	return s.list(w, r, true)
}

// list answers GET /api/v2/pushes/active and /expired: the caller's pushes,
// newest first, 50 a page, as a bare array.
func (s *Server) list(w http.ResponseWriter, r *http.Request, expired bool) error {
	user, err := s.requireUser(r)
	if err != nil {
		return err
	}
	page, err := pageParam(r)
	if err != nil {
		return err
	}
	listed, err := s.svc.List(r.Context(), user, expired, page)
	if err != nil {
		return err
	}
	out := make([]ownerPushJSON, len(listed))
	for i, l := range listed {
		out[i] = ownerPushJSON{pushJSON: s.render(r, l.Push, nil), Note: l.Note, Name: l.Push.Name}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
