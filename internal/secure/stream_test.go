package secure

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"testing"
)

func sealedStream(t *testing.T, plain, key, ad []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := SealStream(&buf, bytes.NewReader(plain), key, ad)
	if err != nil || n != int64(len(plain)) {
		t.Fatalf("SealStream: %d %v", n, err)
	}
	if int64(buf.Len()) != SealedStreamSize(int64(len(plain))) {
		t.Fatalf("sealed size %d, SealedStreamSize says %d", buf.Len(), SealedStreamSize(int64(len(plain))))
	}
	return buf.Bytes()
}

func openAll(sealed, key, ad []byte) ([]byte, error) {
	r, err := OpenStream(bytes.NewReader(sealed), key, ad)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func TestStreamRoundTrip(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	batch := streamBatch * StreamChunk
	for _, size := range []int{0, 1, 100, StreamChunk - 1, StreamChunk, StreamChunk + 1, 3*StreamChunk + 17, 4 * StreamChunk,
		batch - 1, batch, batch + 1, batch + StreamChunk, 2*batch + 5} {
		plain := make([]byte, size)
		rand.Read(plain)
		sealed := sealedStream(t, plain, key, []byte("blob-1"))
		got, err := openAll(sealed, key, []byte("blob-1"))
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("size %d: round trip failed: %v", size, err)
		}
		if size >= 16 && bytes.Contains(sealed, plain[:16]) {
			t.Errorf("size %d: plaintext visible in the sealed stream", size)
		}
		if _, err := openAll(sealed, key, []byte("blob-2")); !errors.Is(err, ErrOpen) {
			t.Errorf("size %d: other associated data opened: %v", size, err)
		}
	}
}

func TestStreamDetectsTampering(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	plain := make([]byte, 2*StreamChunk+10)
	rand.Read(plain)
	sealed := sealedStream(t, plain, key, nil)
	chunk := StreamChunk + tagSize
	cases := map[string][]byte{
		"truncated to whole chunks": sealed[:streamHeaderSize+2*chunk],
		"truncated mid chunk":       sealed[:streamHeaderSize+chunk+100],
		"header only":               sealed[:streamHeaderSize],
		"appended byte":             append(append([]byte{}, sealed...), 0),
		"chunks swapped": append(append(append(append([]byte{}, sealed[:streamHeaderSize]...),
			sealed[streamHeaderSize+chunk:streamHeaderSize+2*chunk]...),
			sealed[streamHeaderSize:streamHeaderSize+chunk]...), sealed[streamHeaderSize+2*chunk:]...),
	}
	for _, pos := range []int{0, 5, streamHeaderSize, streamHeaderSize + chunk + 7, len(sealed) - 1} {
		b := append([]byte{}, sealed...)
		b[pos] ^= 0x40
		cases["bit flip at "+string(rune('A'+pos%26))] = b
	}
	for name, b := range cases {
		got, err := openAll(b, key, nil)
		if !errors.Is(err, ErrOpen) {
			t.Errorf("%s: err %v (read %d bytes)", name, err, len(got))
		}
	}
	wrong := make([]byte, 32)
	if _, err := openAll(sealed, wrong, nil); !errors.Is(err, ErrOpen) {
		t.Errorf("wrong key: %v", err)
	}
}

// The last chunk's flag stops an attacker from dropping trailing chunks even
// at a chunk boundary: a stream cut after a full chunk fails.
func TestStreamExactChunkBoundary(t *testing.T) {
	key := make([]byte, 32)
	plain := bytes.Repeat([]byte{7}, 2*StreamChunk)
	sealed := sealedStream(t, plain, key, nil)
	cut := sealed[:streamHeaderSize+StreamChunk+tagSize]
	if _, err := openAll(cut, key, nil); !errors.Is(err, ErrOpen) {
		t.Errorf("cut at a chunk boundary: %v", err)
	}
}

func BenchmarkSealStream(b *testing.B) {
	key := make([]byte, 32)
	plain := make([]byte, 8<<20)
	b.SetBytes(int64(len(plain)))
	for b.Loop() {
		if _, err := SealStream(io.Discard, bytes.NewReader(plain), key, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// cutReader yields data, then fails as a truncated multipart part does.
type cutReader struct{ data []byte }

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, c.data)
	c.data = c.data[n:]
	return n, nil
}

func TestSealStreamFailsOnTruncatedSource(t *testing.T) {
	key := bytes.Repeat([]byte{1}, 32)
	for _, n := range []int{0, 3, StreamChunk, StreamChunk + 5} {
		var out bytes.Buffer
		if _, err := SealStream(&out, &cutReader{data: make([]byte, n)}, key, nil); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%d bytes then ErrUnexpectedEOF: err = %v, want it passed on", n, err)
		}
	}
}

// oneByteReader hands out one byte per Read, the worst a network source does.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// SealStream reads, seals and writes a batch of chunks at a time with
// pooled buffers: streams sealed side by side, from sources that hand out
// their bytes in any sizes, must each come out whole and their own (a
// buffer given back to the pool while in use would mix them up).
func TestSealStreamConcurrentBatches(t *testing.T) {
	sizes := []int{0, 7, StreamChunk, streamBatch*StreamChunk - 3, streamBatch * StreamChunk, 2*streamBatch*StreamChunk + 11}
	errs := make(chan error, 2*len(sizes))
	for i, size := range sizes {
		for _, slow := range []bool{false, true} {
			go func() {
				key := make([]byte, 32)
				rand.Read(key)
				plain := make([]byte, size)
				rand.Read(plain)
				var src io.Reader = bytes.NewReader(plain)
				if slow && size < 1<<20 {
					src = oneByteReader{src}
				}
				var sealed bytes.Buffer
				if _, err := SealStream(&sealed, src, key, []byte{byte(i)}); err != nil {
					errs <- err
					return
				}
				if int64(sealed.Len()) != SealedStreamSize(int64(size)) {
					errs <- errors.New("sealed size differs from SealedStreamSize")
					return
				}
				got, err := openAll(sealed.Bytes(), key, []byte{byte(i)})
				if err == nil && !bytes.Equal(got, plain) {
					err = errors.New("opened stream differs from its plaintext")
				}
				errs <- err
			}()
		}
	}
	for range 2 * len(sizes) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// A stream whose destination fails stops at the first failed write and
// says so; the sealer's buffers go back to the pool for the next stream.
func TestSealStreamWriteFailure(t *testing.T) {
	key := make([]byte, 32)
	plain := make([]byte, 3*streamBatch*StreamChunk)
	w := &failingWriter{after: 1}
	if _, err := SealStream(w, bytes.NewReader(plain), key, nil); !errors.Is(err, errWrite) {
		t.Fatalf("SealStream into a failing writer: %v, want errWrite", err)
	}
	if w.calls != 2 {
		t.Errorf("%d writes, want 2 (one that worked, one that failed)", w.calls)
	}
	sealed := sealedStream(t, plain, key, nil)
	if got, err := openAll(sealed, key, nil); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("the next stream: %v", err)
	}
}

var errWrite = errors.New("disk full")

type failingWriter struct{ after, calls int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	if w.calls > w.after {
		return 0, errWrite
	}
	if len(p) > SealWriteSize {
		return 0, errors.New("a write larger than SealWriteSize")
	}
	return len(p), nil
}
