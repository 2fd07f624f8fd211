package secure

import (
	"bytes"
	"errors"
	"testing"
)

func FuzzOpen(f *testing.F) {
	k, err := NewKeyring(bytes.Repeat([]byte{0x42}, 32), bytes.Repeat([]byte{0x24}, 32))
	if err != nil {
		f.Fatal(err)
	}
	ad := []byte("fuzz-ad")
	type seed struct{ sealed, plaintext []byte }
	var seeds []seed
	for _, pt := range [][]byte{nil, []byte("a"), []byte("hello, world"), bytes.Repeat([]byte{0}, 100)} {
		// A fixed nonce keeps seeds identical across fuzzing worker processes.
		s, err := k.sealNonce("fuzz", bytes.Repeat([]byte{byte(len(seeds))}, 12), pt, ad)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, seed{s, pt})
		f.Add(s)
	}
	f.Add([]byte{})
	f.Add([]byte{0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		k.Current(data)
		got, err := k.Open("fuzz", data, ad)
		if err != nil {
			if !errors.Is(err, ErrOpen) {
				t.Fatalf("Open error %v does not wrap ErrOpen", err)
			}
			return
		}
		for _, s := range seeds {
			if bytes.Equal(data, s.sealed) {
				if !bytes.Equal(got, s.plaintext) {
					t.Fatalf("Open(seed) = %q, want %q", got, s.plaintext)
				}
				return
			}
		}
		t.Fatalf("Open accepted an input that is not a valid seal: %x", data)
	})
}
