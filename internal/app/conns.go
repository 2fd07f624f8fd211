package app

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	"hush/internal/ratelimit"
)

// Bounds of open connections when HUSH_MAX_CONNS is 0: half the process's
// file descriptors (the rest is for the database, files and S3), within
// these limits.
const (
	minDerivedConns = 64
	maxDerivedConns = 10000
	// healthReserve connections beyond the bound are kept for health
	// checks: a connection admitted into it may ask /healthz, /readyz or
	// /up; anything else gets 503 and the connection is closed.
	healthReserve = 16
	// sheddableAfter is how long a connection must have been open without
	// sending a request before it counts as idle when room is needed.
	sheddableAfter = time.Second
	// fallbackMaxConns is the bound when no descriptor limit is known.
	fallbackMaxConns = 1024
)

// connLimiter bounds the connections of the public listener, overall and
// per client address (an IPv6 client by its /64; a trusted proxy is not
// bounded per client, it speaks for many). When a new connection would
// pass a bound, an idle one makes room: a keep-alive connection between
// requests, or one that has sent nothing for sheddableAfter, oldest first —
// so 20,000 idle connections cannot keep a new client out, and the file
// descriptors never run out. When nothing is idle, a connection over the
// overall bound may still ask for health (healthReserve); beyond that it is
// closed at once.
type connLimiter struct {
	max, perClient int
	trusted        []netip.Prefix

	mu     sync.Mutex
	open   int                                  // connections counted against max
	spare  int                                  // health-only connections open
	byKey  map[string]map[*limitedConn]struct{} // per client key
	idle   list.List                            // *limitedConn between requests, oldest first
	unused list.List                            // *limitedConn with no request yet, oldest first

	shed, refused func() // metrics hooks; may be nil
}

func newConnLimiter(max, perClient int, trusted []netip.Prefix) *connLimiter {
	if max <= 0 {
		max = derivedMaxConns()
	}
	if perClient <= 0 || perClient > max {
		perClient = max
	}
	return &connLimiter{max: max, perClient: perClient, trusted: trusted, byKey: map[string]map[*limitedConn]struct{}{}}
}

// limitedConn is a connection the limiter counts until it is closed.
type limitedConn struct {
	net.Conn
	l     *connLimiter
	key   string // the client key; "" for a trusted proxy
	spare bool   // admitted into the health reserve

	// Under l.mu:
	state http.ConnState
	since time.Time     // when it entered state
	elem  *list.Element // in l.idle or l.unused, or nil
	gone  bool          // counted out
}

func (c *limitedConn) Close() error {
	c.l.forget(c)
	return c.Conn.Close()
}

// listen wraps ln so that every accepted connection passes the limiter.
func (l *connLimiter) listen(ln net.Listener) net.Listener {
	return &limitedListener{Listener: ln, l: l}
}

type limitedListener struct {
	net.Listener
	l *connLimiter
}

func (ll *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := ll.l.admit(c); lc != nil {
			return lc, nil
		}
		c.Close()
	}
}

// admit counts a new connection, making room by closing idle ones when a
// bound is reached; nil when there is no room.
func (l *connLimiter) admit(c net.Conn) *limitedConn {
	key := l.clientKey(c.RemoteAddr())
	now := time.Now()
	lc := &limitedConn{Conn: c, l: l, key: key, state: http.StateNew, since: now}
	l.mu.Lock()
	victims, ok := l.makeRoom(now, key)
	if !ok {
		l.mu.Unlock()
		l.count(l.refused)
		return nil
	}
	for _, v := range victims {
		l.countOut(v) // now, so that the room is this connection's
	}
	if l.open >= l.max {
		lc.spare = true
		l.spare++
	} else {
		l.open++
	}
	if key != "" {
		if l.byKey[key] == nil {
			l.byKey[key] = map[*limitedConn]struct{}{}
		}
		l.byKey[key][lc] = struct{}{}
	}
	lc.elem = l.unused.PushBack(lc)
	l.mu.Unlock()
	for _, v := range victims {
		v.Conn.Close()
		l.count(l.shed)
	}
	return lc
}

// makeRoom picks the idle connections to close so that a new one of key
// fits (under l.mu): false when it cannot fit, not even in the health
// reserve.
func (l *connLimiter) makeRoom(now time.Time, key string) (victims []*limitedConn, ok bool) {
	freed := 0
	if key != "" && len(l.byKey[key]) >= l.perClient {
		v := l.idlestOf(now, l.byKey[key])
		if v == nil {
			return nil, false
		}
		victims = append(victims, v)
		if !v.spare {
			freed++
		}
	}
	for l.open-freed >= l.max {
		v := l.idlest(now, victims)
		if v == nil {
			break
		}
		victims = append(victims, v)
		if !v.spare {
			freed++
		}
	}
	if l.open-freed >= l.max && l.spare >= healthReserve {
		return nil, false
	}
	return victims, true
}

// idlest returns the connection idle longest, not one of except, or nil.
func (l *connLimiter) idlest(now time.Time, except []*limitedConn) *limitedConn {
	var best *limitedConn
	for _, q := range []*list.List{&l.idle, &l.unused} {
		for e := q.Front(); e != nil; e = e.Next() {
			c := e.Value.(*limitedConn)
			if !c.sheddable(now) {
				break // the rest are younger
			}
			if slices.Contains(except, c) {
				continue
			}
			if best == nil || c.since.Before(best.since) {
				best = c
			}
			break
		}
	}
	return best
}

// idlestOf returns the connection of set idle longest, or nil.
func (l *connLimiter) idlestOf(now time.Time, set map[*limitedConn]struct{}) *limitedConn {
	var best *limitedConn
	for c := range set {
		if c.sheddable(now) && (best == nil || c.since.Before(best.since)) {
			best = c
		}
	}
	return best
}

// sheddable: between requests, or open without a request for a while.
func (c *limitedConn) sheddable(now time.Time) bool {
	return c.state == http.StateIdle || c.state == http.StateNew && now.Sub(c.since) >= sheddableAfter
}

// forget counts c out when it closes, unless it was already.
func (l *connLimiter) forget(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.countOut(c)
}

// countOut removes c from every count (under l.mu), once.
func (l *connLimiter) countOut(c *limitedConn) {
	if c.gone {
		return
	}
	c.gone = true
	l.unlist(c)
	if set := l.byKey[c.key]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(l.byKey, c.key)
		}
	}
	if c.spare {
		l.spare--
	} else {
		l.open--
	}
}

func (l *connLimiter) unlist(c *limitedConn) {
	if c.elem == nil {
		return
	}
	if c.state == http.StateIdle {
		l.idle.Remove(c.elem)
	} else {
		l.unused.Remove(c.elem)
	}
	c.elem = nil
}

// connState is the http.Server's ConnState hook: it keeps each
// connection's state, so that idle ones can be told apart.
func (l *connLimiter) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.gone {
		return
	}
	l.unlist(c)
	c.state, c.since = st, time.Now()
	switch st {
	case http.StateIdle:
		c.elem = l.idle.PushBack(c)
	case http.StateNew:
		c.elem = l.unused.PushBack(c)
	}
}

// clientKey is the bound's key for a peer: its address (an IPv6 one by its
// /64), or "" for a trusted proxy.
func (l *connLimiter) clientKey(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := ap.Addr().Unmap()
	for _, p := range l.trusted {
		if p.Contains(ip) {
			return ""
		}
	}
	return ratelimit.Key(ip.String())
}

func (l *connLimiter) count(f func()) {
	if f != nil {
		f()
	}
}

// spareKey marks the requests of a connection admitted into the health
// reserve.
type spareKey struct{}

// connContext is the http.Server's ConnContext hook.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok && lc.spare {
		return context.WithValue(ctx, spareKey{}, true)
	}
	return ctx
}

// healthOnly answers, on a connection admitted into the health reserve,
// every request but a health check with 503 and closes the connection.
func healthOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(spareKey{}) != nil {
			switch r.URL.Path {
			case "/healthz", "/readyz", "/up":
			default:
				w.Header().Set("Connection", "close")
				w.Header().Set("Retry-After", "1")
				http.Error(w, "The server has too many open connections. Please try again.", http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
