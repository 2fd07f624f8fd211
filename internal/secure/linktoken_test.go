package secure

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTokenKey(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	tok, err := NewOrderedToken(at, 16)
	if err != nil {
		t.Fatal(err)
	}
	if !IsOrderedToken(tok) {
		t.Fatalf("IsOrderedToken(%q) = false", tok)
	}
	sum := sha256.Sum256([]byte(tok))
	want := tok[:8] + base64.RawURLEncoding.EncodeToString(sum[:])
	key := TokenKey(tok)
	if key != want {
		t.Fatalf("TokenKey = %q, want %q", key, want)
	}
	if strings.Contains(key, tok[8:]) {
		t.Fatalf("key %q contains the token's random part", key)
	}
	// Keys of tokens made later sort later, as the tokens did.
	later, _ := NewOrderedToken(at.Add(time.Millisecond), 16)
	if !(TokenKey(later) > key) {
		t.Errorf("key of a later token %q does not sort after %q", TokenKey(later), key)
	}
	for _, other := range []string{"testtoken123", "jn4dmCUFaX7Kj97ixmW0ig", strings.Repeat("a", 29), strings.Repeat("a", 29) + "."} {
		if IsOrderedToken(other) {
			t.Errorf("IsOrderedToken(%q) = true", other)
		}
		sum := sha256.Sum256([]byte(other))
		if got, want := TokenKey(other), "~"+base64.RawURLEncoding.EncodeToString(sum[:]); got != want {
			t.Errorf("TokenKey(%q) = %q, want %q", other, got, want)
		}
	}
	if TokenKey(tok) == TokenKey(later) {
		t.Error("two tokens share a key")
	}
}

func TestTokenLayerKey(t *testing.T) {
	a, b := TokenLayerKey("token-a"), TokenLayerKey("token-b")
	if len(a) != 32 || bytes.Equal(a, b) || !bytes.Equal(a, TokenLayerKey("token-a")) {
		t.Fatalf("TokenLayerKey: want 32 bytes, deterministic, distinct per token")
	}
	sealed, err := SealWithKey(a, []byte("secret"), []byte("ad"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWithKey(b, sealed, []byte("ad")); err == nil {
		t.Fatal("another token's layer key opened the value")
	}
}

// Payloads already stored were sealed under HKDF-SHA256 keys: the pooled
// derivation must give hkdf.Key's bytes for tokens of every length, also
// when used from many goroutines at once.
func TestTokenLayerKeyIsHKDF(t *testing.T) {
	// Pinned: hkdf.Key(sha256.New, "token-a", nil, "hush/v1/push-token-layer", 32).
	const pinned = "56137593d357b06570824616ac740f8847877cef7ba258a1328dc720996ad55e"
	if got := hex.EncodeToString(TokenLayerKey("token-a")); got != pinned {
		t.Fatalf("TokenLayerKey(token-a) = %s, want %s", got, pinned)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := 0; n <= 200; n++ {
				tok := strings.Repeat(string(rune('a'+g)), n)
				want, err := hkdf.Key(sha256.New, []byte(tok), nil, "hush/v1/push-token-layer", 32)
				if err != nil {
					t.Error(err)
					return
				}
				if got := TokenLayerKey(tok); !bytes.Equal(got, want) {
					t.Errorf("TokenLayerKey of a %d-byte token = %x, want %x", n, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
