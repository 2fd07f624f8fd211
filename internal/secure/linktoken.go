package secure

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"sync"
)

// A secret link's url_token is a capability: whoever holds it reads the
// push. The database stores no token; it stores the token's key, which names
// the push for lookups without revealing the token.
//
// TokenKey(token) is the token's time prefix (its first 8 characters, the
// 6-byte creation millisecond of NewOrderedToken) followed by the URL-safe
// base64 SHA-256 of the whole token. New keys sort by creation time like the
// tokens did, so a burst of creates still lands in a few index pages; the
// prefix tells nothing the push's created_at does not, and the digest of a
// token with 128 random bits cannot be reversed. A token of any other shape
// (links from before ordered tokens, imported links) has the key "~" + the
// digest, so every token has exactly one key and no two shapes collide
// (their lengths differ).
func TokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	digest := base64.RawURLEncoding.EncodeToString(sum[:])
	if IsOrderedToken(token) {
		return token[:orderedPrefixLen] + digest
	}
	return "~" + digest
}

// orderedPrefixLen is the length of the time prefix of an ordered token of
// 16 random bytes: 6 bytes of milliseconds are 8 base64 characters.
const orderedPrefixLen = 8

// orderedTokenLen is the length of NewOrderedToken(_, 16): 22 bytes.
const orderedTokenLen = 30

// IsOrderedToken reports whether token has the shape of NewOrderedToken
// with 16 random bytes: 30 URL-safe base64 characters.
func IsOrderedToken(token string) bool {
	if len(token) != orderedTokenLen {
		return false
	}
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// TokenLayerKey derives the key of a push's token layer from its url_token
// (HKDF-SHA256; the token carries 128 random bits, so no slow derivation is
// needed). Sealed under it, a payload can be opened only by whoever presents
// the link: the database and the master key together do not suffice.
//
// Every create and every retrieve derives one, so HKDF's two steps are
// taken apart to reuse the first: with no salt, the extract step is an
// HMAC under a constant key (32 zero bytes), whose keyed state a pooled
// HMAC keeps across Resets. The result is hkdf.Key's, byte for byte
// (TestTokenLayerKeyIsHKDF).
func TokenLayerKey(token string) []byte {
	h := extractors.Get().(hash.Hash)
	h.Reset()
	h.Write([]byte(token))
	var prk [sha256.Size]byte
	h.Sum(prk[:0])
	extractors.Put(h)
	k, err := hkdf.Expand(sha256.New, prk[:], tokenLayerInfo, keySize)
	if err != nil {
		panic("secure: HKDF-SHA256 failed: " + err.Error()) // only for lengths beyond 255 blocks
	}
	return k
}

const tokenLayerInfo = infoBase + "push-token-layer"

// extractors holds HMAC-SHA256s under HKDF's default salt (a hash length
// of zero bytes): HKDF-Extract without a salt.
var extractors = sync.Pool{New: func() any { return hmac.New(sha256.New, make([]byte, sha256.Size)) }}
