package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A blob larger than writebackEvery is written whole, with writeback asked
// for each full stretch behind the writer and the tail left to the fsync.
func TestWritebackLargeBlob(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := newWriteback(f)
	data := make([]byte, 2*writebackEvery+12345)
	rand.Read(data)
	// Writes of an odd size, so that the stretches do not line up with them.
	if _, err := io.CopyBuffer(struct{ io.Writer }{w}, bytes.NewReader(data), make([]byte, 65552)); err != nil {
		t.Fatal(err)
	}
	if w.written != int64(len(data)) {
		t.Errorf("written %d, want %d", w.written, len(data))
	}
	if w.started < 2*writebackEvery || w.started > w.written || w.written-w.started >= writebackEvery {
		t.Errorf("writeback asked up to %d of %d bytes, want every stretch of %d", w.started, w.written, writebackEvery)
	}

	d, err := NewDisk(filepath.Join(dir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	id := "writebackwritebackwb"
	if n, err := d.Put(context.Background(), id, bytes.NewReader(data)); err != nil || n != int64(len(data)) {
		t.Fatalf("Put: %d %v", n, err)
	}
	r, err := d.Open(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes (%v), want the %d written", len(got), err, len(data))
	}
}
