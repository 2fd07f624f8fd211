// Package blobtest holds the behaviour every blob.FileStore must have, as
// tests to run against each implementation, and helpers for their own tests.
// It is imported by tests only.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"hush/internal/blob"
)

// failingReader yields "data" n times, then fails like a client that went away.
type failingReader struct {
	n   int
	err error // nil: a plain error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		if f.err != nil {
			return 0, f.err
		}
		return 0, errors.New("client went away")
	}
	f.n--
	return copy(p, "data"), nil
}

// genReader yields n pseudo-random bytes without holding them; after is
// called once, when more than afterAt bytes have been read.
type genReader struct {
	n, read int64
	seed    byte
	afterAt int64
	after   func()
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.read >= g.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.n-g.read)]
	for i := range p {
		x := g.read + int64(i)
		p[i] = byte(x) ^ byte(x>>8)*31 ^ byte(x>>16)*7 ^ g.seed
	}
	g.read += int64(len(p))
	if g.after != nil && g.read > g.afterAt {
		g.after()
		g.after = nil
	}
	return len(p), nil
}

// NewID returns a random valid blob id.
func NewID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Put stores content under id.
func Put(t *testing.T, fs blob.FileStore, id, content string) {
	t.Helper()
	n, err := fs.Put(context.Background(), id, strings.NewReader(content))
	if err != nil || n != int64(len(content)) {
		t.Fatalf("Put %s: %d %v", id, n, err)
	}
}

// ReadAll returns what is stored under id.
func ReadAll(t *testing.T, fs blob.FileStore, id string) string {
	t.Helper()
	r, err := fs.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("Open %s: %v", id, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return string(b)
}

// AssertMissing checks that nothing readable is stored under id.
func AssertMissing(t *testing.T, fs blob.FileStore, id string) {
	t.Helper()
	r, err := fs.Open(context.Background(), id)
	if err == nil {
		r.Close()
	}
	if !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open %s: %v, want ErrNotFound", id, err)
	}
}

// WalkIDs lists the ids Walk reports, checking their times are recent.
func WalkIDs(t *testing.T, fs blob.FileStore) []string {
	t.Helper()
	var ids []string
	err := fs.Walk(context.Background(), func(id string, mod time.Time) error {
		if d := time.Since(mod); d > 10*time.Minute || d < -10*time.Minute {
			t.Errorf("Walk: %s modified at odd time %v", id, mod)
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	slices.Sort(ids)
	return ids
}

// Run runs the behaviour every FileStore must have. newStore returns an
// empty store; each check gets its own.
func Run(t *testing.T, newStore func(t *testing.T) blob.FileStore) {
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newStore(t)) })
	}
}

// checks are the behaviour every FileStore must have, one per function.
var checks = []struct {
	name string
	run  func(t *testing.T, fs blob.FileStore)
}{
	{"put and read back", checkPutAndReadBack},
	{"empty blob", checkEmptyBlob},
	{"second put refused", checkSecondPutRefused},
	{"missing blob", checkMissingBlob},
	{"failed upload leaves nothing", checkFailedUploadLeavesNothing},
	{"cancelled context", checkCancelledContext},
	{"upload cancelled midway leaves nothing", checkUploadCancelledMidwayLeavesNothing},
	{"large streamed upload", checkLargeStreamedUpload},
	{"delete is idempotent", checkDeleteIsIdempotent},
	{"walk lists blobs", checkWalkListsBlobs},
	{"invalid ids", checkInvalidIds},
	{"ping", checkPing},
}

func checkPutAndReadBack(t *testing.T, fs blob.FileStore) {
	id := NewID(t)
	Put(t, fs, id, "sealed bytes")
	if got := ReadAll(t, fs, id); got != "sealed bytes" {
		t.Errorf("read back %q", got)
	}
}

func checkEmptyBlob(t *testing.T, fs blob.FileStore) {
	id := NewID(t)
	Put(t, fs, id, "")
	if got := ReadAll(t, fs, id); got != "" {
		t.Errorf("read back %q", got)
	}
}

func checkSecondPutRefused(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	id := NewID(t)
	Put(t, fs, id, "first")
	if _, err := fs.Put(ctx, id, strings.NewReader("again")); err == nil {
		t.Error("a second Put under the same id succeeded")
	}
	if got := ReadAll(t, fs, id); got != "first" {
		t.Errorf("after a refused Put: %q", got)
	}
}

func checkMissingBlob(t *testing.T, fs blob.FileStore) {
	AssertMissing(t, fs, NewID(t))
}

func checkFailedUploadLeavesNothing(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	// io.ErrUnexpectedEOF is how a client's body ends early; it must not
	// pass for the end of the data.
	for _, cause := range []error{nil, io.ErrUnexpectedEOF} {
		id := NewID(t)
		if _, err := fs.Put(ctx, id, &failingReader{n: 3, err: cause}); err == nil {
			t.Errorf("Put of a reader failing with %v succeeded", cause)
		}
		assertNothingLeft(t, fs, id, "a failed upload")
	}
}

// assertNothingLeft checks that after what, neither id nor any other blob
// is in the store.
func assertNothingLeft(t *testing.T, fs blob.FileStore, id, what string) {
	t.Helper()
	AssertMissing(t, fs, id)
	if ids := WalkIDs(t, fs); len(ids) != 0 {
		t.Errorf("Walk after %s: %v", what, ids)
	}
}

func checkCancelledContext(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	id := NewID(t)
	if _, err := fs.Put(cctx, id, strings.NewReader("x")); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
	AssertMissing(t, fs, id)
}

func checkUploadCancelledMidwayLeavesNothing(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	// More than one S3 part is sent before the cancellation.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	id := NewID(t)
	src := &genReader{n: 40 << 20, afterAt: 20 << 20, after: cancel}
	if _, err := fs.Put(cctx, id, src); err == nil {
		t.Error("Put cancelled midway succeeded")
	}
	assertNothingLeft(t, fs, id, "a cancelled upload")
}

func checkLargeStreamedUpload(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	const size = 40 << 20
	id := NewID(t)
	want := sha256.New()
	n, err := fs.Put(ctx, id, io.TeeReader(&genReader{n: size, seed: 9}, want))
	if err != nil || n != size {
		t.Fatalf("Put: %d %v", n, err)
	}
	r, err := fs.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := sha256.New()
	if m, err := io.Copy(got, r); err != nil || m != size {
		t.Fatalf("read back %d bytes: %v", m, err)
	}
	if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Error("content read back differs from what was written")
	}
}

func checkDeleteIsIdempotent(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	id := NewID(t)
	Put(t, fs, id, "x")
	if err := fs.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := fs.Delete(ctx, id); err != nil {
		t.Errorf("deleting a missing blob: %v", err)
	}
	AssertMissing(t, fs, id)
}

func checkWalkListsBlobs(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	a, b, c := NewID(t), NewID(t), NewID(t)
	for _, id := range []string{a, b, c} {
		Put(t, fs, id, "x")
	}
	if err := fs.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	want := []string{a, c}
	slices.Sort(want)
	if got := WalkIDs(t, fs); !slices.Equal(got, want) {
		t.Errorf("Walk saw %v, want %v", got, want)
	}
	stop := errors.New("stop")
	calls := 0
	err := fs.Walk(ctx, func(string, time.Time) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Walk with a failing fn: %v after %d calls", err, calls)
	}
}

func checkInvalidIds(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	for _, bad := range []string{"../../etc/passwd", "short", "abcdefghijklmnop/x", strings.Repeat("a", 65)} {
		if _, err := fs.Put(ctx, bad, bytes.NewReader(nil)); err == nil {
			t.Errorf("Put accepted id %q", bad)
		}
		AssertMissing(t, fs, bad)
	}
}

func checkPing(t *testing.T, fs blob.FileStore) {
	ctx := context.Background()
	if err := fs.Ping(ctx); err != nil {
		t.Error(err)
	}
}
