package service

import (
	"context"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
)

// urlTokenBytes gives url_tokens 128 random bits (docs/decisions.md, D10), after the
// millisecond of their creation (secure.NewOrderedToken): 30 URL-safe
// characters. The time prefix keeps a burst of creates in a few pages of
// the url_token index, where random tokens put each create in a page of its
// own — the largest single cost of a create on SQLite (docs/performance.md).
const urlTokenBytes = 16

// Created is a new push with the validated draft it came from (the draft
// holds the plaintext the creator may see again in the response).
type Created struct {
	Push  *push.Push
	Draft *push.Draft
	Files []*push.File
}

// CreateInput is one create request.
type CreateInput struct {
	User    *push.User // nil: anonymous
	Request *push.CreateRequest
	Uploads *Uploads // the request's files; nil: none
	Meta    push.Meta
	// Origin is the request's scheme://host, for the link emailed to the
	// recipients it names (notify_emails_to) where the instance has no
	// fixed origin (linkOrigin).
	Origin string
}

// Create validates the request against the settings, seals the secret and
// stores the push, its files and its audit entries in one transaction. On
// success the uploads belong to the push (their Discard does nothing); on
// any error they are still the caller's, to discard.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Created, error) {
	u, req := in.User, *in.Request
	if u == nil && req.NeedsAuth() {
		return nil, &push.Error{Code: push.CodeUnauthenticated, Message: MsgSignIn}
	}
	var uploaded []*upload
	if in.Uploads != nil {
		req.FileCount = in.Uploads.Count()
		uploaded = in.Uploads.files
	}
	if u == nil {
		req.Errors = s.anonymousEmailErrors(&req)
	}
	d, err := push.Validate(&req, &s.settings)
	if err != nil {
		return nil, err
	}
	if len(uploaded) > 0 && s.files == nil {
		return nil, &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{"files": {"File pushes are disabled."}}}
	}
	now := s.Now()
	p, passKey, err := s.newPush(ctx, u, d, now)
	if err != nil {
		return nil, err
	}
	if u != nil && s.settings.Receipts {
		p.Receipts = req.ReceiptsWith(u.ReceiptsDefault)
	}
	rows, err := s.sealAndStore(ctx, p, d, in, uploaded, passKey)
	if err != nil {
		return nil, err
	}
	if in.Uploads != nil {
		in.Uploads.kept = true
	}
	if len(d.NotifyTo) > 0 {
		s.wake()
	}
	s.observe(EventCreated)
	return &Created{Push: p, Draft: d, Files: rows}, nil
}

// sealAndStore seals p (a fresh url_token, its payload, note and files)
// and stores it with its files and the messages that email its link,
// trying again with another token in the unlikely event of a collision. It
// returns the stored files.
func (s *Service) sealAndStore(ctx context.Context, p *push.Push, d *push.Draft, in CreateInput, uploaded []*upload, passKey []byte) ([]*push.File, error) {
	now := p.CreatedAt
	for attempt := 0; ; attempt++ {
		l, err := s.sealPush(p, d, passKey)
		if err != nil {
			return nil, err
		}
		rows, err := sealFiles(l, uploaded, passKey)
		if err != nil {
			return nil, err
		}
		n, err := s.notice(in.User, p, d.NotifyTo, d.NotifyLocale, in.Origin, s.event(push.EventCreationEmailSend, in.User, in.Meta, now))
		if err != nil {
			return nil, err
		}
		err = s.store.CreatePushNotify(ctx, p, s.event(push.EventCreation, in.User, in.Meta, now), rows, n)
		if push.ErrorCode(err) != push.CodeConflict || attempt == 2 {
			return rows, err
		}
	}
}

// newPush is the push a validated draft makes for u at now, not yet sealed,
// with the key of its passphrase layer (nil without a passphrase).
func (s *Service) newPush(ctx context.Context, u *push.User, d *push.Draft, now time.Time) (*push.Push, []byte, error) {
	p := &push.Push{
		Kind:              d.Kind,
		UserID:            UserID(u),
		Name:              d.Name,
		ExpireAfterDays:   d.ExpireAfterDays,
		ExpireAfter:       d.ExpireAfter,
		ExpireAfterViews:  d.ExpireAfterViews,
		DeletableByViewer: d.DeletableByViewer,
		RetrievalStep:     d.RetrievalStep,
		Locale:            d.Locale,
		CreatedAt:         now,
		UpdatedAt:         now,
	}
	if d.Passphrase != "" {
		var err error
		if p.PassphraseSalt, err = secure.NewSalt(); err != nil {
			return nil, nil, err
		}
		p.HasPassphrase = true
	}
	passKey, err := s.passphraseKey(ctx, d.Passphrase, p.PassphraseSalt)
	if err != nil {
		return nil, nil, err
	}
	return p, passKey, nil
}

// sealPush gives p a fresh url_token, which opens with p's creation time,
// and its token key, and seals its payload and note under every layer
// (sealing.go). An owned push also keeps its token sealed for its owner's
// lists. It returns the layers, for the push's files.
func (s *Service) sealPush(p *push.Push, d *push.Draft, passKey []byte) (*layers, error) {
	var err error
	if p.URLToken, err = secure.NewOrderedToken(p.CreatedAt, urlTokenBytes); err != nil {
		return nil, err
	}
	l := newLayers(s.keys, p.URLToken)
	p.TokenKey = l.tokenKey
	if p.PayloadSealed, err = l.seal(purposePayload, "payload", []byte(d.Payload), passKey); err != nil {
		return nil, err
	}
	p.NoteSealed = nil
	if d.Note != "" {
		if p.NoteSealed, err = l.seal(purposeNote, "note", []byte(d.Note), nil); err != nil {
			return nil, err
		}
	}
	p.TokenSealed = nil
	if p.UserID != 0 {
		if p.TokenSealed, err = l.sealToken(); err != nil {
			return nil, err
		}
	}
	return l, nil
}
