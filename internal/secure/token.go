package secure

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"
)

// NewToken returns nbytes random bytes encoded as unpadded URL-safe base64
// (alphabet A-Z a-z 0-9 - _). nbytes must be positive.
func NewToken(nbytes int) (string, error) {
	if nbytes <= 0 {
		return "", fmt.Errorf("secure: token size %d must be positive", nbytes)
	}
	b, err := randomBytes(nbytes)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// NewOrderedToken returns a token of nbytes random bytes after a 6-byte
// big-endian millisecond timestamp of at, encoded as NewToken does. Tokens
// made close together in time share their first characters, so a B-tree
// index on them takes new tokens in a few neighbouring pages instead of one
// random page each; the random part keeps them unguessable. The timestamp
// is readable by whoever holds the token. nbytes must be positive.
func NewOrderedToken(at time.Time, nbytes int) (string, error) {
	if nbytes <= 0 {
		return "", fmt.Errorf("secure: token size %d must be positive", nbytes)
	}
	r, err := randomBytes(nbytes)
	if err != nil {
		return "", err
	}
	b := make([]byte, 8, 8+nbytes)
	binary.BigEndian.PutUint64(b, uint64(at.UnixMilli()))
	return base64.RawURLEncoding.EncodeToString(append(b[2:], r...)), nil
}

// TokenDigest returns the lowercase hex SHA-256 of token, which is how API
// tokens are stored.
func TokenDigest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Equal reports whether a and b are equal, in time independent of their
// contents.
func Equal(a, b []byte) bool {
	return subtle.ConstantTimeCompare(a, b) == 1
}
