package secure

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// StreamChunk is the plaintext size of one chunk of a sealed stream. A
// stream is never held whole in memory: one chunk at a time is.
const StreamChunk = 64 << 10

// streamBatch is how many chunks SealStream reads, seals and writes at a
// time. A megabyte at a time measured faster than one chunk at a time for a
// 1 GiB upload (docs/performance.md, "Large files"): fewer writes, and the
// file store's writer takes a whole batch while the next one is sealed.
const streamBatch = 16

// SealWriteSize is the most SealStream writes to its destination at once:
// a reader of the other end of a pipe that buffers this much takes each
// write whole, so the sealer goes on at once.
const SealWriteSize = streamHeaderSize + streamBatch*(StreamChunk+tagSize)

// sealBuffer is SealStream's memory: the plaintext of one batch and its
// sealed form. Pooled, so that small files do not each allocate 2 MiB.
type sealBuffer struct {
	plain [streamBatch * StreamChunk]byte
	out   [SealWriteSize]byte
}

var sealBuffers = sync.Pool{New: func() any { return new(sealBuffer) }}

// streamMagic starts every sealed stream (and names its format version).
var streamMagic = [4]byte{'H', 'S', 'F', '1'}

const (
	streamPrefixSize = 7
	streamHeaderSize = len(streamMagic) + streamPrefixSize
)

// Sealed streams follow the STREAM construction: AES-256-GCM per chunk, with
// nonce = random 7-byte prefix | 4-byte big-endian chunk counter | last flag.
// Every chunk but the last holds exactly StreamChunk plaintext bytes; the
// last holds fewer (possibly none) and is flagged, so truncation, reordering
// and appending are all detected.

// SealStream reads src to its end and writes it sealed under key (32 bytes)
// to dst. It returns the number of plaintext bytes.
func SealStream(dst io.Writer, src io.Reader, key, ad []byte) (int64, error) {
	a, err := streamAEAD(key)
	if err != nil {
		return 0, err
	}
	bufs := sealBuffers.Get().(*sealBuffer)
	defer sealBuffers.Put(bufs)
	buf := bufs.plain[:]
	out := append(bufs.out[:0], streamMagic[:]...)
	out = out[:streamHeaderSize]
	if _, err := rand.Read(out[len(streamMagic):]); err != nil {
		return 0, fmt.Errorf("secure: reading nonce: %w", err)
	}
	prefix := [streamPrefixSize]byte(out[len(streamMagic):])
	var total int64
	var counter uint32
	for {
		n, err := readChunk(src, buf)
		if err != nil {
			return total, err
		}
		// A short (or empty) chunk is the last one; a stream whose length is
		// a multiple of StreamChunk ends with an empty last chunk. A short
		// read of buf means the stream ends in it.
		end := n < len(buf)
		for off := 0; ; off += StreamChunk {
			size := min(StreamChunk, n-off)
			if size == 0 && !end {
				break
			}
			last := size < StreamChunk
			if counter == ^uint32(0) && !last {
				return total, errors.New("secure: stream too long")
			}
			out = a.Seal(out, streamNonce(prefix[:], counter, last), buf[off:off+size], ad)
			if last {
				break
			}
			counter++
		}
		if _, werr := dst.Write(out); werr != nil {
			return total, werr
		}
		out = out[:0]
		total += int64(n)
		if end {
			return total, nil
		}
	}
}

func streamNonce(prefix []byte, counter uint32, last bool) []byte {
	nonce := make([]byte, nonceSize)
	copy(nonce, prefix)
	binary.BigEndian.PutUint32(nonce[streamPrefixSize:], counter)
	if last {
		nonce[nonceSize-1] = 1
	}
	return nonce
}

func streamAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != keySize {
		return nil, fmt.Errorf("secure: key is %d bytes, want %d", len(key), keySize)
	}
	return newGCM(key)
}

// StreamReader decrypts a sealed stream chunk by chunk. Read returns an
// error wrapping ErrOpen as soon as a chunk does not authenticate, or when
// the stream ends before its last chunk.
type StreamReader struct {
	src     io.Reader
	aead    cipher.AEAD
	ad      []byte
	prefix  []byte
	counter uint32
	buf     []byte // ciphertext of one chunk
	plain   []byte // decrypted, not yet read
	done    bool
	err     error
}

// OpenStream reads the header of a sealed stream and returns its reader.
func OpenStream(src io.Reader, key, ad []byte) (*StreamReader, error) {
	a, err := streamAEAD(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOpen, err)
	}
	var header [streamHeaderSize]byte
	if _, err := io.ReadFull(src, header[:]); err != nil {
		return nil, fmt.Errorf("%w: short header", ErrOpen)
	}
	if [4]byte(header[:4]) != streamMagic {
		return nil, fmt.Errorf("%w: not a sealed stream", ErrOpen)
	}
	return &StreamReader{
		src:    src,
		aead:   a,
		ad:     ad,
		prefix: append([]byte(nil), header[len(streamMagic):]...),
		buf:    make([]byte, StreamChunk+tagSize),
	}, nil
}

// Read implements io.Reader.
func (r *StreamReader) Read(p []byte) (int, error) {
	for len(r.plain) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		r.err = r.next()
	}
	n := copy(p, r.plain)
	r.plain = r.plain[n:]
	return n, nil
}

// next decrypts the following chunk into r.plain.
func (r *StreamReader) next() error {
	n, err := io.ReadFull(r.src, r.buf)
	last := false
	switch {
	case err == nil:
	case errors.Is(err, io.ErrUnexpectedEOF):
		last = true
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: truncated stream", ErrOpen)
	default:
		return err
	}
	plain, oerr := r.aead.Open(r.buf[:0], streamNonce(r.prefix, r.counter, last), r.buf[:n], r.ad)
	if oerr != nil {
		return fmt.Errorf("%w: chunk %d", ErrOpen, r.counter)
	}
	if !last {
		if r.counter == ^uint32(0) {
			return fmt.Errorf("%w: stream too long", ErrOpen)
		}
		r.counter++
	}
	r.done = last
	r.plain = plain
	return nil
}

// SealedStreamSize is the size of the sealed form of n plaintext bytes.
func SealedStreamSize(n int64) int64 {
	full := n / StreamChunk
	return int64(streamHeaderSize) + n + (full+1)*tagSize
}

// readChunk fills buf from r and stops early only at io.EOF. Unlike
// io.ReadFull it passes on every other error, io.ErrUnexpectedEOF included:
// a source that was cut off (a truncated multipart upload) must fail the
// seal, not end the stream as if it were complete.
func readChunk(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF { // io.EOF itself, as io.Reader returns it
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
