package secure

import (
	"bytes"
	"testing"
)

func TestMAC(t *testing.T) {
	k1 := bytes.Repeat([]byte{1}, keySize)
	k2 := bytes.Repeat([]byte{2}, keySize)
	a, _ := NewKeyring(k1)
	b, _ := NewKeyring(k2, k1)
	m := func(k *Keyring, purpose, msg string) []byte {
		t.Helper()
		v, err := k.MAC(purpose, []byte(msg))
		if err != nil || len(v) != 32 {
			t.Fatalf("MAC: %x, %v", v, err)
		}
		return v
	}
	if !bytes.Equal(m(a, "p", "x"), m(a, "p", "x")) {
		t.Error("MAC is not deterministic")
	}
	for name, other := range map[string][]byte{
		"message": m(a, "p", "y"), "purpose": m(a, "q", "x"), "rotated key": m(b, "p", "x"),
	} {
		if bytes.Equal(m(a, "p", "x"), other) {
			t.Errorf("a different %s gives the same MAC", name)
		}
	}
}
