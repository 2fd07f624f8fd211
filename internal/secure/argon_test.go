package secure

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func testArgon() *Argon { return NewArgon(1, 64, 1, 2) }

func TestDefaultArgon(t *testing.T) {
	a := DefaultArgon()
	if a.Time != 2 || a.MemoryKiB != 19456 || a.Threads != 1 {
		t.Errorf("DefaultArgon = t=%d m=%d p=%d, want t=2 m=19456 p=1", a.Time, a.MemoryKiB, a.Threads)
	}
	if cap(a.sem) != runtime.NumCPU() {
		t.Errorf("DefaultArgon concurrency = %d, want %d", cap(a.sem), runtime.NumCPU())
	}
	if got := cap(NewArgon(1, 64, 1, 0).sem); got != runtime.NumCPU() {
		t.Errorf("NewArgon(maxConcurrent=0) concurrency = %d, want %d", got, runtime.NumCPU())
	}
}

func TestHashVerifyPassword(t *testing.T) {
	ctx := context.Background()
	a := testArgon()
	encoded, err := a.HashPassword(ctx, "correct horse")
	if err != nil {
		t.Fatalf("HashPassword: %v", err)
	}
	if !strings.HasPrefix(encoded, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("encoded = %q, unexpected prefix", encoded)
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || len(parts[4]) != 22 || len(parts[5]) != 43 {
		t.Errorf("encoded = %q, want 16-byte salt and 32-byte hash in raw base64", encoded)
	}
	other, err := a.HashPassword(ctx, "correct horse")
	if err != nil {
		t.Fatalf("HashPassword: %v", err)
	}
	if other == encoded {
		t.Error("two hashes of the same password are equal (salt not random)")
	}
	tests := []struct {
		password string
		want     bool
	}{
		{"correct horse", true},
		{"correct horsE", false},
		{"", false},
	}
	for _, tc := range tests {
		ok, err := a.VerifyPassword(ctx, tc.password, encoded)
		if err != nil {
			t.Fatalf("VerifyPassword(%q): %v", tc.password, err)
		}
		if ok != tc.want {
			t.Errorf("VerifyPassword(%q) = %v, want %v", tc.password, ok, tc.want)
		}
	}
}

func TestVerifyPasswordUsesEncodedParams(t *testing.T) {
	ctx := context.Background()
	encoded, err := NewArgon(2, 128, 2, 1).HashPassword(ctx, "pw")
	if err != nil {
		t.Fatalf("HashPassword: %v", err)
	}
	ok, err := testArgon().VerifyPassword(ctx, "pw", encoded)
	if err != nil || !ok {
		t.Fatalf("VerifyPassword with other params = %v, %v; want true", ok, err)
	}
}

func TestVerifyPasswordMalformed(t *testing.T) {
	const salt, hash = "c2FsdHNhbHRzYWx0c2FsdA", "aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
	tests := []struct {
		name    string
		encoded string
	}{
		{"empty", ""},
		{"prefix only", "$argon2id$"},
		{"argon2i", "$argon2i$v=19$m=64,t=1,p=1$" + salt + "$" + hash},
		{"wrong version", "$argon2id$v=16$m=64,t=1,p=1$" + salt + "$" + hash},
		{"huge memory", "$argon2id$v=19$m=4294967295,t=1,p=1$" + salt + "$" + hash},
		{"memory over 1GiB", "$argon2id$v=19$m=1048577,t=1,p=1$" + salt + "$" + hash},
		{"memory overflow", "$argon2id$v=19$m=99999999999,t=1,p=1$" + salt + "$" + hash},
		{"time zero", "$argon2id$v=19$m=64,t=0,p=1$" + salt + "$" + hash},
		{"time huge", "$argon2id$v=19$m=64,t=101,p=1$" + salt + "$" + hash},
		{"threads zero", "$argon2id$v=19$m=64,t=1,p=0$" + salt + "$" + hash},
		{"threads huge", "$argon2id$v=19$m=64,t=1,p=256$" + salt + "$" + hash},
		{"negative", "$argon2id$v=19$m=-64,t=1,p=1$" + salt + "$" + hash},
		{"params reordered", "$argon2id$v=19$t=1,m=64,p=1$" + salt + "$" + hash},
		{"missing param", "$argon2id$v=19$m=64,t=1$" + salt + "$" + hash},
		{"bad salt base64", "$argon2id$v=19$m=64,t=1,p=1$!!!$" + hash},
		{"bad hash base64", "$argon2id$v=19$m=64,t=1,p=1$" + salt + "$***"},
		{"padded base64", "$argon2id$v=19$m=64,t=1,p=1$" + salt + "==$" + hash},
		{"empty salt", "$argon2id$v=19$m=64,t=1,p=1$$" + hash},
		{"empty hash", "$argon2id$v=19$m=64,t=1,p=1$" + salt + "$"},
		{"extra field", "$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + hash + "$x"},
	}
	a := testArgon()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := a.VerifyPassword(context.Background(), "pw", tc.encoded)
			if err == nil || ok {
				t.Errorf("VerifyPassword(%q) = %v, %v; want false and an error", tc.encoded, ok, err)
			}
		})
	}
	// The well-formed variant of the table entries parses.
	good := "$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + hash
	if _, err := a.VerifyPassword(context.Background(), "pw", good); err != nil {
		t.Errorf("VerifyPassword(well-formed) error = %v", err)
	}
}

func TestDeriveKey(t *testing.T) {
	ctx := context.Background()
	a := testArgon()
	s1, err := NewSalt()
	if err != nil {
		t.Fatalf("NewSalt: %v", err)
	}
	s2, err := NewSalt()
	if err != nil {
		t.Fatalf("NewSalt: %v", err)
	}
	if len(s1) != 16 || bytes.Equal(s1, s2) {
		t.Fatalf("NewSalt returned %x and %x", s1, s2)
	}
	derive := func(secret string, salt []byte) []byte {
		t.Helper()
		k, err := a.DeriveKey(ctx, secret, salt)
		if err != nil {
			t.Fatalf("DeriveKey: %v", err)
		}
		if len(k) != 32 {
			t.Fatalf("DeriveKey returned %d bytes, want 32", len(k))
		}
		return k
	}
	k1 := derive("passphrase", s1)
	if !bytes.Equal(k1, derive("passphrase", s1)) {
		t.Error("DeriveKey is not deterministic")
	}
	if bytes.Equal(k1, derive("passphrase", s2)) {
		t.Error("DeriveKey does not depend on the salt")
	}
	if bytes.Equal(k1, derive("passphrasf", s1)) {
		t.Error("DeriveKey does not depend on the secret")
	}
}

func TestDeriveKeyCancelledWhileSemaphoreFull(t *testing.T) {
	a := NewArgon(1, 64, 1, 1)
	if err := a.acquire(context.Background()); err != nil {
		t.Fatalf("acquire: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.DeriveKey(ctx, "s", []byte("saltsaltsaltsalt"))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("DeriveKey returned %v while the semaphore was full", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("DeriveKey error = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("DeriveKey did not return after cancellation")
	}

	if _, err := a.HashPassword(ctx, "pw"); !errors.Is(err, context.Canceled) {
		t.Errorf("HashPassword with cancelled ctx error = %v, want context.Canceled", err)
	}
	a.release()
	if _, err := a.DeriveKey(context.Background(), "s", []byte("saltsaltsaltsalt")); err != nil {
		t.Errorf("DeriveKey after release: %v", err)
	}
}

func TestNewToken(t *testing.T) {
	tok, err := NewToken(32)
	if err != nil {
		t.Fatalf("NewToken: %v", err)
	}
	if len(tok) != 43 {
		t.Errorf("len(NewToken(32)) = %d, want 43", len(tok))
	}
	seen := make(map[string]bool)
	for range 1000 {
		tok, err := NewToken(32)
		if err != nil {
			t.Fatalf("NewToken: %v", err)
		}
		for _, c := range tok {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				t.Fatalf("token %q contains %q outside the URL-safe alphabet", tok, c)
			}
		}
		if seen[tok] {
			t.Fatalf("duplicate token %q", tok)
		}
		seen[tok] = true
	}
	for _, n := range []int{0, -1} {
		if _, err := NewToken(n); err == nil {
			t.Errorf("NewToken(%d) succeeded, want error", n)
		}
	}
}

func TestTokenDigest(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for _, tc := range tests {
		if got := TokenDigest(tc.in); got != tc.want {
			t.Errorf("TokenDigest(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b []byte
		want bool
	}{
		{[]byte("abc"), []byte("abc"), true},
		{[]byte("abc"), []byte("abd"), false},
		{[]byte("abc"), []byte("ab"), false},
		{nil, []byte{}, true},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNewOrderedToken(t *testing.T) {
	at := time.Date(2026, 11, 22, 21, 0, 0, 123e6, time.UTC)
	seen := make(map[string]bool)
	var prefix string
	for i := range 1000 {
		tok, err := NewOrderedToken(at, 16)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(tok) != 30 || len(raw) != 22 {
			t.Fatalf("token %q: %d characters, %d bytes, %v; want 30 URL-safe characters of 22 bytes", tok, len(tok), len(raw), err)
		}
		var ms [8]byte
		copy(ms[2:], raw[:6])
		if got := int64(binary.BigEndian.Uint64(ms[:])); got != at.UnixMilli() {
			t.Fatalf("token %q carries %d ms, want %d", tok, got, at.UnixMilli())
		}
		// 6 bytes are 8 characters: tokens of the same millisecond share them.
		if i == 0 {
			prefix = tok[:8]
		} else if tok[:8] != prefix {
			t.Fatalf("token %q does not start with %q", tok, prefix)
		}
		if seen[tok] {
			t.Fatalf("duplicate token %q", tok)
		}
		seen[tok] = true
	}
	later, err := NewOrderedToken(at.Add(time.Millisecond), 16)
	if err != nil {
		t.Fatal(err)
	}
	if later[:6] != prefix[:6] {
		t.Errorf("tokens 1 ms apart share no prefix: %q, %q", prefix, later)
	}
	if _, err := NewOrderedToken(at, 0); err == nil {
		t.Error("NewOrderedToken(at, 0) succeeded, want error")
	}
}
