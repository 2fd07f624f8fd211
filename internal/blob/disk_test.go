package blob_test

import (
	"os"
	"path/filepath"
	"testing"

	"hush/internal/blob"
	"hush/internal/blob/blobtest"
)

func TestDisk(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.FileStore {
		d, err := blob.NewDisk(filepath.Join(t.TempDir(), "files"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

// TestDiskLayout checks what only the disk store has: private file modes,
// the two-level layout, and partial files left by a crash.
func TestDiskLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "files")
	d, err := blob.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := "abcdefghijklmnop_-1234"
	blobtest.Put(t, d, id, "sealed bytes")
	fi, err := os.Stat(filepath.Join(dir, "ab", id))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("blob file mode: %v %v", fi, err)
	}

	// A crash mid-upload leaves a partial file: invisible to Open, reported
	// by Walk (so the sweeper can remove it), removed by Delete.
	crashed := "qrstuvwxyzABCDEFGH"
	partial := filepath.Join(dir, "qr", crashed+blob.TmpSuffix)
	if err := os.MkdirAll(filepath.Dir(partial), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partial, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	blobtest.AssertMissing(t, d, crashed)
	if got := blobtest.WalkIDs(t, d); len(got) != 2 || got[0] != id || got[1] != crashed {
		t.Errorf("Walk saw %v", got)
	}
	if err := d.Delete(t.Context(), crashed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Errorf("partial file after Delete: %v", err)
	}
}
