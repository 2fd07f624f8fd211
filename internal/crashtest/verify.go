package crashtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"
	"time"

	"hush/internal/client"
)

// verifySample checks n random acknowledged pushes while the load goes on.
func (r *runner) verifySample(ctx context.Context, n int) {
	r.mu.Lock()
	var sample []*tracked
	for range min(n, len(r.pushes)) {
		sample = append(sample, r.pushes[mrand.IntN(len(r.pushes))])
	}
	r.mu.Unlock()
	for _, p := range sample {
		r.verifyPush(ctx, p, false)
	}
}

// verifyAll checks every acknowledged push once the load has stopped,
// including the view accounting.
func (r *runner) verifyAll(ctx context.Context) {
	r.mu.Lock()
	all := append([]*tracked(nil), r.pushes...)
	r.mu.Unlock()
	for _, p := range all {
		r.verifyPush(ctx, p, true)
	}
}

// verifyPush reads p as its owner (which uses no view): it must exist; an
// unexpired push must have its payload and files intact. With final set
// (no load running), an unexpired push must have been served fewer times
// than its limit, and an expired one must have used up its views (served,
// or possibly served by a request a kill cut off).
func (r *runner) verifyPush(ctx context.Context, p *tracked, final bool) {
	var got *client.Push
	var status int
	var err error
	for try := 0; try < 50; try++ {
		if got, status, err = r.get(ctx, p.token, true); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	atomic.AddInt64(&r.rep.Verified, 1)
	switch {
	case err != nil:
		r.violate("verify %s: %v", p.token[:6], err)
		return
	case status != 200:
		r.violate("acknowledged push %s is gone: status %d", p.token[:6], status)
		return
	}
	served, unknown := p.served.Load(), p.unknown.Load()
	if got.Expired || got.Payload == nil {
		if final && served+unknown < int64(p.limit) {
			r.violate("push %s expired after %d served + %d unknown views, limit %d", p.token[:6], served, unknown, p.limit)
		}
		return
	}
	if *got.Payload != p.payload {
		r.violate("push %s: payload changed", p.token[:6])
	}
	if final && served >= int64(p.limit) {
		r.violate("push %s: served %d times but not expired (limit %d)", p.token[:6], served, p.limit)
	}
	r.verifyFiles(ctx, p, got.Files)
}

// verifyFiles checks that an unexpired push has exactly the files uploaded
// with it, each downloading to what was uploaded.
func (r *runner) verifyFiles(ctx context.Context, p *tracked, files []client.File) {
	if len(files) != len(p.files) {
		r.violate("push %s: %d files, uploaded %d", p.token[:6], len(files), len(p.files))
		return
	}
	for _, f := range files {
		want, ok := p.files[f.Filename]
		if !ok {
			r.violate("push %s: unexpected file %q", p.token[:6], f.Filename)
			continue
		}
		if sum, err := r.download(ctx, f.URL); err != nil || sum != want {
			r.violate("push %s: file %q does not match its upload (%v)", p.token[:6], f.Filename, err)
		}
		atomic.AddInt64(&r.rep.FilesCheck, 1)
	}
}

// download returns the SHA-256 of a file link's contents.
func (r *runner) download(ctx context.Context, url string) (string, error) {
	body, err := r.api(false).Download(ctx, url)
	var other *client.Error
	if errors.As(err, &other) {
		return fmt.Sprintf("status %d", other.Status), nil
	}
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:]), nil
}
