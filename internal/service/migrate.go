package service

import (
	"context"
	"fmt"

	"hush/internal/secure"
	"hush/internal/store"
)

// MigrateTokens converts the pushes stored before secret links left the
// database (store.LegacyPush): for each, it derives the token key, seals the
// token for an owned push's lists, adds the token layer to its payload, note
// and file keys (so that, like every push since, the database and the master
// key together cannot read it), and empties the clear token. Every step is
// conditional on the push being unchanged, so several instances may run it at
// once and a push expired meanwhile keeps its expiry. progress, when set, is
// told how many pushes were converted so far and how many were left at the
// start. It returns how many it converted.
func MigrateTokens(ctx context.Context, st *store.Store, keys *secure.Keyring, progress func(done, total int)) (int, error) {
	total, err := st.LegacyCount(ctx)
	if err != nil || total == 0 {
		return 0, err
	}
	done, stalled := 0, 0
	for {
		batch, err := st.LegacyPushes(ctx, 200)
		if err != nil || len(batch) == 0 {
			return done, err
		}
		converted := 0
		for _, p := range batch {
			c, err := convertLegacy(keys, p)
			if err != nil {
				return done, err
			}
			ok, err := st.ConvertLegacy(ctx, p, c)
			if err != nil {
				return done, err
			}
			if ok {
				converted++
			}
		}
		done += converted
		if progress != nil {
			progress(done, total)
		}
		// A push that changed under us is read again by the next pass; a
		// batch that keeps changing is not worth waiting for.
		if stalled = stalled + 1; converted > 0 {
			stalled = 0
		}
		if stalled == 3 {
			return done, fmt.Errorf("migrate tokens: %d pushes kept changing while being converted", len(batch))
		}
	}
}

// legacyAD is the associated data of a value sealed before token keys: it
// named the clear token.
func legacyAD(token, field string) []byte { return innerAD(token, field) }

// convertLegacy re-seals one legacy push.
func convertLegacy(keys *secure.Keyring, p *store.LegacyPush) (*store.Converted, error) {
	l := newLayers(keys, p.Token)
	c := &store.Converted{TokenKey: l.tokenKey}
	reseal := func(purpose, field string, sealed []byte) ([]byte, error) {
		if sealed == nil {
			return nil, nil
		}
		inner, err := keys.Open(purpose, sealed, legacyAD(p.Token, field))
		if err != nil {
			return nil, fmt.Errorf("migrate push %d %s: %w", p.ID, field, err)
		}
		// inner is the plaintext, or the passphrase layer's ciphertext for a
		// passphrase push: either way the token layer goes around it.
		withToken, err := secure.SealWithKey(l.tokenLK, inner, innerAD(p.Token, field))
		if err != nil {
			return nil, err
		}
		return keys.Seal(purpose, withToken, outerAD(l.tokenKey, field))
	}
	var err error
	if c.Payload, err = reseal(purposePayload, "payload", p.Payload); err != nil {
		return nil, err
	}
	if c.Note, err = reseal(purposeNote, "note", p.Note); err != nil {
		return nil, err
	}
	for _, f := range p.Files {
		k, err := reseal(purposeFileKey, fileKeyField(f.BlobID), f.Key)
		if err != nil {
			return nil, err
		}
		c.FileKeys = append(c.FileKeys, k)
	}
	if p.UserID != 0 {
		if c.TokenSealed, err = l.sealToken(); err != nil {
			return nil, err
		}
	}
	return c, nil
}
