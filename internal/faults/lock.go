package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the other process that locks the database

	"hush/internal/hushproc"
	"hush/internal/testdb"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// sqliteLock holds the write lock of the SQLite database from another
// process's connection while clients read one-view pushes: some give up
// before it is released (their views must stay unspent), others wait
// (they get 503 with Retry-After once the busy timeout has passed, never
// 500), and readiness says the database is busy. Released, the server
// recovers by itself.
func sqliteLock(ctx context.Context, w *world) (string, error) {
	dir := w.opt.Dir()
	busy := w.scaleD(2*time.Second, 10*time.Second)
	hold := w.scaleD(6*time.Second, 40*time.Second)
	giveUp := w.scaleD(1500*time.Millisecond, 22*time.Second)
	p, err := w.start(hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR="+dir, "HUSH_SQLITE_BUSY_TIMEOUT="+busy.String())})
	if err != nil {
		return "", err
	}
	base := p.URL()
	goneToks, err := w.createMany(ctx, base, "gone", w.scale(8, 8), 1)
	if err != nil {
		return "", err
	}
	waitToks, err := w.createMany(ctx, base, "waits", 4, 1)
	if err != nil {
		return "", err
	}

	release, err := testdb.LockWrites(ctx, filepath.Join(dir, "hush.db"))
	if err != nil {
		return "", err
	}
	locked := time.Now()
	var wg sync.WaitGroup
	var first503 atomic.Int64
	note503 := func(a answer) {
		if a.status == http.StatusServiceUnavailable {
			first503.CompareAndSwap(0, int64(time.Since(locked)))
		}
	}
	for _, tok := range goneToks {
		wg.Go(func() { w.retrieve(ctx, base, tok, giveUp) })
	}
	for _, tok := range waitToks {
		wg.Go(func() { note503(w.retrieve(ctx, base, tok, hold+time.Minute)) })
	}
	for i := range 4 {
		wg.Go(func() { note503(w.create(ctx, base, fmt.Sprintf("during-%d", i), 3, hold+time.Minute)) })
	}
	time.Sleep(hold / 2)
	during := w.readyz(ctx, base)
	time.Sleep(time.Until(locked.Add(hold)))
	release()
	wg.Wait()
	rec, err := w.waitReady(ctx, base, 30*time.Second)
	if err != nil {
		w.violate("%v", err)
	}
	spent := w.spentFor(ctx, base, goneToks)
	if during.status != http.StatusServiceUnavailable || !strings.Contains(during.body, `"database":"busy"`) {
		w.violate("/readyz answered %d %s while the database was locked", during.status, during.body)
	}
	if first503.Load() == 0 {
		w.violate("no waiting request was told to try again (503) while the lock outlasted the busy timeout")
	}
	intact := w.verifyAll(ctx, base)
	faultLines := strings.Count(p.Log(), "storage fault: requests fail")
	return fmt.Sprintf("locked %s with a busy timeout of %s: waiting requests got 503 with Retry-After after %s "+
		"(answers %s); /readyz %d `%s` meanwhile; %d clients gave up after %s, %d of their one-view pushes spent; "+
		"ready %s after the release, no restart; the fault logged %d time(s); %d acknowledged pushes intact",
		secs(hold), secs(busy), secs(time.Duration(first503.Load())), w.statusLine(), during.status, during.body,
		len(goneToks), secs(giveUp), spent, secs(rec), faultLines, intact), nil
}

// createMany creates n pushes of views views and returns their tokens.
func (w *world) createMany(ctx context.Context, base, prefix string, n, views int) ([]string, error) {
	var toks []string
	for i := range n {
		a := w.create(ctx, base, fmt.Sprintf("%s-%d", prefix, i), views, 30*time.Second)
		if a.push == nil {
			return nil, fmt.Errorf("create before the fault: status %d", a.status)
		}
		toks = append(toks, a.push.URLToken)
	}
	return toks, nil
}

// spentFor reads the one-view pushes whose clients had gone: each must
// still serve its payload; it returns how many did not, and records a
// violation for them.
func (w *world) spentFor(ctx context.Context, base string, toks []string) int {
	spent := 0
	for _, tok := range toks {
		if a := w.retrieve(ctx, base, tok, 30*time.Second); a.push == nil || a.push.Payload == nil {
			spent++
		}
	}
	if spent > 0 {
		w.violate("%d of %d one-view pushes were spent for clients that had gone", spent, len(toks))
	}
	return spent
}

// apiToken creates a user with the admin verbs and returns an API token.
func apiToken(ctx context.Context, spec hushproc.Spec, email string) (string, error) {
	if _, err := hushproc.Admin(ctx, spec, "user", "create", "--email", email, "--password", "fault test password"); err != nil {
		return "", err
	}
	out, err := hushproc.Admin(ctx, spec, "token", "create", "--email", email)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}
