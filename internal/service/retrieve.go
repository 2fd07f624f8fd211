package service

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// RetrieveRequest is one retrieval of a push.
type RetrieveRequest struct {
	Token      string
	Passphrase string
	User       *push.User // nil: anonymous
	Meta       push.Meta
	// Check, when set, sees the opened payload before the view is claimed;
	// its error ends the retrieval with no view used (a page that cannot
	// show the payload must not spend the view).
	Check func(kind push.Kind, payload string) error
}

// Retrieve is RetrieveWith for a request without a check.
func (s *Service) Retrieve(ctx context.Context, token, passphrase string, u *push.User, m push.Meta) (*Retrieval, error) {
	return s.RetrieveWith(ctx, RetrieveRequest{Token: token, Passphrase: passphrase, User: u, Meta: m})
}

// RetrieveWith performs one retrieval: expire the push if a limit was
// reached, open it (the passphrase gate and its guessing limits), then claim
// the view atomically before the payload is released, so a push is never
// served more often than allowed. The owner's own retrievals do not count.
func (s *Service) RetrieveWith(ctx context.Context, req RetrieveRequest) (*Retrieval, error) {
	p, err := s.Lookup(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	if !p.Expired && p.LimitsReached(now) {
		if p, err = s.expireDue(ctx, p, now); err != nil {
			return nil, err
		}
	}
	if p.Expired {
		return s.expiredView(ctx, p, req, now)
	}
	plain, passKey, err := s.unlock(ctx, p, req, now)
	if err != nil {
		return nil, err
	}
	// File keys are opened before the view is claimed: the last view wipes them.
	opened, err := s.openFiles(ctx, p, passKey)
	if err != nil {
		return nil, err
	}
	payload := string(plain)
	if req.Check != nil {
		if err := req.Check(p.Kind, payload); err != nil {
			return nil, err
		}
	}
	if ok, err := s.claim(ctx, p, req, now); err != nil || !ok {
		if err != nil {
			return nil, err
		}
		if p, err = s.expireDue(ctx, p, now); err != nil {
			return nil, err
		}
		return s.expiredView(ctx, p, req, now)
	}
	links, err := s.linkFiles(p, opened)
	if err != nil {
		return nil, err
	}
	r := &Retrieval{Push: p, Payload: &payload, Files: links}
	if p.HasPassphrase {
		r.Passphrase = &req.Passphrase
	}
	return r, nil
}

// unlock opens the payload of an active push: directly, or, for a
// passphrase push, after reserving a guess under the passphrase limits.
// The reservation comes before the Argon2id derivation, so requests that
// arrive together are counted before any of them is evaluated; a right
// passphrase gives its slot back. It returns the payload and the key of the
// passphrase layer (nil without one).
func (s *Service) unlock(ctx context.Context, p *push.Push, req RetrieveRequest, now time.Time) (plain, passKey []byte, err error) {
	l := newLayers(s.keys, p.URLToken)
	if !p.HasPassphrase {
		if plain, err = l.open(purposePayload, "payload", p.PayloadSealed, nil); err != nil {
			return nil, nil, fmt.Errorf("push %d: %w", p.ID, err)
		}
		return plain, nil, nil
	}
	if req.Passphrase == "" {
		// Nothing is evaluated, so nothing is reserved; the audit entry is
		// written once per client and minute.
		if err := s.logNoise(ctx, p.ID, p.TokenKey, s.event(push.EventFailedPassphrase, req.User, req.Meta, now)); err != nil {
			return nil, nil, err
		}
		return nil, nil, ErrPassphrase
	}
	sl, err := s.reserve(ctx, now, tooManyGuesses, passphraseLimits(p.TokenKey, clientKey(req.Meta.IP))...)
	if err != nil {
		return nil, nil, err
	}
	if passKey, err = s.passphraseKey(ctx, req.Passphrase, p.PassphraseSalt); err != nil {
		return nil, nil, err
	}
	plain, err = l.open(purposePayload, "payload", p.PayloadSealed, passKey)
	if errors.Is(err, errWrongPassphrase) {
		// The slot stays taken: this failure counts against the limits.
		if err := s.store.LogEvent(ctx, p.ID, s.event(push.EventFailedPassphrase, req.User, req.Meta, now)); err != nil {
			return nil, nil, err
		}
		return nil, nil, ErrPassphrase
	}
	if err != nil {
		return nil, nil, fmt.Errorf("push %d: %w", p.ID, err)
	}
	if err := s.release(ctx, sl); err != nil {
		return nil, nil, err
	}
	return plain, passKey, nil
}

// claim counts the view (or logs the owner's own), reporting false when the
// push was used up meanwhile.
func (s *Service) claim(ctx context.Context, p *push.Push, req RetrieveRequest, now time.Time) (bool, error) {
	if p.OwnedBy(UserID(req.User)) {
		return true, s.store.LogEvent(ctx, p.ID, s.event(push.EventOwnerView, req.User, req.Meta, now))
	}
	claimed, views, err := s.store.ClaimView(ctx, p.ID, s.event(push.EventView, req.User, req.Meta, now))
	if err != nil || !claimed {
		return false, err
	}
	p.ViewCount = views
	p.UpdatedAt = now
	s.observe(EventViewed)
	return true, nil
}

// expireDue expires a push past its limits and returns its new state.
func (s *Service) expireDue(ctx context.Context, p *push.Push, now time.Time) (*push.Push, error) {
	if _, err := s.store.ExpireIfDue(ctx, p.ID, now); err != nil {
		return nil, err
	}
	return s.reload(ctx, p)
}

// expiredView records a retrieval of an expired push: it is logged and lowers
// views_remaining, as the reference does.
func (s *Service) expiredView(ctx context.Context, p *push.Push, req RetrieveRequest, now time.Time) (*Retrieval, error) {
	if err := s.store.RecordFailedView(ctx, p.ID, s.event(push.EventFailedView, req.User, req.Meta, now)); err != nil {
		return nil, err
	}
	p.ViewCount++
	return &Retrieval{Push: p}, nil
}
