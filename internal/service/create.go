package service

import (
	"context"

	"hush/internal/push"
	"hush/internal/secure"
)

// urlTokenBytes gives 128-bit url_tokens (D10): 22 URL-safe characters.
const urlTokenBytes = 16

// Created is a new push with the validated draft it came from (the draft
// holds the plaintext the creator may see again in the response).
type Created struct {
	Push  *push.Push
	Draft *push.Draft
}

// Create validates the params against the settings, seals the secret and
// stores the push with its creation audit entry. The caller has already
// checked that u may create at all.
func (s *Service) Create(ctx context.Context, u *push.User, params push.Params, fileCount int, m Meta) (*Created, error) {
	if u == nil && push.NeedsAuth(params) {
		return nil, &push.Error{Code: push.CodeUnauthenticated, Message: MsgSignIn}
	}
	d, err := push.Resolve(params, fileCount, &s.Settings)
	if err != nil {
		return nil, err
	}
	if fileCount > 0 {
		return nil, &push.Error{Code: push.CodeInvalid, Fields: map[string][]string{
			"files": {"File attachments are not available on this server yet."}}}
	}
	now := s.now()
	p := &push.Push{
		Kind:              d.Kind,
		UserID:            UserID(u),
		Name:              d.Name,
		ExpireAfterDays:   d.ExpireAfterDays,
		ExpireAfterViews:  d.ExpireAfterViews,
		DeletableByViewer: d.DeletableByViewer,
		RetrievalStep:     d.RetrievalStep,
		CreatedAt:         now,
		UpdatedAt:         now,
	}
	for attempt := 0; ; attempt++ {
		if p.URLToken, err = secure.NewToken(urlTokenBytes); err != nil {
			return nil, err
		}
		if p.PayloadSealed, p.PassphraseSalt, err = s.sealPayload(ctx, p.URLToken, d.Payload, d.Passphrase); err != nil {
			return nil, err
		}
		p.HasPassphrase = p.PassphraseSalt != nil
		if p.NoteSealed, err = s.sealNote(p.URLToken, d.Note); err != nil {
			return nil, err
		}
		err = s.Store.CreatePush(ctx, p, s.event(push.EventCreation, u, m, now))
		if push.ErrorCode(err) != push.CodeConflict || attempt == 2 {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return &Created{Push: p, Draft: d}, nil
}
