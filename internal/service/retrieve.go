package service

import (
	"context"
	"errors"
	"fmt"

	"hush/internal/push"
)

// Retrieval is the outcome of a retrieve. Payload is nil when the push was
// expired; Passphrase is the caller's own passphrase when it opened the push.
type Retrieval struct {
	Push       *push.Push
	Payload    *string
	Passphrase *string
	Files      []FileLink // download links, valid for push.FileLinkTTL
}

// Retrieve performs one retrieval: expire if a limit was reached, apply the
// passphrase gate and its guessing limits (D8), then claim the view
// atomically before the payload is released, so a push is never served more
// often than allowed. The owner's own retrievals do not count.
func (s *Service) Retrieve(ctx context.Context, token, passphrase string, u *push.User, m Meta) (*Retrieval, error) {
	p, err := s.Lookup(ctx, token)
	if err != nil {
		return nil, err
	}
	now := s.now()
	if !p.Expired && p.LimitsReached(now) {
		if p, err = s.expireDue(ctx, p.ID, token); err != nil {
			return nil, err
		}
	}
	if p.Expired {
		return s.expiredView(ctx, p, u, m)
	}
	if p.HasPassphrase && passphrase == "" {
		return nil, s.refusePassphrase(ctx, p, u, m)
	}
	if p.HasPassphrase {
		if err := s.checkGuesses(ctx, token, m.IP, now); err != nil {
			return nil, err
		}
	}
	passKey, err := s.passphraseKey(ctx, passphrase, p.PassphraseSalt)
	if err != nil {
		return nil, err
	}
	plain, err := s.openSecret(purposePayload, adFor(p.URLToken, "payload"), p.PayloadSealed, passKey)
	if errors.Is(err, errWrongPassphrase) {
		if err := s.failGuess(ctx, token, m.IP, s.now()); err != nil {
			return nil, err
		}
		return nil, s.refusePassphrase(ctx, p, u, m)
	}
	if err != nil {
		return nil, fmt.Errorf("push %d: %w", p.ID, err)
	}
	payload := string(plain)
	// File keys are opened before the view is claimed: the last view wipes them.
	opened, err := s.openFiles(ctx, p, passKey)
	if err != nil {
		return nil, err
	}

	if p.OwnedBy(UserID(u)) {
		if err := s.Store.LogEvent(ctx, p.ID, s.event(push.EventOwnerView, u, m, now)); err != nil {
			return nil, err
		}
	} else {
		claimed, views, err := s.Store.ClaimView(ctx, p.ID, s.event(push.EventView, u, m, now))
		if err != nil {
			return nil, err
		}
		if !claimed {
			if p, err = s.expireDue(ctx, p.ID, token); err != nil {
				return nil, err
			}
			return s.expiredView(ctx, p, u, m)
		}
		p.ViewCount = views
		s.observe(EventViewed)
		p.UpdatedAt = now
	}
	links, err := s.linkFiles(p, opened)
	if err != nil {
		return nil, err
	}
	r := &Retrieval{Push: p, Payload: &payload, Files: links}
	if p.HasPassphrase {
		r.Passphrase = &passphrase
	}
	return r, nil
}

// expireDue expires a push past its limits and returns its new state.
func (s *Service) expireDue(ctx context.Context, id int64, token string) (*push.Push, error) {
	if _, err := s.Store.ExpireIfDue(ctx, id, s.now()); err != nil {
		return nil, err
	}
	return s.Store.PushByToken(ctx, token)
}

// expiredView records a retrieval of an expired push: it is logged and lowers
// views_remaining, as the reference does.
func (s *Service) expiredView(ctx context.Context, p *push.Push, u *push.User, m Meta) (*Retrieval, error) {
	if err := s.Store.RecordFailedView(ctx, p.ID, s.event(push.EventFailedView, u, m, s.now())); err != nil {
		return nil, err
	}
	p.ViewCount++
	return &Retrieval{Push: p}, nil
}

// refusePassphrase logs failed_passphrase and returns ErrPassphrase.
func (s *Service) refusePassphrase(ctx context.Context, p *push.Push, u *push.User, m Meta) error {
	if err := s.Store.LogEvent(ctx, p.ID, s.event(push.EventFailedPassphrase, u, m, s.now())); err != nil {
		return err
	}
	return ErrPassphrase
}
