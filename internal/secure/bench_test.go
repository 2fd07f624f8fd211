package secure

import (
	"crypto/hkdf"
	"crypto/sha256"
	"testing"
	"time"
)

func BenchmarkSeal64(b *testing.B) {
	k, _ := NewKeyring(make([]byte, 32))
	plain := make([]byte, 64)
	ad := []byte("hush/push/abcdefghijklmnopqrstuv/payload")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Seal("push-payload", plain, ad); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen64(b *testing.B) {
	k, _ := NewKeyring(make([]byte, 32))
	ad := []byte("hush/push/abcdefghijklmnopqrstuv/payload")
	sealed, _ := k.Seal("push-payload", make([]byte, 64), ad)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Open("push-payload", sealed, ad); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTokenDigest(b *testing.B) {
	tok, _ := NewToken(32)
	b.ReportAllocs()
	for b.Loop() {
		TokenDigest(tok)
	}
}

// BenchmarkTokenLayerKey is the derivation every create and retrieve pays,
// beside hkdf.Key's whole derivation of the same key.
func BenchmarkTokenLayerKey(b *testing.B) {
	tok, _ := NewOrderedToken(time.Now(), 16)
	b.Run("pooled-extract", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			TokenLayerKey(tok)
		}
	})
	b.Run("hkdf.Key", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := hkdf.Key(sha256.New, []byte(tok), nil, tokenLayerInfo, keySize); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPassphraseKey is the Argon2id cost every passphrase retrieval
// pays (DefaultArgon: t=2, 19 MiB).
func BenchmarkPassphraseKey(b *testing.B) {
	a := DefaultArgon()
	salt, _ := NewSalt()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.DeriveKey(b.Context(), "correct horse", salt); err != nil {
			b.Fatal(err)
		}
	}
}
