package service

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"hush/internal/push"
	"hush/internal/secure"
)

// Purposes of the sub-keys derived from the master key.
const (
	purposePayload  = "push-payload"
	purposeNote     = "push-note"
	purposeFileKey  = "push-file-key"
	purposeFileLink = "file-link"
)

// adFor binds a ciphertext to its push and column, so rows cannot be swapped.
func adFor(token, field string) []byte { return []byte("hush/push/" + token + "/" + field) }

// fileKeyField is the field name of a file key in adFor and Reseal.
func fileKeyField(blobID string) string { return "file/" + blobID }

// passphraseKey derives the inner-layer key of a passphrase push; nil when
// the push has no passphrase.
func (s *Service) passphraseKey(ctx context.Context, passphrase string, salt []byte) ([]byte, error) {
	if salt == nil {
		return nil, nil
	}
	key, err := s.Argon.DeriveKey(ctx, passphrase, salt)
	if err != nil {
		return nil, fmt.Errorf("derive passphrase key: %w", err)
	}
	return key, nil
}

// sealSecret encrypts under the master key; with a passphrase key the
// plaintext is first sealed under it, so neither the database nor the master
// key alone can read it (D7), while the outer layer keeps key rotation
// possible without the passphrase.
func (s *Service) sealSecret(purpose string, ad, plain, passKey []byte) ([]byte, error) {
	if passKey != nil {
		var err error
		if plain, err = secure.SealWithKey(passKey, plain, ad); err != nil {
			return nil, err
		}
	}
	return s.Keys.Seal(purpose, plain, ad)
}

// openSecret reverses sealSecret: errWrongPassphrase when the passphrase key
// does not open the inner layer.
func (s *Service) openSecret(purpose string, ad, sealed, passKey []byte) ([]byte, error) {
	inner, err := s.Keys.Open(purpose, sealed, ad)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", purpose, err)
	}
	if passKey == nil {
		return inner, nil
	}
	plain, err := secure.OpenWithKey(passKey, inner, ad)
	if errors.Is(err, secure.ErrOpen) {
		return nil, errWrongPassphrase
	}
	return plain, err
}

func (s *Service) sealNote(token, note string) ([]byte, error) {
	if note == "" {
		return nil, nil
	}
	return s.Keys.Seal(purposeNote, []byte(note), adFor(token, "note"))
}

// Note opens the owner-only note of a push.
func (s *Service) Note(p *push.Push) (string, error) {
	if p.NoteSealed == nil {
		return "", nil
	}
	b, err := s.Keys.Open(purposeNote, p.NoteSealed, adFor(p.URLToken, "note"))
	if err != nil {
		return "", fmt.Errorf("open note of push %d: %w", p.ID, err)
	}
	return string(b), nil
}

// Reseal re-encrypts a stored value under the current master key (key
// rotation). Only the outer layer changes, so it works for passphrase pushes
// too. It reports false when the value is already current.
func Reseal(keys *secure.Keyring, token, field string, sealed []byte) ([]byte, bool, error) {
	if keys.Current(sealed) {
		return nil, false, nil
	}
	purpose := purposePayload
	switch {
	case field == "note":
		purpose = purposeNote
	case strings.HasPrefix(field, "file/"):
		purpose = purposeFileKey
	}
	ad := adFor(token, field)
	plain, err := keys.Open(purpose, sealed, ad)
	if err != nil {
		return nil, false, err
	}
	out, err := keys.Seal(purpose, plain, ad)
	return out, err == nil, err
}
