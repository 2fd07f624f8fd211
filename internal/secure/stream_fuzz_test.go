package secure

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// sealStreamFixed is SealStream with a fixed nonce prefix, so that seeds are
// the same in every fuzzing worker process.
func sealStreamFixed(t testing.TB, pt, key, ad []byte, prefix byte) []byte {
	a, err := streamAEAD(key)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), streamMagic[:]...)
	p := bytes.Repeat([]byte{prefix}, streamPrefixSize)
	out = append(out, p...)
	for counter := uint32(0); ; counter++ {
		n := min(len(pt), StreamChunk)
		last := n < StreamChunk
		out = a.Seal(out, streamNonce(p, counter, last), pt[:n], ad)
		pt = pt[n:]
		if last {
			return out
		}
	}
}

// FuzzOpenStream: the stream reader must reject every input that is not an
// exact sealed stream of the seeds, with an error wrapping ErrOpen, and
// never panic.
func FuzzOpenStream(f *testing.F) {
	key := bytes.Repeat([]byte{0x42}, 32)
	ad := []byte("fuzz-stream-ad")
	type seed struct{ sealed, plain []byte }
	var seeds []seed
	for i, pt := range [][]byte{nil, []byte("a"), []byte("hello, stream"), bytes.Repeat([]byte{0xab}, StreamChunk+17)} {
		s := sealStreamFixed(f, pt, key, ad, byte(i))
		// Check the helper against the real reader.
		got, err := io.ReadAll(mustOpen(f, s, key, ad))
		if err != nil || !bytes.Equal(got, pt) {
			f.Fatalf("seed %d does not open: %v", i, err)
		}
		seeds = append(seeds, seed{s, pt})
		f.Add(s)
	}
	f.Add([]byte("HSF1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := OpenStream(bytes.NewReader(data), key, ad)
		if err != nil {
			if !errors.Is(err, ErrOpen) {
				t.Fatalf("OpenStream error %v does not wrap ErrOpen", err)
			}
			return
		}
		got, err := io.ReadAll(r)
		if err != nil {
			if !errors.Is(err, ErrOpen) {
				t.Fatalf("Read error %v does not wrap ErrOpen", err)
			}
			return
		}
		for _, s := range seeds {
			if bytes.Equal(data, s.sealed) {
				if !bytes.Equal(got, s.plain) {
					t.Fatal("a seed opened to the wrong plaintext")
				}
				return
			}
		}
		t.Fatalf("a mutated stream of %d bytes was accepted", len(data))
	})
}

func mustOpen(tb testing.TB, s, key, ad []byte) io.Reader {
	r, err := OpenStream(bytes.NewReader(s), key, ad)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
