package web

import (
	"sync"
	"time"
)

// Sign-in attempt limits: per client IP and per email address, counted in a
// sliding window. Every attempt counts, so the password hashing cost an
// attacker can cause is bounded too.
const (
	signInPerIP    = 10
	signInPerEmail = 5
	signInWindow   = time.Minute
	limiterMaxKeys = 100000
)

// signInLimiter counts sign-in attempts in memory.
type signInLimiter struct {
	mu   sync.Mutex
	hits map[string][]time.Time
}

func newSignInLimiter() *signInLimiter {
	return &signInLimiter{hits: map[string][]time.Time{}}
}

// allow records an attempt for ip and email and reports how long to wait
// when either limit is already used up (the attempt is then not recorded).
func (l *signInLimiter) allow(ip, email string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hits) > limiterMaxKeys {
		for k, v := range l.hits {
			if len(recent(v, now)) == 0 {
				delete(l.hits, k)
			}
		}
	}
	keys := []struct {
		key   string
		limit int
	}{{"ip\x00" + ip, signInPerIP}, {"email\x00" + email, signInPerEmail}}
	var wait time.Duration
	for _, k := range keys {
		times := recent(l.hits[k.key], now)
		l.hits[k.key] = times
		if len(times) >= k.limit {
			wait = max(wait, times[len(times)-k.limit].Add(signInWindow).Sub(now))
		}
	}
	if wait > 0 {
		return wait, false
	}
	for _, k := range keys {
		l.hits[k.key] = append(l.hits[k.key], now)
	}
	return 0, true
}

func recent(times []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(times) && now.Sub(times[i]) >= signInWindow {
		i++
	}
	return times[i:]
}
