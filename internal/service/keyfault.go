package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hush/internal/push"
	"hush/internal/secure"
)

// A push sealed under a master key this instance does not hold cannot be
// opened here: an instance started without the key during a rotation, or
// left running on the old key after `hush key rotate`. Such a retrieval is
// answered 503 before anything is spent — no view, no passphrase guess —
// and the operator is told which setting is missing (docs/decisions.md,
// D58).

// errKeyMissing is the retrieval's error; it wraps secure.ErrUnknownKey.
func errKeyMissing(p *push.Push) error {
	return fmt.Errorf("push %d: %w", p.ID, secure.ErrUnknownKey)
}

// holdsKey is the claim's check (store.ClaimByKey) that the payload it
// is about to spend a view on can be opened here.
func (s *Service) holdsKey(p *push.Push) error {
	if !s.keys.Holds(p.PayloadSealed) {
		return errKeyMissing(p)
	}
	return nil
}

// keyFault answers an error of data sealed under a key this instance does
// not hold, or of sealing by a retired keyring (secure.Keyring.Retire), as
// 503; nil for other errors. The first is logged as the operator's to mend,
// at most once a minute as storage faults are; the second was logged when
// the keyring was retired, and /readyz says it.
func (s *Service) keyFault(ctx context.Context, err error) *push.Error {
	switch {
	case errors.Is(err, secure.ErrUnknownKey):
		now := time.Now().UnixNano()
		if last := s.keyLogged.Load(); now-last >= int64(faultRepeat) && s.keyLogged.CompareAndSwap(last, now) {
			s.log.ErrorContext(ctx, "a secret is sealed under a master key this instance does not hold: "+
				"start it with that key in HUSH_MASTER_KEY or HUSH_MASTER_KEY_PREVIOUS (during a rotation, "+
				"every instance needs the new key and the old one before `hush key rotate` runs)", "err", err)
		}
	case !errors.Is(err, secure.ErrRetired):
		return nil
	}
	return &push.Error{Code: push.CodeUnavailable, Message: MsgUnavailable}
}

// MsgKeyRetired is logged when this instance's master key is no longer the
// deployment's.
const MsgKeyRetired = "hush key rotate moved this deployment's data to a master key this instance does not " +
	"hold, so it seals nothing more (503) and is not ready: restart it with the new key in HUSH_MASTER_KEY " +
	"and the old one in HUSH_MASTER_KEY_PREVIOUS"
