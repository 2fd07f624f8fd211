package service

import (
	"context"
	"errors"
	"fmt"

	"hush/internal/push"
	"hush/internal/secure"
)

// Purposes of the sub-keys derived from the master key.
const (
	purposePayload = "push-payload"
	purposeNote    = "push-note"
)

// adFor binds a ciphertext to its push and column, so rows cannot be swapped.
func adFor(token, field string) []byte { return []byte("hush/push/" + token + "/" + field) }

// sealPayload encrypts a payload under the master key. With a passphrase the
// plaintext is first sealed under Argon2id(passphrase, salt), so neither the
// database nor the master key alone can read it (D7); the outer layer keeps
// key rotation possible without the passphrase.
func (s *Service) sealPayload(ctx context.Context, token, payload, passphrase string) (sealed, salt []byte, err error) {
	ad := adFor(token, "payload")
	plain := []byte(payload)
	if passphrase != "" {
		if salt, err = secure.NewSalt(); err != nil {
			return nil, nil, err
		}
		key, err := s.Argon.DeriveKey(ctx, passphrase, salt)
		if err != nil {
			return nil, nil, fmt.Errorf("derive passphrase key: %w", err)
		}
		if plain, err = secure.SealWithKey(key, plain, ad); err != nil {
			return nil, nil, err
		}
	}
	sealed, err = s.Keys.Seal(purposePayload, plain, ad)
	return sealed, salt, err
}

// openPayload decrypts a payload; errWrongPassphrase when the passphrase does
// not open the inner layer.
func (s *Service) openPayload(ctx context.Context, p *push.Push, passphrase string) (string, error) {
	ad := adFor(p.URLToken, "payload")
	inner, err := s.Keys.Open(purposePayload, p.PayloadSealed, ad)
	if err != nil {
		return "", fmt.Errorf("open payload of push %d: %w", p.ID, err)
	}
	if !p.HasPassphrase {
		return string(inner), nil
	}
	key, err := s.Argon.DeriveKey(ctx, passphrase, p.PassphraseSalt)
	if err != nil {
		return "", fmt.Errorf("derive passphrase key: %w", err)
	}
	plain, err := secure.OpenWithKey(key, inner, ad)
	if errors.Is(err, secure.ErrOpen) {
		return "", errWrongPassphrase
	}
	return string(plain), err
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
// rotation). It reports false when the value is already current.
func Reseal(keys *secure.Keyring, token, field string, sealed []byte) ([]byte, bool, error) {
	if keys.Current(sealed) {
		return nil, false, nil
	}
	purpose := purposePayload
	if field == "note" {
		purpose = purposeNote
	}
	ad := adFor(token, field)
	plain, err := keys.Open(purpose, sealed, ad)
	if err != nil {
		return nil, false, err
	}
	out, err := keys.Seal(purpose, plain, ad)
	return out, err == nil, err
}
