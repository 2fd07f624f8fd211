package api

import (
	"errors"
	"net/http"

	"hush/internal/push"
)

type passphraseErrorJSON struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// retrieve answers GET /api/v2/pushes/{token}: the view is claimed atomically
// before the payload is sent, so a push is never served more often than allowed.
func (s *Server) retrieve(w http.ResponseWriter, r *http.Request) error {
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
	now := s.Now().UTC()
	if !p.Expired && p.LimitsReached(now) {
		if p, err = s.expireDue(r, p.ID, token); err != nil {
			return err
		}
	}
	if p.Expired {
		return s.showExpired(w, r, p, user)
	}

	passphrase := r.URL.Query().Get("passphrase")
	if p.HasPassphrase && passphrase == "" {
		return s.refusePassphrase(w, r, p, user)
	}
	ip := s.clientIP(r)
	if p.HasPassphrase {
		if err := s.guard.check(token, ip, now); err != nil {
			return err
		}
	}
	payload, err := s.openPayload(ctx, p, passphrase)
	if errors.Is(err, errWrongPassphrase) {
		s.guard.fail(token, ip, s.Now())
		return s.refusePassphrase(w, r, p, user)
	}
	if err != nil {
		return err
	}

	if p.OwnedBy(userID(user)) {
		if err := s.Store.LogEvent(ctx, p.ID, s.event(r, push.EventOwnerView, user, now)); err != nil {
			return err
		}
	} else {
		claimed, views, err := s.Store.ClaimView(ctx, p.ID, s.event(r, push.EventView, user, now))
		if err != nil {
			return err
		}
		if !claimed {
			if p, err = s.expireDue(r, p.ID, token); err != nil {
				return err
			}
			return s.showExpired(w, r, p, user)
		}
		p.ViewCount = views
		p.UpdatedAt = now
	}
	var shown *string
	if p.HasPassphrase {
		shown = &passphrase
	}
	writeJSON(w, http.StatusOK, shownPushJSON{
		pushJSON: s.render(r, p, shown, now),
		Payload:  &payload,
		Files:    []fileJSON{},
	})
	return nil
}

// expireDue expires a push past its limits and returns its new state.
func (s *Server) expireDue(r *http.Request, id int64, token string) (*push.Push, error) {
	if _, err := s.Store.ExpireIfDue(r.Context(), id, s.Now().UTC()); err != nil {
		return nil, err
	}
	return s.Store.PushByToken(r.Context(), token)
}

// showExpired answers a retrieval of an expired push: 200 with the expired
// object; the attempt is logged and lowers views_remaining, as the reference.
func (s *Server) showExpired(w http.ResponseWriter, r *http.Request, p *push.Push, user *push.User) error {
	now := s.Now().UTC()
	if err := s.Store.RecordFailedView(r.Context(), p.ID, s.event(r, push.EventFailedView, user, now)); err != nil {
		return err
	}
	p.ViewCount++
	writeJSON(w, http.StatusOK, shownPushJSON{
		pushJSON: s.render(r, p, nil, now),
		Files:    []fileJSON{},
	})
	return nil
}

// refusePassphrase logs failed_passphrase and answers 401 with the reference body.
func (s *Server) refusePassphrase(w http.ResponseWriter, r *http.Request, p *push.Push, user *push.User) error {
	if err := s.Store.LogEvent(r.Context(), p.ID, s.event(r, push.EventFailedPassphrase, user, s.Now().UTC())); err != nil {
		return err
	}
	writeJSON(w, http.StatusUnauthorized, passphraseErrorJSON{
		Error:   msgBadPassphrase,
		Message: msgNeedPassphras,
		Status:  "unauthorized",
	})
	return nil
}
