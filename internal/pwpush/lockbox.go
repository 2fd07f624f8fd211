package pwpush

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// DefaultMasterKey is the master key Password Pusher falls back to when
// neither PWPUSH_MASTER_KEY nor PWPUSH_MASTER_KEY_FILE is set. It is public,
// so a deployment that never set its own key encrypted everything with it:
// an importer given no key should try it (see Source.CheckKeys).
const DefaultMasterKey = "749b1022e1cb83fb04f3022eacaf3bfef60c6d47f83e6fb41f534a05fc69929f"

// Sizes of Lockbox's AES-256-GCM framing.
const (
	nonceSize = 12
	tagSize   = 16
)

// ErrDecrypt is returned when no key (the master key, then each previous
// key in order) opens a ciphertext: the keys are wrong, or the value was
// altered. It never carries the ciphertext.
var ErrDecrypt = errors.New("lockbox: decryption failed (wrong master key?)")

// ErrNotCiphertext is returned for a stored value that is not Lockbox's
// base64 of nonce, ciphertext and tag.
var ErrNotCiphertext = errors.New("lockbox: stored value is not a Lockbox ciphertext")

// Keys decrypts Lockbox-encrypted columns of a Password Pusher database: a
// master key and the previous master keys tried after it, each turned into
// one AES-256-GCM key per table and column. It is safe for concurrent use.
type Keys struct {
	masters [][]byte // the master key first, then the previous ones

	mu      sync.Mutex
	columns map[string][]cipher.AEAD // table + "." + column → one AEAD per master
}

// ParseKeys builds Keys from a master key and previous keys written as
// Password Pusher reads them: master as PWPUSH_MASTER_KEY (64 hexadecimal
// digits, either case), previous as PWPUSH_MASTER_KEY_PREVIOUS (keys
// separated by commas, blanks around them and empty entries ignored;
// "" for none). An empty master means DefaultMasterKey, as in Password
// Pusher. Errors name the position of a bad key, never the key.
func ParseKeys(master, previous string) (*Keys, error) {
	master = strings.TrimSpace(master)
	if master == "" {
		master = DefaultMasterKey
	}
	k := &Keys{columns: map[string][]cipher.AEAD{}}
	m, err := decodeMasterKey(master)
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	k.masters = append(k.masters, m)
	n := 0
	for _, p := range strings.Split(previous, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		n++
		m, err := decodeMasterKey(p)
		if err != nil {
			return nil, fmt.Errorf("previous master key #%d: %w", n, err)
		}
		k.masters = append(k.masters, m)
	}
	return k, nil
}

// decodeMasterKey accepts what Lockbox accepts from an environment
// variable: exactly 64 hexadecimal digits.
func decodeMasterKey(s string) ([]byte, error) {
	if len(s) != 64 {
		return nil, fmt.Errorf("want 64 hexadecimal digits, got %d characters", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("want 64 hexadecimal digits")
	}
	return b, nil
}

// Previous is the number of previous master keys.
func (k *Keys) Previous() int { return len(k.masters) - 1 }

// columnKey derives the AES-256 key of one encrypted column from a master
// key as Lockbox does: HKDF with SHA-384, the master key as input keying
// material, the table name as salt, 32 bytes of 0xB4 followed by the
// column name as info, 32 bytes out. The column is the ciphertext column
// ("payload_ciphertext"), not the model's attribute name.
func columnKey(master []byte, table, column string) ([]byte, error) {
	if table == "" || column == "" {
		return nil, errors.New("lockbox: table and column are required")
	}
	info := strings.Repeat("\xb4", 32) + column
	return hkdf.Key(sha512.New384, master, []byte(table), info, 32)
}

// aeads returns the AEADs of a column, one per master key, derived once.
func (k *Keys) aeads(table, column string) ([]cipher.AEAD, error) {
	id := table + "." + column
	k.mu.Lock()
	defer k.mu.Unlock()
	if a, ok := k.columns[id]; ok {
		return a, nil
	}
	var out []cipher.AEAD
	for _, m := range k.masters {
		key, err := columnKey(m, table, column)
		if err != nil {
			return nil, err
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("lockbox: %w", err)
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("lockbox: %w", err)
		}
		out = append(out, gcm)
	}
	k.columns[id] = out
	return out, nil
}

// Decrypt opens the value Lockbox stored in table.column (as the model's
// has_encrypted writes it) and returns the plaintext. The stored value is
// the strict base64 of a 12-byte nonce, the AES-256-GCM ciphertext and its
// 16-byte tag, with no associated data. Lockbox stores an empty plaintext
// as an empty column without encrypting it, so "" decrypts to "". (NULL is
// NULL: callers handle it before calling.) The master key is tried first,
// then the previous keys in order; if none opens the value the error is
// ErrDecrypt.
func (k *Keys) Decrypt(table, column, stored string) (string, error) {
	if stored == "" {
		return "", nil
	}
	raw, err := decodeStored(stored)
	if err != nil {
		return "", err
	}
	if len(raw) < nonceSize+tagSize {
		return "", ErrDecrypt
	}
	aeads, err := k.aeads(table, column)
	if err != nil {
		return "", err
	}
	nonce, sealed := raw[:nonceSize], raw[nonceSize:]
	for _, a := range aeads {
		if plain, err := a.Open(nil, nonce, sealed, nil); err == nil {
			return string(plain), nil
		}
	}
	return "", ErrDecrypt
}

// decodeStored reads Lockbox's base64. Lockbox writes strict base64 with
// padding and reads leniently, so line breaks and missing padding are
// accepted here too.
func decodeStored(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', ' ', '\t':
			return -1
		}
		return r
	}, s)
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
		s = strings.TrimRight(s, "=")
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, ErrNotCiphertext
	}
	return b, nil
}
