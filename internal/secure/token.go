package secure

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
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
