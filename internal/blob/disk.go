package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Disk stores blobs as files under a directory, two levels deep by id
// prefix. A blob is written to a temporary name and renamed when complete,
// so a crash leaves only temporary files, which Walk reports like blobs.
type Disk struct {
	dir string
}

const tmpSuffix = ".partial"

// NewDisk returns a disk store under dir, creating it (mode 0700).
func NewDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", dir, err)
	}
	return &Disk{dir: dir}, nil
}

func (d *Disk) path(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("blob: invalid id %q", id)
	}
	return filepath.Join(d.dir, id[:2], id), nil
}

// Put implements FileStore.
func (d *Disk) Put(ctx context.Context, id string, r io.Reader) (int64, error) {
	p, err := d.path(id)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, fmt.Errorf("blob: %w", err)
	}
	if _, err := os.Lstat(p); err == nil {
		return 0, fmt.Errorf("blob: %s already exists", id)
	}
	tmp := p + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("blob: %w", err)
	}
	n, err := io.Copy(newWriteback(f), ctxReader{ctx, r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return n, fmt.Errorf("blob: write %s: %w", id, err)
	}
	return n, nil
}

// Open implements FileStore.
func (d *Disk) Open(_ context.Context, id string) (io.ReadCloser, error) {
	p, err := d.path(id)
	if err != nil {
		return nil, ErrNotFound
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return f, nil
}

// Delete implements FileStore.
func (d *Disk) Delete(_ context.Context, id string) error {
	p, err := d.path(id)
	if err != nil {
		return err
	}
	for _, name := range []string{p, p + tmpSuffix} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("blob: delete %s: %w", id, err)
		}
	}
	return nil
}

// Walk implements FileStore.
func (d *Disk) Walk(ctx context.Context, fn func(id string, modified time.Time) error) error {
	return filepath.WalkDir(d.dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if e.IsDir() {
			return nil
		}
		id := strings.TrimSuffix(e.Name(), tmpSuffix)
		if !ValidID(id) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		return fn(id, info.ModTime())
	})
}

// Ping implements FileStore.
func (d *Disk) Ping(context.Context) error {
	_, err := os.Stat(d.dir)
	return err
}

// ContextReader returns a reader of r that fails once ctx is cancelled, so
// that a copy from it stops: every FileStore's Put reads through one.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
