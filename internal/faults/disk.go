package faults

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hush/internal/client"
	"hush/internal/hushproc"
)

// canUnshare reports whether this process can run a command in a mount
// namespace of its own (as root, or through an unprivileged user
// namespace), with the prefix to do so.
func canUnshare() ([]string, error) {
	prefixes := [][]string{{"unshare", "--mount", "--propagation", "private"},
		{"unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"}}
	var last error
	for _, p := range prefixes {
		out, err := exec.Command(p[0], append(p[1:], "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt")...).CombinedOutput()
		if err == nil {
			return p, nil
		}
		last = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil, last
}

// onTmpfs is a server whose data directory is a small tmpfs in a mount
// namespace of its own, and a client of an account on it.
type onTmpfs struct {
	base   string
	inside string // the data directory as this process reaches it
	owner  *client.Client
}

// startOnTmpfs starts a server on a tmpfs of size MiB.
func startOnTmpfs(ctx context.Context, w *world, size int) (*onTmpfs, error) {
	prefix, err := canUnshare()
	if err != nil {
		return nil, fmt.Errorf("a filesystem to fill needs a mount namespace (unshare): %w", err)
	}
	dir := w.opt.Dir()
	spec := hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR=" + dir),
		Prefix: append(prefix, "sh", "-c", fmt.Sprintf(`mount -t tmpfs -o size=%dm tmpfs "$0" && exec "$@"`, size), dir)}
	p, err := w.start(spec)
	if err != nil {
		return nil, err
	}
	// The tmpfs is seen from here through the server's own root; the admin
	// verbs run in its mount namespace (SQLite would resolve the /proc path
	// to the directory under the mount).
	enter := []string{"nsenter", "--target", strconv.Itoa(p.PID()), "--mount"}
	if prefix[1] == "--user" {
		enter = append(enter, "--user", "--preserve-credentials")
	}
	token, err := apiToken(ctx, hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR=" + dir), Prefix: enter}, "full@example.com")
	if err != nil {
		return nil, err
	}
	return &onTmpfs{base: p.URL(), inside: fmt.Sprintf("/proc/%d/root%s", p.PID(), dir),
		owner: &client.Client{Base: p.URL(), Token: token, HTTP: w.hc}}, nil
}

// upload creates a push with one file of 1 MiB and returns the status.
func (e *onTmpfs) upload(ctx context.Context, w *world, name string) int {
	_, err := e.owner.CreateWithFiles(ctx, map[string]string{"push[expire_after_views]": "3"},
		client.Upload{Name: name, Data: make([]byte, 1<<20)})
	st, _ := statusOf(err)
	if err == nil {
		st = http.StatusCreated
	}
	w.count(st)
	return st
}

// diskFull runs the server with its data directory on a small tmpfs of its
// own mount namespace, fills it, and checks that what needs space is
// answered 507 (never 500), readiness says so, and freeing space recovers
// the server without a restart.
func diskFull(ctx context.Context, w *world) (string, error) {
	size := w.scale(48, 128)
	e, err := startOnTmpfs(ctx, w, size)
	if err != nil {
		return "", err
	}
	if _, err := w.createMany(ctx, e.base, "before", 10, 3); err != nil {
		return "", err
	}
	if st := e.upload(ctx, w, "before.bin"); st != http.StatusCreated {
		return "", fmt.Errorf("upload before the fault: %d", st)
	}

	filler := filepath.Join(e.inside, "filler")
	if err := fill(filler); err != nil {
		return "", err
	}
	uploads507 := 0
	for i := range 3 {
		if e.upload(ctx, w, fmt.Sprintf("during-%d.bin", i)) == http.StatusInsufficientStorage {
			uploads507++
		}
	}
	for i := range 10 {
		w.create(ctx, e.base, fmt.Sprintf("during-%d", i), 3, 30*time.Second)
	}
	time.Sleep(1100 * time.Millisecond) // past the last readiness answer kept
	during := w.readyz(ctx, e.base)
	if uploads507 == 0 {
		w.violate("no upload was answered 507 on a full disk")
	}
	if during.status != http.StatusServiceUnavailable || !strings.Contains(during.body, "full") {
		w.violate("/readyz answered %d %s on a full disk", during.status, during.body)
	}
	duringLine := w.statusLine()

	if err := os.Remove(filler); err != nil {
		return "", err
	}
	rec, err := w.waitReady(ctx, e.base, 30*time.Second)
	if err != nil {
		w.violate("%v", err)
	}
	if st := e.upload(ctx, w, "after.bin"); st != http.StatusCreated {
		w.violate("upload after space was freed: %d", st)
	}
	intact := w.verifyAll(ctx, e.base)
	return fmt.Sprintf("a %d MiB filesystem filled: uploads 507 (%d of 3), answers %s; /readyz %d `%s`; "+
		"space freed: ready %s later, uploads and creates 201, no restart; %d acknowledged pushes intact",
		size, uploads507, duringLine, during.status, during.body, secs(rec), intact), nil
}

// fill writes path until the filesystem has no space left.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 256<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}
