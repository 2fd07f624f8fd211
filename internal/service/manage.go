package service

import (
	"context"

	"hush/internal/push"
)

// Page size and range of the audit and list endpoints.
const (
	PageSize = 50
	MaxPage  = 200
)

// Expire expires a push by hand: its owner may, and anyone when it is
// deletable by viewers. Otherwise an anonymous caller gets
// CodeUnauthenticated and a signed-in one CodeForbidden (docs/decisions.md, D5). An already
// expired push is returned unchanged.
func (s *Service) Expire(ctx context.Context, token string, u *push.User, m push.Meta) (*push.Push, error) {
	p, err := s.MayExpire(ctx, token, u)
	if err != nil {
		return nil, err
	}
	// An expired push is deleted too: the download links its last view
	// handed out stop (D14).
	changed, err := s.store.ExpireByHand(ctx, p.ID, s.event(push.EventExpire, u, m, s.Now()))
	switch {
	case err != nil:
		return nil, err
	case !changed && p.Expired:
		return p, nil // as read: only its links' time moved
	case changed:
		s.observe(EventExpired)
		s.receiptsQueued(p, push.ReceiptExpire)
	}
	return s.reload(ctx, p)
}

// MayExpire returns the push token names if u may expire it, without
// expiring it (a page asks for confirmation first); the errors are Expire's.
func (s *Service) MayExpire(ctx context.Context, token string, u *push.User) (*push.Push, error) {
	p, err := s.Lookup(ctx, token)
	if err != nil {
		return nil, err
	}
	deletable := p.DeletableByViewer != nil && *p.DeletableByViewer
	if !p.OwnedBy(UserID(u)) && !deletable {
		if u == nil {
			return nil, &push.Error{Code: push.CodeUnauthenticated, Message: MsgNotDeletable}
		}
		return nil, &push.Error{Code: push.CodeForbidden, Message: MsgNotDeletable}
	}
	return p, nil
}

// Audit returns one page of a push's audit log, oldest first; owner only.
func (s *Service) Audit(ctx context.Context, token string, u *push.User, page int) (*push.Push, []push.Event, error) {
	p, err := s.Lookup(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	if !p.OwnedBy(UserID(u)) {
		return nil, nil, &push.Error{Code: push.CodeForbidden, Message: MsgNotOwner}
	}
	if page < 1 || page > MaxPage {
		return nil, nil, &push.Error{Code: push.CodeBadRequest, Message: "Invalid page parameter"}
	}
	events, err := s.store.AuditLog(ctx, p.ID, PageSize, (page-1)*PageSize)
	return p, events, err
}

// Listed is a push in a list, with its url_token and note opened for the owner.
type Listed struct {
	Push *push.Push
	Note string
}

// List returns one page of the user's active or expired pushes, newest first.
// An owned push keeps its url_token sealed under the master key for this.
func (s *Service) List(ctx context.Context, u *push.User, expired bool, page int) ([]Listed, error) {
	pushes, err := s.store.ListPushes(ctx, u.ID, expired, PageSize, (page-1)*PageSize)
	if err != nil {
		return nil, err
	}
	out := make([]Listed, len(pushes))
	for i, p := range pushes {
		if p.URLToken, err = openToken(s.keys, p); err != nil {
			return nil, err
		}
		note, err := s.Note(p)
		if err != nil {
			return nil, err
		}
		out[i] = Listed{Push: p, Note: note}
	}
	return out, nil
}
