package faults

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"hush/internal/client"
	"hush/internal/hushproc"
)

// rotateKill kills `hush key rotate` with SIGKILL at random moments: after
// each kill, serve with the new key alone must refuse to start while any
// value still needs the old key (the start-up key check), serve with both
// keys must read every push, and a final run completes the rotation, after
// which the new key alone reads everything.
func rotateKill(ctx context.Context, w *world) (string, error) {
	dir := w.opt.Dir()
	keyA, keyB := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	withKeys := func(current string, previous ...string) hushproc.Spec {
		env := w.env("HUSH_DATA_DIR="+dir, "HUSH_MASTER_KEY="+current)
		if len(previous) > 0 {
			env = append(env, "HUSH_MASTER_KEY_PREVIOUS="+strings.Join(previous, ","))
		}
		return hushproc.Spec{Binary: w.opt.Binary, Env: env}
	}
	p, err := w.start(withKeys(keyA))
	if err != nil {
		return "", err
	}
	token, err := apiToken(ctx, withKeys(keyA), "rotate@example.com")
	if err != nil {
		return "", err
	}
	n := w.scale(1500, 10000)
	pushes, err := w.seedForRotation(ctx, p.URL(), token, n)
	if err != nil {
		return "", err
	}
	p.Stop()

	// How long a whole rotation takes, timed on a copy, so that the kills
	// land within one.
	whole, err := timeRotation(ctx, w, dir, keyB, keyA)
	if err != nil {
		return "", err
	}
	// Each rotation goes from cur to the other key; one cut short is run
	// again until it completes, then the next goes back.
	cur, next := keyA, keyB
	kills, refused, cutShort, completed := w.scale(6, 20), 0, 0, 0
	for k := range kills {
		rot := exec.CommandContext(ctx, w.opt.Binary, "key", "rotate", "-settle", "0")
		rot.Env = withKeys(next, cur).Env
		if err := rot.Start(); err != nil {
			return "", err
		}
		time.Sleep(time.Duration(rand.Int64N(int64(whole))))
		rot.Process.Kill()
		if rot.Wait() == nil {
			completed++
			cur, next = next, cur
			continue
		}
		cutShort++
		// The new key alone: it must not start while data needs the old
		// one; if it starts, the rotation was done but for its exit.
		alone, err := hushproc.Start(withKeys(next))
		if err != nil {
			if !strings.Contains(err.Error(), "does not match") {
				w.violate("kill %d: serve with the new key alone failed otherwise than by the key check: %v", k+1, err)
			}
			refused++
		} else {
			w.readAll(ctx, alone.URL(), token, pushes, fmt.Sprintf("kill %d, new key alone", k+1))
			alone.Stop()
		}
		both, err := hushproc.Start(withKeys(next, cur))
		if err != nil {
			return "", fmt.Errorf("kill %d: serve with both keys: %w", k+1, err)
		}
		w.readSample(ctx, both.URL(), token, pushes, 20, fmt.Sprintf("kill %d, both keys", k+1))
		both.Stop()
	}
	if _, err := hushproc.Admin(ctx, withKeys(next, cur), "key", "rotate", "-settle", "0"); err != nil {
		return "", fmt.Errorf("the last rotation: %w", err)
	}
	final, err := w.start(withKeys(next))
	if err != nil {
		w.violate("serve with the new key alone after a complete rotation: %v", err)
		return "", nil
	}
	read := w.readAll(ctx, final.URL(), token, pushes, "after the complete rotation, new key alone")
	if refused == 0 {
		w.violate("no kill landed before the rotation was complete: nothing was proved")
	}
	return fmt.Sprintf("rotations of %d pushes (%s whole) killed %d times at random moments within one (%d cut short, "+
		"%d completed first): serve with the new key alone refused to start %d times (the key check), read everything "+
		"the other times; both keys read every sample; the last run completed and the new key alone read all %d",
		n, ms(whole), kills, cutShort, completed, refused, read), nil
}

// timeRotation times a whole `hush key rotate` on a copy of the data
// directory dir (its server stopped).
func timeRotation(ctx context.Context, w *world, dir, current, previous string) (time.Duration, error) {
	copyDir := w.opt.Dir()
	for _, name := range []string{"hush.db", "hush.db-wal", "hush.db-shm"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(copyDir, name), b, 0o600); err != nil {
			return 0, err
		}
	}
	spec := hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR="+copyDir, "HUSH_MASTER_KEY="+current,
		"HUSH_MASTER_KEY_PREVIOUS="+previous)}
	start := time.Now()
	if _, err := hushproc.Admin(ctx, spec, "key", "rotate", "-settle", "0"); err != nil {
		return 0, fmt.Errorf("timing a rotation: %w", err)
	}
	return time.Since(start), nil
}

// rotationPush is a push made before a rotation and how to read it.
type rotationPush struct {
	token, payload, passphrase string
}

// seedForRotation creates n pushes, one in ten owned (its link sealed for
// the owner's lists) and one in a hundred with a passphrase.
func (w *world) seedForRotation(ctx context.Context, base, token string, n int) ([]rotationPush, error) {
	anon, owner := w.client(base), &client.Client{Base: base, Token: token, HTTP: w.hc}
	out := make([]rotationPush, n)
	errs := make(chan error, 8)
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range n {
			next <- i
		}
	}()
	for range 8 {
		go func() {
			for i := range next {
				fields := map[string]any{"payload": fmt.Sprintf("rotated %d", i), "expire_after_views": 100}
				c := anon
				if i%10 == 0 {
					c = owner
				}
				if i%100 == 1 {
					fields["passphrase"] = fmt.Sprintf("phrase %d", i)
				}
				res, err := c.Create(ctx, fields)
				if err != nil {
					errs <- err
					return
				}
				pp, _ := fields["passphrase"].(string)
				out[i] = rotationPush{token: res.URLToken, payload: fields["payload"].(string), passphrase: pp}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readAll reads every push (a view each) and the owner's list, and returns
// how many read right.
func (w *world) readAll(ctx context.Context, base, token string, pushes []rotationPush, when string) int {
	return w.readSample(ctx, base, token, pushes, len(pushes), when)
}

// readSample reads k pushes spread over pushes.
func (w *world) readSample(ctx context.Context, base, token string, pushes []rotationPush, k int, when string) int {
	c := w.client(base)
	ok := 0
	step := max(len(pushes)/k, 1)
	for i := 0; i < len(pushes); i += step {
		p := pushes[i]
		got, err := c.Retrieve(ctx, p.token, p.passphrase)
		if err != nil || got.Payload == nil || *got.Payload != p.payload {
			w.violate("%s: push %d did not read back: %v", when, i, err)
			continue
		}
		ok++
	}
	if _, err := (&client.Client{Base: base, Token: token, HTTP: w.hc}).List(ctx, false, 1); err != nil {
		w.violate("%s: the owner's list: %v", when, err)
	}
	return ok
}
