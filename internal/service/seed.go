package service

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"hush/internal/push"
)

// Seed stores n anonymous pushes made from req as Create makes them —
// resolved against the settings, a fresh token each, sealed under the master
// key, each with its creation audit entry — but created at `at` and all in
// one transaction. It is a fast way to fill a database for measurements
// (cmd/hush-seed), not a request path: nothing is observed or rate limited.
// It returns the pushes' tokens.
func (s *Service) Seed(ctx context.Context, req *push.CreateRequest, n int, at time.Time, m push.Meta) ([]string, error) {
	if req.NeedsAuth() {
		return nil, errors.New("seed: file pushes cannot be seeded")
	}
	d, err := push.Validate(req, &s.settings)
	if err != nil {
		return nil, err
	}
	at = at.UTC()
	ps := make([]*push.Push, n)
	evs := make([]push.Event, n)
	for i := range ps {
		p, passKey, err := s.newPush(ctx, nil, d, at)
		if err != nil {
			return nil, err
		}
		if _, err := s.sealPush(p, d, passKey); err != nil {
			return nil, err
		}
		ps[i], evs[i] = p, s.event(push.EventCreation, nil, m, at)
	}
	// Inserted in key order, the batch walks the token_key index once
	// instead of touching its pages at random (several times faster once the
	// index outgrows SQLite's page cache).
	slices.SortFunc(ps, func(a, b *push.Push) int { return strings.Compare(a.TokenKey, b.TokenKey) })
	if err := s.store.CreatePushes(ctx, ps, evs); err != nil {
		return nil, err
	}
	tokens := make([]string, n)
	for i, p := range ps {
		tokens[i] = p.URLToken
	}
	return tokens, nil
}
