package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hush/internal/faultproxy"
	"hush/internal/hushproc"
)

// postgresBehindProxy starts a server whose PostgreSQL database is reached
// through a fault proxy.
func postgresBehindProxy(w *world, extra ...string) (*hushproc.Proc, *faultproxy.Proxy, error) {
	u, err := url.Parse(w.opt.Postgres())
	if err != nil {
		return nil, nil, err
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		return nil, nil, err
	}
	w.onCleanup(func() { proxy.Close() })
	u.Host = proxy.Addr()
	p, err := w.start(hushproc.Spec{Binary: w.opt.Binary,
		Env: w.env(append([]string{"HUSH_DATA_DIR=" + w.opt.Dir(), "HUSH_DATABASE_URL=" + u.String()}, extra...)...)})
	return p, proxy, err
}

// load runs clients that create pushes and read the acknowledged ones
// until stop is closed; each request gives up after timeout.
func (w *world) load(ctx context.Context, base func(i int) string, clients int, timeout time.Duration, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if n%2 == 0 {
					w.create(ctx, base(i), fmt.Sprintf("load-%d-%d", i, n), 100, timeout)
					continue
				}
				if tok := w.someToken(); tok != "" {
					w.retrieve(ctx, base(i+1), tok, timeout)
				}
			}
		})
	}
	return &wg
}

// someToken returns an acknowledged push with views to spare, or "".
func (w *world) someToken() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := rand.IntN(len(w.created) + 1)
	for tok, t := range w.created {
		if k--; k <= 0 && t.served < t.views-10 {
			return tok
		}
	}
	return ""
}

// postgresDown stops PostgreSQL (connections refused, open ones cut) while
// 16 clients keep working: they get 503 with Retry-After, connection
// attempts back off instead of one per request, and the server recovers
// by itself when the database is back.
func postgresDown(ctx context.Context, w *world) (string, error) {
	p, proxy, err := postgresBehindProxy(w)
	if err != nil {
		return "", err
	}
	base := p.URL()
	if _, err := w.createMany(ctx, base, "before", 20, 100); err != nil {
		return "", err
	}
	down := w.scaleD(3*time.Second, 30*time.Second)
	stop := make(chan struct{})
	wg := w.load(ctx, func(int) string { return base }, 16, 5*time.Second, stop)
	time.Sleep(500 * time.Millisecond)
	before := w.status(http.StatusServiceUnavailable)
	accepted := proxy.Accepted()
	proxy.Set(faultproxy.Refuse)
	proxy.Cut()
	time.Sleep(down)
	attempts := proxy.Accepted() - accepted
	failed := w.status(http.StatusServiceUnavailable) - before
	during := w.readyz(ctx, base)
	proxy.Set(faultproxy.Pass)
	rec, err := w.waitReady(ctx, base, 30*time.Second)
	if err != nil {
		w.violate("%v", err)
	}
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	rate := float64(attempts) / down.Seconds()
	if rate > 20 {
		w.violate("%.0f connection attempts a second during the outage", rate)
	}
	if failed == 0 {
		w.violate("no request was answered 503 during the outage")
	}
	if during.status != http.StatusServiceUnavailable {
		w.violate("/readyz answered %d during the outage", during.status)
	}
	intact := w.verifyAll(ctx, base)
	return fmt.Sprintf("stopped %s under 16 clients: 503 with Retry-After ×%d (answers %s); %d connection attempts "+
		"(%.1f a second, each connection counted at the proxy); /readyz %d `%s`; ready %s after it came back, no restart; "+
		"%d acknowledged pushes intact", secs(down), failed, w.statusLine(), attempts, rate, during.status, during.body,
		secs(rec), intact), nil
}

// postgresFrozen freezes PostgreSQL (connections held, nothing passed):
// clients reading one-view pushes give up; their views stay unspent when
// the database thaws, readiness says it is not ready meanwhile, and the
// server recovers by itself.
func postgresFrozen(ctx context.Context, w *world) (string, error) {
	p, proxy, err := postgresBehindProxy(w)
	if err != nil {
		return "", err
	}
	base := p.URL()
	goneToks, err := w.createMany(ctx, base, "gone", 8, 1)
	if err != nil {
		return "", err
	}
	hold := w.scaleD(4*time.Second, 30*time.Second)
	giveUp := w.scaleD(1500*time.Millisecond, 10*time.Second)
	proxy.Set(faultproxy.Freeze)
	frozen := time.Now()
	var wg sync.WaitGroup
	for _, tok := range goneToks {
		wg.Go(func() { w.retrieve(ctx, base, tok, giveUp) })
	}
	during := w.readyz(ctx, base)
	wg.Wait()
	time.Sleep(time.Until(frozen.Add(hold)))
	proxy.Set(faultproxy.Pass)
	rec, err := w.waitReady(ctx, base, 30*time.Second)
	if err != nil {
		w.violate("%v", err)
	}
	if during.status != http.StatusServiceUnavailable {
		w.violate("/readyz answered %d while the database was frozen", during.status)
	}
	spent := w.spentFor(ctx, base, goneToks)
	intact := w.verifyAll(ctx, base)
	return fmt.Sprintf("frozen %s: %d clients gave up after %s, %d of their one-view pushes spent; /readyz %d `%s` "+
		"(its own 3 s bound); ready %s after the thaw, no restart; %d acknowledged pushes intact",
		secs(hold), len(goneToks), secs(giveUp), spent, during.status, during.body, secs(rec), intact), nil
}

// instanceKill runs two instances on one PostgreSQL database under load
// and kills one with SIGKILL: the other keeps serving, nothing
// acknowledged is lost, no push is served beyond its views, and the killed
// one comes back.
func instanceKill(ctx context.Context, w *world) (string, error) {
	db := w.opt.Postgres()
	spec := func() hushproc.Spec {
		return hushproc.Spec{Binary: w.opt.Binary, Env: w.env("HUSH_DATA_DIR="+w.opt.Dir(), "HUSH_DATABASE_URL="+db)}
	}
	a, err := w.start(spec())
	if err != nil {
		return "", err
	}
	b, err := w.start(spec())
	if err != nil {
		return "", err
	}
	var urls [2]atomic.Value
	urls[0].Store(a.URL())
	urls[1].Store(b.URL())
	if _, err := w.createMany(ctx, b.URL(), "before", 10, 100); err != nil {
		return "", err
	}
	stop := make(chan struct{})
	wg := w.load(ctx, func(i int) string { return urls[i%2].Load().(string) }, 8, 5*time.Second, stop)
	time.Sleep(w.scaleD(time.Second, 5*time.Second))
	a.Kill()
	killed := time.Now()
	okBefore := w.status(http.StatusOK) + w.status(http.StatusCreated)
	time.Sleep(w.scaleD(2*time.Second, 20*time.Second))
	servedMeanwhile := w.status(http.StatusOK) + w.status(http.StatusCreated) - okBefore
	again, err := w.start(spec())
	if err != nil {
		w.violate("the killed instance did not start again: %v", err)
	} else {
		urls[0].Store(again.URL())
	}
	back := time.Since(killed)
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if servedMeanwhile == 0 {
		w.violate("the surviving instance served nothing while the other was down")
	}
	intact := w.verifyAll(ctx, b.URL())
	return fmt.Sprintf("one of two instances killed under 8 clients: the other served %d requests meanwhile; "+
		"requests sent to the dead one failed to connect (answers %s); restarted %s after the kill; "+
		"%d acknowledged pushes intact, none served beyond its views",
		servedMeanwhile, strings.ReplaceAll(w.statusLine(), "no answer", "no connection"), secs(back), intact), nil
}
