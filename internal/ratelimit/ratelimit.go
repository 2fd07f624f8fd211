// Package ratelimit limits requests per client key (an IP address) with two
// token buckets, a per-minute and a per-second one, kept in memory.
//
// In memory on purpose: this is a flood guard in front of every route, so it
// must cost no database round trip per request. Behind a load balancer each
// instance counts its own share; the limits that must hold across instances
// (passphrase guesses, sign-ins) are counted in the database by the service.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys bounds the number of clients tracked at once.
const DefaultMaxKeys = 100_000

// Limiter hands out per-key allowances. The zero value is not usable; build
// one with New.
type Limiter struct {
	perMinute, perSecond int
	maxKeys              int
	now                  func() time.Time

	mu      sync.Mutex
	clients map[string]*client
}

type client struct {
	minute, second *rate.Limiter
	last           time.Time
}

// New returns a limiter allowing perMinute requests a minute and perSecond a
// second to each key; a zero limit is not enforced. now may be nil.
func New(perMinute, perSecond int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{perMinute: perMinute, perSecond: perSecond, maxKeys: DefaultMaxKeys,
		now: now, clients: make(map[string]*client)}
}

// SetMaxKeys changes the bound on tracked keys (for tests).
func (l *Limiter) SetMaxKeys(n int) { l.maxKeys = n }

// Enabled reports whether any limit is enforced.
func (l *Limiter) Enabled() bool { return l != nil && (l.perMinute > 0 || l.perSecond > 0) }

// Allow takes one request from key's allowance. When none is left it
// returns false and how long until the request would be allowed.
func (l *Limiter) Allow(key string) (ok bool, retryAfter time.Duration) {
	if !l.Enabled() {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.clients[key]
	if c == nil {
		l.makeRoom(now)
		c = &client{}
		if l.perMinute > 0 {
			c.minute = rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMinute)), l.perMinute)
		}
		if l.perSecond > 0 {
			c.second = rate.NewLimiter(rate.Limit(l.perSecond), l.perSecond)
		}
		l.clients[key] = c
	}
	c.last = now
	var rs []*rate.Reservation
	for _, b := range []*rate.Limiter{c.minute, c.second} {
		if b != nil {
			rs = append(rs, b.ReserveN(now, 1))
		}
	}
	for _, r := range rs {
		if d := r.DelayFrom(now); d > retryAfter {
			retryAfter = d
		}
	}
	if retryAfter == 0 {
		return true, 0
	}
	// A refused request uses no allowance: give every reservation back.
	for _, r := range rs {
		r.CancelAt(now)
	}
	return false, retryAfter
}

// idleFor is how long after its last request a client's buckets are full
// again, so forgetting it changes nothing.
func (l *Limiter) idleFor() time.Duration {
	if l.perMinute > 0 {
		return time.Minute
	}
	return time.Second
}

// makeRoom keeps the map under maxKeys: it forgets clients idle long enough
// to be full again, and if that is not enough, arbitrary clients (who then
// start afresh: under a flood of distinct addresses the limiter fails open
// for some of them rather than grow without bound).
func (l *Limiter) makeRoom(now time.Time) {
	if len(l.clients) < l.maxKeys {
		return
	}
	for k, c := range l.clients {
		if now.Sub(c.last) >= l.idleFor() {
			delete(l.clients, k)
		}
	}
	for k := range l.clients {
		if len(l.clients) < l.maxKeys {
			break
		}
		delete(l.clients, k)
	}
}

// Len is the number of clients tracked.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}
