package store

import (
	"context"
	"fmt"

	"hush/internal/push"
)

// CreatePushes inserts the pushes, each with its creation audit entry
// evs[i], in one transaction, exactly as CreatePush inserts one: a fast way
// to fill a database for measurements (cmd/hush-seed). A token_key
// collision fails the whole batch with push.CodeConflict.
func (s *Store) CreatePushes(ctx context.Context, ps []*push.Push, evs []push.Event) error {
	if len(ps) != len(evs) {
		return fmt.Errorf("create pushes: %d pushes but %d events", len(ps), len(evs))
	}
	ids, err := maintain(ctx, s, func(tx *Tx) ([]inserted, error) {
		ids := make([]inserted, len(ps))
		for i, p := range ps {
			var err error
			if ids[i], err = insertPush(ctx, tx, p, evs[i], nil); err != nil {
				return nil, err
			}
		}
		return ids, nil
	})
	if err != nil {
		return err
	}
	for i, p := range ps {
		ids[i].apply(p, nil)
	}
	return nil
}
