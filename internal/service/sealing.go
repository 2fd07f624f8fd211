package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
)

// Purposes of the sub-keys derived from the master key.
const (
	purposePayload = "push-payload"
	purposeNote    = "push-note"
	purposeFileKey = "push-file-key"
	purposeToken   = "push-token" // an owned push's url_token, for its owner's lists
	purposeTOTP    = "user-totp"  // an account's TOTP secret (twofactor.go), bound to the account by totpAD
)

// A push's secret values (payload, note, file keys) are sealed in layers,
// from the inside out:
//
//  1. the passphrase layer, for a passphrase-protected payload and its file
//     keys: AES-256-GCM under Argon2id(passphrase, per-push salt);
//  2. the token layer: AES-256-GCM under secure.TokenLayerKey(url_token);
//  3. the master layer: the keyring's AES-256-GCM under the master key.
//
// The database holds no url_token (only its key, secure.TokenKey), so the
// database and the master key together open layer 3 only: whoever wants the
// secret still needs the link. The inner layers' associated data names the
// token and the field; the master layer's names the token key and the
// field, so that key rotation, which knows no token, re-seals it alone.

// innerAD binds an inner layer to its push and field.
func innerAD(token, field string) []byte { return []byte("hush/push/" + token + "/" + field) }

// outerAD binds the master layer to its push and field.
func outerAD(tokenKey, field string) []byte { return []byte("hush/push-key/" + tokenKey + "/" + field) }

// fileKeyField is the field name of a file key in the associated data and Reseal.
func fileKeyField(blobID string) string { return "file/" + blobID }

// layers seals and opens the values of one push, whose url_token the caller
// knows. passKey is the passphrase layer's key (nil without a passphrase).
type layers struct {
	keys     *secure.Keyring
	token    string
	tokenKey string
	tokenLK  []byte // token layer key
}

func newLayers(keys *secure.Keyring, token string) *layers {
	return &layers{keys: keys, token: token, tokenKey: secure.TokenKey(token), tokenLK: secure.TokenLayerKey(token)}
}

// pushLayers are the layers of a stored push, whose token key the store
// gave with it (computed again only when it did not).
func pushLayers(keys *secure.Keyring, p *push.Push) *layers {
	if p.TokenKey == "" {
		return newLayers(keys, p.URLToken)
	}
	return &layers{keys: keys, token: p.URLToken, tokenKey: p.TokenKey, tokenLK: secure.TokenLayerKey(p.URLToken)}
}

// seal seals plain under every layer; passKey adds the passphrase layer.
func (l *layers) seal(purpose, field string, plain, passKey []byte) ([]byte, error) {
	ad := innerAD(l.token, field)
	var err error
	if passKey != nil {
		if plain, err = secure.SealWithKey(passKey, plain, ad); err != nil {
			return nil, err
		}
	}
	if plain, err = secure.SealWithKey(l.tokenLK, plain, ad); err != nil {
		return nil, err
	}
	return l.keys.Seal(purpose, plain, outerAD(l.tokenKey, field))
}

// open reverses seal: errWrongPassphrase when passKey does not open the
// passphrase layer.
func (l *layers) open(purpose, field string, sealed, passKey []byte) ([]byte, error) {
	inner, err := l.keys.Open(purpose, sealed, outerAD(l.tokenKey, field))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", purpose, err)
	}
	ad := innerAD(l.token, field)
	if inner, err = secure.OpenWithKey(l.tokenLK, inner, ad); err != nil {
		return nil, fmt.Errorf("open %s token layer: %w", purpose, err)
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

// sealToken seals the url_token of an owned push under the master key.
func (l *layers) sealToken() ([]byte, error) {
	return l.keys.Seal(purposeToken, []byte(l.token), outerAD(l.tokenKey, string(fieldToken)))
}

// fieldToken names an owned push's sealed url_token.
const fieldToken = "token"

// openToken opens the sealed url_token of an owned push.
func openToken(keys *secure.Keyring, p *push.Push) (string, error) {
	b, err := keys.Open(purposeToken, p.TokenSealed, outerAD(p.TokenKey, fieldToken))
	if err != nil {
		return "", fmt.Errorf("open token of push %d: %w", p.ID, err)
	}
	if secure.TokenKey(string(b)) != p.TokenKey {
		return "", fmt.Errorf("open token of push %d: it does not match the push", p.ID)
	}
	return string(b), nil
}

// passphraseKey derives the passphrase layer's key; nil when the push has
// no passphrase.
func (s *Service) passphraseKey(ctx context.Context, passphrase string, salt []byte) ([]byte, error) {
	if salt == nil {
		return nil, nil
	}
	key, err := s.argon.DeriveKey(ctx, passphrase, salt)
	if err != nil {
		return nil, fmt.Errorf("derive passphrase key: %w", err)
	}
	return key, nil
}

// Note opens the owner-only note of a push whose url_token is known.
func (s *Service) Note(p *push.Push) (string, error) {
	if p.NoteSealed == nil {
		return "", nil
	}
	if p.URLToken == "" {
		return "", fmt.Errorf("note of push %d: the url_token is not known", p.ID)
	}
	b, err := pushLayers(s.keys, p).open(purposeNote, "note", p.NoteSealed, nil)
	if err != nil {
		return "", fmt.Errorf("note of push %d: %w", p.ID, err)
	}
	return string(b), nil
}

// Reseal re-encrypts a stored value's master layer under the current master
// key (key rotation); an account's TOTP secret is sealed under the master
// key alone and is re-sealed whole. The inner layers are left as they are, so neither the
// passphrase nor the link is needed. It reports false when the value is
// already current.
func Reseal(keys *secure.Keyring, tokenKey, field string, sealed []byte) ([]byte, bool, error) {
	if keys.Current(sealed) {
		return nil, false, nil
	}
	if field == string(store.FieldWebhookSecret) {
		return resealHook(keys, tokenKey, sealed)
	}
	if strings.HasPrefix(field, "outbox/") {
		return resealOutbox(keys, tokenKey, field, sealed)
	}
	purpose, ad := purposeFor(field), outerAD(tokenKey, field)
	if id, ok := strings.CutPrefix(field, store.TOTPFieldPrefix); ok {
		userID, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("reseal %s: %w", field, err)
		}
		purpose, ad = purposeTOTP, totpAD(userID)
	}
	plain, err := keys.Open(purpose, sealed, ad)
	if err != nil {
		return nil, false, err
	}
	out, err := keys.Seal(purpose, plain, ad)
	return out, err == nil, err
}

// purposeFor is the sub-key purpose of a sealed field.
func purposeFor(field string) string {
	switch {
	case field == "note":
		return purposeNote
	case field == fieldToken:
		return purposeToken
	case strings.HasPrefix(field, "file/"):
		return purposeFileKey
	}
	return purposePayload
}
