package service

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
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
	// Stamp, when set, is the ViewStamp of the page the request comes
	// from: the view is spent only while the push is as that page saw it,
	// and otherwise the retrieval fails with ErrStale and no view used
	// (docs/decisions.md, D47).
	Stamp *string
}

// ErrStale refuses a retrieval whose page is out of date: the push has
// been viewed since that page was made, so the request is a reload or a
// resubmission rather than a fresh wish to spend a view.
var ErrStale = &push.Error{Code: push.CodeConflict, Message: "This secret was opened from this page already; reloading does not open it again."}

// viewStampPurpose derives the key of view stamps.
const viewStampPurpose = "view-stamp"

// ViewStamp is a value for a recipient's form, bound to the push and its
// view count when the form is made: a digest under the master key, so it
// reveals neither the count nor anything else.
func (s *Service) ViewStamp(p *push.Push) string {
	m, err := s.keys.MAC(viewStampPurpose, fmt.Appendf(nil, "%s|%d", p.TokenKey, p.ViewCount))
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(m)
}

// stampFits reports whether the request carries no stamp or the push's own.
func (s *Service) stampFits(p *push.Push, req RetrieveRequest) bool {
	if req.Stamp == nil {
		return true
	}
	want := s.ViewStamp(p)
	return want != "" && subtle.ConstantTimeCompare([]byte(*req.Stamp), []byte(want)) == 1
}

// Retrieve is RetrieveWith for a request without a check.
func (s *Service) Retrieve(ctx context.Context, token, passphrase string, u *push.User, m push.Meta) (*Retrieval, error) {
	return s.RetrieveWith(ctx, RetrieveRequest{Token: token, Passphrase: passphrase, User: u, Meta: m})
}

// RetrieveWith performs one retrieval with one reading of the clock: the
// gate (expire the push if a limit was reached, open it behind its
// passphrase and guessing limits, and the caller's check), then the claim
// of the view, atomic, before the payload is released — so a push is never
// served more often than allowed. The owner's own retrievals do not count.
func (s *Service) RetrieveWith(ctx context.Context, req RetrieveRequest) (*Retrieval, error) {
	now := s.Now()
	if req.User == nil && req.Check == nil && req.Stamp == nil && ValidToken(req.Token) {
		if r, err := s.claimFirst(ctx, req, now); r != nil || err != nil {
			return r, err
		}
	}
	p, err := s.current(ctx, req.Token, now)
	if err != nil {
		return nil, err
	}
	if p.Expired {
		return s.expiredView(ctx, p, req, now)
	}
	o, err := s.gate(ctx, p, req, now)
	if err != nil {
		return nil, err
	}
	if !s.stampFits(p, req) {
		return nil, ErrStale
	}
	return s.claimAndServe(ctx, p, req, o, now)
}

// claimFirst is the retrieval of an anonymous caller when the push is
// active and has neither passphrase nor files: nothing needs opening
// before the view is spent, so the claim comes first and returns the row
// (store.ClaimByKey, which first makes sure this instance holds the
// payload's master key: holdsKey), and the payload is opened after it.
// nil, nil sends the caller down the full path.
func (s *Service) claimFirst(ctx context.Context, req RetrieveRequest, now time.Time) (*Retrieval, error) {
	p, err := s.store.ClaimByKey(ctx, secure.TokenKey(req.Token), s.event(push.EventView, nil, req.Meta, now), s.holdsKeyFn)
	if p == nil || err != nil {
		return nil, err
	}
	p.URLToken = req.Token
	plain, err := pushLayers(s.keys, p).open(purposePayload, "payload", p.PayloadSealed, nil)
	if err != nil {
		return nil, fmt.Errorf("push %d: %w", p.ID, err)
	}
	if p.Expired {
		// The last view is answered as the push was before it, as the full
		// path and Password Pusher answer it: not yet expired.
		p.Expired, p.ExpiredOn = false, time.Time{}
	}
	s.observe(EventViewed)
	s.receiptsQueued(p, push.ReceiptView|push.ReceiptExpire)
	payload := string(plain)
	return &Retrieval{Push: p, Payload: &payload}, nil
}

// opened is what the gate opened of an active push.
type opened struct {
	payload string
	files   []openedFile
}

// current loads the push a token names, expired first if a limit was
// reached by now.
func (s *Service) current(ctx context.Context, token string, now time.Time) (*push.Push, error) {
	p, err := s.Lookup(ctx, token)
	if err != nil || p.Expired || !p.LimitsReached(now) {
		return p, err
	}
	return s.expireDue(ctx, p, now)
}

// gate opens an active push for the request: its payload (behind the
// passphrase and its limits), its files' keys — before the view is claimed,
// because the last view wipes them — and the caller's check.
func (s *Service) gate(ctx context.Context, p *push.Push, req RetrieveRequest, now time.Time) (opened, error) {
	if err := s.holdsKey(p); err != nil {
		// Before a passphrase guess is reserved: it could not be checked.
		return opened{}, err
	}
	plain, passKey, err := s.unlock(ctx, p, req, now)
	if err != nil {
		return opened{}, err
	}
	o := opened{payload: string(plain)}
	if o.files, err = s.openFiles(ctx, p, passKey); err != nil {
		return opened{}, err
	}
	if req.Check != nil {
		if err := req.Check(p.Kind, o.payload); err != nil {
			return opened{}, err
		}
	}
	return o, nil
}

// claimAndServe claims the view and hands out what the gate opened, or,
// when the push was used up meanwhile, records a retrieval of an expired
// push.
func (s *Service) claimAndServe(ctx context.Context, p *push.Push, req RetrieveRequest, o opened, now time.Time) (*Retrieval, error) {
	ok, err := s.claim(ctx, p, req, now)
	if err != nil {
		return nil, err
	}
	if !ok {
		if req.Stamp != nil {
			// The count moved between the check and the claim: stale, unless
			// the push was used up or ran out of time meanwhile.
			q, err := s.reload(ctx, p)
			if err != nil {
				return nil, err
			}
			if !q.Expired && !q.LimitsReached(now) {
				return nil, ErrStale
			}
		}
		if p, err = s.expireDue(ctx, p, now); err != nil {
			return nil, err
		}
		return s.expiredView(ctx, p, req, now)
	}
	links, err := s.linkFiles(p, o.files)
	if err != nil {
		return nil, err
	}
	r := &Retrieval{Push: p, Payload: &o.payload, Files: links}
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
	l := pushLayers(s.keys, p)
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
		ev := s.event(push.EventFailedPassphrase, req.User, req.Meta, now)
		if err := s.store.LogEvent(ctx, p.ID, ev); err != nil {
			return nil, nil, err
		}
		if err := s.failedReceipt(ctx, p, ev); err != nil {
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

// claim counts the view (or logs an admin's or the owner's own), reporting
// false when the push was used up meanwhile.
func (s *Service) claim(ctx context.Context, p *push.Push, req RetrieveRequest, now time.Time) (bool, error) {
	if kind, ok := uncounted(p, req.User); ok {
		// An admin's or the owner's view counts nothing, but a push deleted
		// or used up since it was read is not served to them either.
		return s.store.LogUncountedView(ctx, p.ID, s.event(kind, req.User, req.Meta, now))
	}
	seen := -1
	if req.Stamp != nil {
		seen = p.ViewCount
	}
	c, err := s.store.ClaimViewAt(ctx, p.ID, seen, s.event(push.EventView, req.User, req.Meta, now))
	if err != nil || !c.Claimed {
		return false, err
	}
	p.ViewCount = c.ViewCount
	if p.ViewCount >= p.ExpireAfterViews {
		p.UpdatedAt = now // the last view expired it (store.ClaimView)
	}
	s.observe(EventViewed)
	s.receiptsQueued(p, push.ReceiptView|push.ReceiptExpire)
	return true, nil
}

// uncounted reports whether u's retrieval of p counts no view, and the kind
// of its audit entry: admin_view for an admin (whoever owns the push),
// owner_view for the push's owner — as Password Pusher logs them.
func uncounted(p *push.Push, u *push.User) (push.EventKind, bool) {
	switch {
	case u == nil:
		return 0, false
	case u.Admin:
		return push.EventAdminView, true
	case p.OwnedBy(u.ID):
		return push.EventOwnerView, true
	}
	return 0, false
}

// expireDue expires a push past its limits and returns its new state: the
// row the expiry returned, or, when another request expired it first, the
// row as that one left it.
func (s *Service) expireDue(ctx context.Context, p *push.Push, now time.Time) (*push.Push, error) {
	q, err := s.store.ExpireIfDue(ctx, p.ID, now)
	if err != nil {
		return nil, err
	}
	if q == nil {
		return s.reload(ctx, p)
	}
	q.URLToken = p.URLToken
	s.receiptsQueued(q, push.ReceiptExpire)
	return q, nil
}

// expiredView records a retrieval of an expired push: it is logged and lowers
// views_remaining, as Password Pusher does.
func (s *Service) expiredView(ctx context.Context, p *push.Push, req RetrieveRequest, now time.Time) (*Retrieval, error) {
	if err := s.store.RecordFailedView(ctx, p.ID, s.event(push.EventFailedView, req.User, req.Meta, now)); err != nil {
		return nil, err
	}
	p.ViewCount++
	return &Retrieval{Push: p}, nil
}
