package api

import (
	"net/http"

	"hush/internal/push"
)

// preview answers GET /api/v2/pushes/{token}/preview: the secret URL, with no
// side effect.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.caller(r); err != nil {
		return err
	}
	token, err := pathToken(r)
	if err != nil {
		return err
	}
	p, err := s.Store.PushByToken(r.Context(), token)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": s.secretURL(r, p)})
	return nil
}

// expire answers DELETE /api/v2/pushes/{token}: the owner, or anyone when the
// push is deletable by viewers, expires it now.
func (s *Server) expire(w http.ResponseWriter, r *http.Request) error {
	user, err := s.caller(r)
	if err != nil {
		return err
	}
	token, err := pathToken(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p, err := s.Store.PushByToken(ctx, token)
	if err != nil {
		return err
	}
	deletable := p.DeletableByViewer != nil && *p.DeletableByViewer
	if !p.OwnedBy(userID(user)) && !deletable {
		if user == nil {
			return unauthenticated(msgNotDeletable)
		}
		return &push.Error{Code: push.CodeForbidden, Message: msgNotDeletable}
	}
	now := s.Now().UTC()
	if !p.Expired {
		if _, err := s.Store.ExpireByHand(ctx, p.ID, s.event(r, push.EventExpire, user, now)); err != nil {
			return err
		}
		if p, err = s.Store.PushByToken(ctx, token); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, s.render(r, p, nil, now))
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

// audit answers GET /api/v2/pushes/{token}/audit: the owner's view of the
// push's audit log, oldest first.
func (s *Server) audit(w http.ResponseWriter, r *http.Request) error {
	user, err := s.requireUser(r)
	if err != nil {
		return err
	}
	token, err := pathToken(r)
	if err != nil {
		return err
	}
	p, err := s.Store.PushByToken(r.Context(), token)
	if err != nil {
		return err
	}
	if !p.OwnedBy(user.ID) {
		return &push.Error{Code: push.CodeForbidden, Message: msgNotOwner}
	}
	page, err := pageParam(r)
	if err != nil {
		return err
	}
	events, err := s.Store.AuditLog(r.Context(), p.ID, pageSize, (page-1)*pageSize)
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
	pushes, err := s.Store.ListPushes(r.Context(), user.ID, expired, pageSize, (page-1)*pageSize)
	if err != nil {
		return err
	}
	now := s.Now().UTC()
	out := make([]ownerPushJSON, len(pushes))
	for i, p := range pushes {
		note, err := s.openNote(p)
		if err != nil {
			return err
		}
		out[i] = ownerPushJSON{pushJSON: s.render(r, p, nil, now), Note: note, Name: p.Name}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
