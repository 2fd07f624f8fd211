package store

import (
	"context"
	"database/sql/driver"
	"math/rand/v2"
	"sync"
	"time"
)

// Back-off between attempts to reach an unreachable PostgreSQL server: from
// minBackoff, doubling up to maxBackoff, with a quarter of jitter so that
// several instances do not knock in step.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// guardedConnector opens PostgreSQL connections through a back-off: once a
// connection attempt has failed, no other is made until the back-off has
// passed, and then only one at a time, so that an outage costs a few
// attempts a second per instance instead of one per request (each of which
// would take an ephemeral port). Meanwhile requests fail at once with a
// downError, which the API answers with 503 and Retry-After.
type guardedConnector struct {
	driver.Connector
	slots chan struct{} // bounds the attempts under way, so an outage begins with few

	mu      sync.Mutex
	backoff time.Duration // 0 while the server is reachable
	until   time.Time     // no attempt before then
	probing bool          // an attempt after a failure is under way
	last    error         // the failure that started or extended the back-off
	now     func() time.Time
	tries   int64 // attempts made, for the tests
}

func newGuardedConnector(c driver.Connector) *guardedConnector {
	return &guardedConnector{Connector: c, now: time.Now, slots: make(chan struct{}, maxDialing)}
}

// maxDialing is how many connection attempts may be under way at once:
// when an outage begins, every pooled connection breaks together, and each
// request would otherwise dial before the first failure is known.
const maxDialing = 4

func (g *guardedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-g.slots }()
	if err := g.admit(); err != nil {
		return nil, err
	}
	conn, err := g.Connector.Connect(ctx)
	g.record(ctx, err)
	return conn, err
}

// admit lets an attempt through, or says how long the server is still
// taken to be down.
func (g *guardedConnector) admit() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.backoff > 0 {
		now := g.now()
		if now.Before(g.until) || g.probing {
			return &downError{retry: max(g.until.Sub(now), minBackoff), last: g.last}
		}
		g.probing = true
	}
	g.tries++
	return nil
}

// record ends an attempt: success clears the back-off, failure doubles it.
// An attempt cut short by its caller says nothing about the server.
func (g *guardedConnector) record(ctx context.Context, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.probing = false
	switch {
	case err == nil:
		g.backoff, g.last = 0, nil
	case ctx.Err() != nil:
	default:
		g.backoff = min(max(2*g.backoff, minBackoff), maxBackoff)
		jitter := time.Duration(rand.Int64N(int64(g.backoff / 4)))
		g.until, g.last = g.now().Add(g.backoff-g.backoff/8+jitter), err
	}
}

// attempts returns how many connection attempts were made.
func (g *guardedConnector) attempts() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tries
}
