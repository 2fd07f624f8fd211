// Package secure holds the cryptography of the secret-sharing service:
// authenticated encryption under rotatable master keys, passphrase-derived
// keys, password hashing and random tokens.
package secure

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrOpen is returned (possibly wrapped) by every failure to open sealed
// data: wrong key, tampering, truncation, unknown key id or bad version.
var ErrOpen = errors.New("secure: cannot open sealed data")

// ErrUnknownKey is wrapped, with ErrOpen, by a failure to open data sealed
// under a master key the keyring does not hold: after a rotation, an
// instance started without the key the data is under.
var ErrUnknownKey = errors.New("sealed under a master key this keyring does not hold")

const (
	// keySize is the size in bytes of master keys and AES-256 keys.
	keySize = 32

	version   byte = 0x01
	keyIDSize      = 8
	nonceSize      = 12
	tagSize        = 16
	infoBase       = "hush/v1/"
	keyIDInfo      = "hush key id"
)

// errKeyFormat deliberately carries no part of the rejected input.
var errKeyFormat = errors.New("secure: a master key must be 64 hexadecimal characters (32 bytes)")

// ParseHexKey decodes a 64-hex-character master key, ignoring surrounding
// whitespace. The returned error never contains the input.
func ParseHexKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) != 2*keySize {
		return nil, errKeyFormat
	}
	key, err := hex.DecodeString(s)
	if err != nil {
		// The hex error quotes the offending character, so it is not wrapped.
		return nil, errKeyFormat
	}
	return key, nil
}

// GenerateKey returns a new random 32-byte key.
func GenerateKey() ([]byte, error) {
	return randomBytes(keySize)
}

func randomBytes(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("secure: reading random bytes: %w", err)
	}
	return b, nil
}

// masterKey is one master key of a Keyring with its cache of derived AEADs.
type masterKey struct {
	id    [keyIDSize]byte
	key   []byte
	aeads sync.Map // purpose (string) -> cipher.AEAD
}

func newMasterKey(key []byte) (*masterKey, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("secure: master key is %d bytes, want %d", len(key), keySize)
	}
	mk := &masterKey{key: bytes.Clone(key)}
	h := sha256.New()
	h.Write([]byte(keyIDInfo))
	h.Write(mk.key)
	copy(mk.id[:], h.Sum(nil))
	return mk, nil
}

// aead returns the AES-256-GCM AEAD for the sub-key derived for purpose.
func (mk *masterKey) aead(purpose string) (cipher.AEAD, error) {
	if v, ok := mk.aeads.Load(purpose); ok {
		return v.(cipher.AEAD), nil
	}
	sub, err := hkdf.Key(sha256.New, mk.key, nil, infoBase+purpose, keySize)
	if err != nil {
		return nil, fmt.Errorf("secure: deriving sub-key: %w", err)
	}
	a, err := newGCM(sub)
	if err != nil {
		return nil, err
	}
	v, _ := mk.aeads.LoadOrStore(purpose, a)
	return v.(cipher.AEAD), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secure: creating cipher: %w", err)
	}
	a, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secure: creating GCM: %w", err)
	}
	return a, nil
}

// Keyring holds the current master key, which seals and opens, and previous
// master keys, which only open. It is safe for concurrent use.
type Keyring struct {
	current *masterKey
	byID    map[[keyIDSize]byte]*masterKey
	// retired is set once the deployment's data moved to a master key this
	// keyring does not hold (Retire): it seals nothing more.
	retired atomic.Bool
}

// ErrRetired is returned by Seal once the keyring is retired: what it
// sealed now, the rest of the deployment could not open once the old key
// is dropped.
var ErrRetired = errors.New("secure: the master key was rotated away from this keyring's current key")

// Retire makes Seal refuse from now on, or again allows it (false).
func (k *Keyring) Retire(retired bool) { k.retired.Store(retired) }

// Retired reports whether Retire made Seal refuse.
func (k *Keyring) Retired() bool { return k.retired.Load() }

// NewKeyring returns a keyring sealing under current and also opening data
// sealed under any of previous. Every key must be exactly 32 bytes.
func NewKeyring(current []byte, previous ...[]byte) (*Keyring, error) {
	cur, err := newMasterKey(current)
	if err != nil {
		return nil, fmt.Errorf("current key: %w", err)
	}
	k := &Keyring{current: cur, byID: map[[keyIDSize]byte]*masterKey{cur.id: cur}}
	for i, p := range previous {
		mk, err := newMasterKey(p)
		if err != nil {
			return nil, fmt.Errorf("previous key %d: %w", i, err)
		}
		if _, dup := k.byID[mk.id]; !dup {
			k.byID[mk.id] = mk
		}
	}
	return k, nil
}

// keyringAD builds the GCM additional data: version | key id | caller's ad.
func keyringAD(id []byte, ad []byte) []byte {
	out := make([]byte, 0, 1+len(id)+len(ad))
	out = append(out, version)
	out = append(out, id...)
	return append(out, ad...)
}

// Seal encrypts plaintext with AES-256-GCM under a sub-key derived by
// HKDF-SHA256 from the current master key with info "hush/v1/"+purpose.
// The output is version (1 byte) | key id (8) | nonce (12) | ciphertext+tag;
// the version and key id are authenticated together with ad.
func (k *Keyring) Seal(purpose string, plaintext, ad []byte) ([]byte, error) {
	nonce, err := randomBytes(nonceSize)
	if err != nil {
		return nil, err
	}
	return k.sealNonce(purpose, nonce, plaintext, ad)
}

// sealNonce is Seal with a caller-chosen nonce; tests use it to build
// deterministic sealed values.
func (k *Keyring) sealNonce(purpose string, nonce, plaintext, ad []byte) ([]byte, error) {
	if k.retired.Load() {
		return nil, ErrRetired
	}
	a, err := k.current.aead(purpose)
	if err != nil {
		return nil, err
	}
	if len(nonce) != nonceSize {
		return nil, fmt.Errorf("secure: nonce is %d bytes, want %d", len(nonce), nonceSize)
	}
	out := make([]byte, 0, 1+keyIDSize+nonceSize+len(plaintext)+a.Overhead())
	out = append(out, version)
	out = append(out, k.current.id[:]...)
	out = append(out, nonce...)
	return a.Seal(out, nonce, plaintext, keyringAD(k.current.id[:], ad)), nil
}

// Open reverses Seal with whichever keyring key matches the key id in
// sealed. Every failure returns an error wrapping ErrOpen.
func (k *Keyring) Open(purpose string, sealed, ad []byte) ([]byte, error) {
	header := 1 + keyIDSize + nonceSize
	if len(sealed) < header+tagSize {
		return nil, fmt.Errorf("%w: too short", ErrOpen)
	}
	if sealed[0] != version {
		return nil, fmt.Errorf("%w: unknown version", ErrOpen)
	}
	var id [keyIDSize]byte
	copy(id[:], sealed[1:1+keyIDSize])
	mk, ok := k.byID[id]
	if !ok {
		return nil, fmt.Errorf("%w: %w", ErrOpen, ErrUnknownKey)
	}
	a, err := mk.aead(purpose)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	pt, err := a.Open(nil, sealed[1+keyIDSize:header], sealed[header:], keyringAD(id[:], ad))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	return pt, nil
}

// Holds reports whether the keyring holds the key sealed names: false for
// data under another master key, and for garbage.
func (k *Keyring) Holds(sealed []byte) bool {
	if len(sealed) < 1+keyIDSize+nonceSize+tagSize || sealed[0] != version {
		return false
	}
	_, ok := k.byID[[keyIDSize]byte(sealed[1:1+keyIDSize])]
	return ok
}

// Current reports whether sealed looks like data sealed under the current
// key. It returns false for garbage and for data under previous keys.
func (k *Keyring) Current(sealed []byte) bool {
	if len(sealed) < 1+keyIDSize+nonceSize+tagSize || sealed[0] != version {
		return false
	}
	return bytes.Equal(sealed[1:1+keyIDSize], k.current.id[:])
}

// SealWithKey encrypts plaintext with AES-256-GCM under a caller-supplied
// 32-byte key. The output is version (1 byte) | nonce (12) | ciphertext+tag;
// the version is authenticated together with ad.
func SealWithKey(key, plaintext, ad []byte) ([]byte, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("secure: key is %d bytes, want %d", len(key), keySize)
	}
	a, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	header := 1 + nonceSize
	out := make([]byte, header, header+len(plaintext)+a.Overhead())
	out[0] = version
	nonce := out[1:header]
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secure: reading nonce: %w", err)
	}
	return a.Seal(out, nonce, plaintext, keyringAD(nil, ad)), nil
}

// OpenWithKey reverses SealWithKey. Every failure returns an error wrapping
// ErrOpen.
func OpenWithKey(key, sealed, ad []byte) ([]byte, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("%w: key is %d bytes, want %d", ErrOpen, len(key), keySize)
	}
	header := 1 + nonceSize
	if len(sealed) < header+tagSize {
		return nil, fmt.Errorf("%w: too short", ErrOpen)
	}
	if sealed[0] != version {
		return nil, fmt.Errorf("%w: unknown version", ErrOpen)
	}
	a, err := newGCM(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	pt, err := a.Open(nil, sealed[1:header], sealed[header:], keyringAD(nil, ad))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	return pt, nil
}
