package secure

import (
	"bytes"
	"errors"
	"testing"
)

func mustKey(t testing.TB) []byte {
	t.Helper()
	k, err := GenerateKey()
	if err != nil {
		t.Fatalf("GenerateKey: %v", err)
	}
	if len(k) != 32 {
		t.Fatalf("GenerateKey returned %d bytes, want 32", len(k))
	}
	return k
}

func mustKeyring(t testing.TB, current []byte, previous ...[]byte) *Keyring {
	t.Helper()
	k, err := NewKeyring(current, previous...)
	if err != nil {
		t.Fatalf("NewKeyring: %v", err)
	}
	return k
}

func mustSeal(t testing.TB, k *Keyring, purpose string, pt, ad []byte) []byte {
	t.Helper()
	s, err := k.Seal(purpose, pt, ad)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return s
}

func TestSealOpen(t *testing.T) {
	k := mustKeyring(t, mustKey(t))
	pt := []byte("the secret payload")
	ad := []byte("row-42")
	sealed := mustSeal(t, k, "secret", pt, ad)
	if want := 1 + 8 + 12 + len(pt) + 16; len(sealed) != want {
		t.Errorf("sealed length = %d, want %d", len(sealed), want)
	}
	if sealed[0] != 0x01 {
		t.Errorf("version byte = %#x, want 0x01", sealed[0])
	}

	tests := []struct {
		name    string
		purpose string
		ad      []byte
		wantErr bool
	}{
		{"same purpose and ad", "secret", ad, false},
		{"other purpose", "other", ad, true},
		{"other ad", "secret", []byte("row-43"), true},
		{"nil ad", "secret", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := k.Open(tc.purpose, sealed, tc.ad)
			if tc.wantErr {
				if !errors.Is(err, ErrOpen) {
					t.Fatalf("Open error = %v, want ErrOpen", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, pt) {
				t.Fatalf("Open = %q, want %q", got, pt)
			}
		})
	}
}

func TestSealEmptyPlaintext(t *testing.T) {
	k := mustKeyring(t, mustKey(t))
	sealed := mustSeal(t, k, "p", nil, nil)
	got, err := k.Open("p", sealed, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("Open = %q, want empty", got)
	}
}

func TestOpenTampered(t *testing.T) {
	k := mustKeyring(t, mustKey(t))
	sealed := mustSeal(t, k, "p", []byte("payload"), []byte("ad"))
	for i := range sealed {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			mod := bytes.Clone(sealed)
			mod[i] ^= mask
			if _, err := k.Open("p", mod, []byte("ad")); !errors.Is(err, ErrOpen) {
				t.Errorf("byte %d ^ %#x: Open error = %v, want ErrOpen", i, mask, err)
			}
		}
	}
	for n := range len(sealed) {
		if _, err := k.Open("p", sealed[:n], []byte("ad")); !errors.Is(err, ErrOpen) {
			t.Errorf("truncated to %d: Open error = %v, want ErrOpen", n, err)
		}
	}
	extended := append(bytes.Clone(sealed), 0)
	if _, err := k.Open("p", extended, []byte("ad")); !errors.Is(err, ErrOpen) {
		t.Errorf("extended: Open error = %v, want ErrOpen", err)
	}
}

func TestOpenGarbage(t *testing.T) {
	k := mustKeyring(t, mustKey(t))
	tests := []struct {
		name  string
		input []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"one byte", []byte{0x01}},
		{"header only", append([]byte{0x01}, make([]byte, 20)...)},
		{"zeros", make([]byte, 64)},
		{"bad version", append([]byte{0x02}, make([]byte, 63)...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := k.Open("p", tc.input, nil); !errors.Is(err, ErrOpen) {
				t.Errorf("Open error = %v, want ErrOpen", err)
			}
			if k.Current(tc.input) {
				t.Error("Current = true for garbage")
			}
			if _, err := OpenWithKey(mustKey(t), tc.input, nil); !errors.Is(err, ErrOpen) {
				t.Errorf("OpenWithKey error = %v, want ErrOpen", err)
			}
		})
	}
}

func TestRotation(t *testing.T) {
	a, b := mustKey(t), mustKey(t)
	ringA := mustKeyring(t, a)
	ringBA := mustKeyring(t, b, a)
	ringB := mustKeyring(t, b)
	pt, ad := []byte("rotate me"), []byte("id")

	old := mustSeal(t, ringA, "p", pt, ad)
	if !ringA.Current(old) {
		t.Error("ringA.Current(old) = false, want true")
	}
	if ringBA.Current(old) {
		t.Error("ringBA.Current(old) = true, want false")
	}
	got, err := ringBA.Open("p", old, ad)
	if err != nil || !bytes.Equal(got, pt) {
		t.Fatalf("ringBA.Open(old) = %q, %v; want %q", got, err, pt)
	}
	if _, err := ringB.Open("p", old, ad); !errors.Is(err, ErrOpen) {
		t.Errorf("ringB.Open(old) error = %v, want ErrOpen", err)
	}

	resealed := mustSeal(t, ringBA, "p", got, ad)
	if !ringBA.Current(resealed) {
		t.Error("ringBA.Current(resealed) = false, want true")
	}
	if got, err := ringB.Open("p", resealed, ad); err != nil || !bytes.Equal(got, pt) {
		t.Errorf("ringB.Open(resealed) = %q, %v; want %q", got, err, pt)
	}
	if _, err := ringA.Open("p", resealed, ad); !errors.Is(err, ErrOpen) {
		t.Errorf("ringA.Open(resealed) error = %v, want ErrOpen", err)
	}
}

// TestHoldsAndRetire: Holds tells which keyrings can open a value before
// anything is spent on it; a retired keyring opens but seals nothing.
func TestHoldsAndRetire(t *testing.T) {
	a, b := mustKey(t), mustKey(t)
	ringA, ringBA, ringB := mustKeyring(t, a), mustKeyring(t, b, a), mustKeyring(t, b)
	pt, ad := []byte("x"), []byte("id")
	underA := mustSeal(t, ringA, "p", pt, ad)
	for _, c := range []struct {
		name string
		ring *Keyring
		v    []byte
		want bool
	}{
		{"own key", ringA, underA, true},
		{"previous key", ringBA, underA, true},
		{"another key", ringB, underA, false},
		{"garbage", ringA, []byte("not sealed at all, not even close"), false},
		{"truncated", ringA, underA[:20], false},
	} {
		if got := c.ring.Holds(c.v); got != c.want {
			t.Errorf("%s: Holds = %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := ringB.Open("p", underA, ad); !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrOpen) {
		t.Errorf("open under another key: %v, want ErrUnknownKey and ErrOpen", err)
	}
	ringA.Retire(true)
	if _, err := ringA.Seal("p", pt, ad); !errors.Is(err, ErrRetired) {
		t.Errorf("a retired keyring sealed: %v", err)
	}
	if got, err := ringA.Open("p", underA, ad); err != nil || !bytes.Equal(got, pt) {
		t.Errorf("a retired keyring does not open: %q %v", got, err)
	}
	ringA.Retire(false)
	if _, err := ringA.Seal("p", pt, ad); err != nil {
		t.Errorf("sealing after Retire(false): %v", err)
	}
}

func TestNewKeyringRejectsBadKeys(t *testing.T) {
	good := mustKey(t)
	tests := []struct {
		name     string
		current  []byte
		previous [][]byte
	}{
		{"nil current", nil, nil},
		{"short current", make([]byte, 31), nil},
		{"long current", make([]byte, 33), nil},
		{"short previous", good, [][]byte{make([]byte, 16)}},
		{"nil previous", good, [][]byte{good, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewKeyring(tc.current, tc.previous...); err == nil {
				t.Error("NewKeyring succeeded, want error")
			}
		})
	}
}

func TestSealRandomized(t *testing.T) {
	k := mustKeyring(t, mustKey(t))
	pt := []byte("a very recognisable plaintext")
	s1 := mustSeal(t, k, "p", pt, nil)
	s2 := mustSeal(t, k, "p", pt, nil)
	if bytes.Equal(s1, s2) {
		t.Error("two seals of the same plaintext are equal")
	}
	for _, s := range [][]byte{s1, s2} {
		if bytes.Contains(s, pt) {
			t.Error("sealed value contains the plaintext")
		}
	}
}
