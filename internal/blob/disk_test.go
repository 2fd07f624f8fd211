package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("client went away")
	}
	f.n--
	return copy(p, "data"), nil
}

func TestDisk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := NewDisk(filepath.Join(dir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	id := "abcdefghijklmnop_-1234"
	n, err := d.Put(ctx, id, strings.NewReader("sealed bytes"))
	if err != nil || n != 12 {
		t.Fatalf("Put: %d %v", n, err)
	}
	r, err := d.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	r.Close()
	if string(b) != "sealed bytes" {
		t.Errorf("read back %q", b)
	}
	fi, _ := os.Stat(filepath.Join(dir, "files", "ab", id))
	if fi == nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("blob file mode: %v", fi)
	}
	if _, err := d.Put(ctx, id, strings.NewReader("again")); err == nil {
		t.Error("a second Put under the same id succeeded")
	}

	// A failed upload leaves nothing visible, and Walk reports its partial file.
	failed := "qrstuvwxyzABCDEFGH"
	if _, err := d.Put(ctx, failed, &failingReader{n: 3}); err == nil {
		t.Error("Put of a failing reader succeeded")
	}
	if _, err := d.Open(ctx, failed); !errors.Is(err, ErrNotFound) {
		t.Errorf("open of a failed upload: %v", err)
	}
	var seen []string
	d.Walk(ctx, func(id string, mod time.Time) error {
		if time.Since(mod) > time.Minute {
			t.Errorf("odd mod time %v", mod)
		}
		seen = append(seen, id)
		return nil
	})
	if len(seen) != 1 || seen[0] != id {
		t.Errorf("Walk saw %v", seen)
	}

	if err := d.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, id); err != nil {
		t.Errorf("deleting a missing blob: %v", err)
	}
	if _, err := d.Open(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("open after delete: %v", err)
	}
	for _, bad := range []string{"../../etc/passwd", "short", "abcdefghijklmnop/x", strings.Repeat("a", 65)} {
		if _, err := d.Put(ctx, bad, bytes.NewReader(nil)); err == nil {
			t.Errorf("Put accepted id %q", bad)
		}
		if _, err := d.Open(ctx, bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open of id %q: %v", bad, err)
		}
	}
	// Cancelled context stops an upload.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.Put(cctx, "cancelledcancelled", strings.NewReader("x")); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
}
