package service

import (
	"sync"
	"time"

	"hush/internal/push"
)

// Passphrase guessing limits (D8): failed attempts only.
const (
	guessPerClient       = 5
	guessPerClientWindow = time.Minute
	guessPerPush         = 20
	guessPerPushWindow   = time.Hour
	guardMaxKeys         = 100000
)

// passphraseGuard counts failed passphrase attempts per (push, client IP) and
// per push. A stranger's guesses lock out the real recipient only when the
// whole-push cap is reached.
type passphraseGuard struct {
	mu      sync.Mutex
	perIP   map[string][]time.Time
	perPush map[string][]time.Time
}

func newPassphraseGuard() *passphraseGuard {
	return &passphraseGuard{perIP: map[string][]time.Time{}, perPush: map[string][]time.Time{}}
}

// check returns a CodeTooMany error while either limit is exhausted.
func (g *passphraseGuard) check(token, ip string, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	wait := max(
		retryAfter(g.perIP, token+"\x00"+ip, guessPerClient, guessPerClientWindow, now),
		retryAfter(g.perPush, token, guessPerPush, guessPerPushWindow, now),
	)
	if wait <= 0 {
		return nil
	}
	return &push.Error{Code: push.CodeTooMany, Message: MsgTooManyGuess, RetryAfter: wait}
}

// fail records one failed attempt.
func (g *passphraseGuard) fail(token, ip string, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.perIP) > guardMaxKeys || len(g.perPush) > guardMaxKeys {
		prune(g.perIP, guessPerClientWindow, now)
		prune(g.perPush, guessPerPushWindow, now)
	}
	record(g.perIP, token+"\x00"+ip, guessPerClient, guessPerClientWindow, now)
	record(g.perPush, token, guessPerPush, guessPerPushWindow, now)
}

func live(times []time.Time, window time.Duration, now time.Time) []time.Time {
	i := 0
	for i < len(times) && now.Sub(times[i]) >= window {
		i++
	}
	return times[i:]
}

func retryAfter(m map[string][]time.Time, key string, limit int, window time.Duration, now time.Time) time.Duration {
	times := live(m[key], window, now)
	if len(times) < limit {
		return 0
	}
	return times[len(times)-limit].Add(window).Sub(now)
}

func record(m map[string][]time.Time, key string, limit int, window time.Duration, now time.Time) {
	times := append(live(m[key], window, now), now)
	if len(times) > limit {
		times = times[len(times)-limit:]
	}
	m[key] = times
}

func prune(m map[string][]time.Time, window time.Duration, now time.Time) {
	for k, times := range m {
		if len(live(times, window, now)) == 0 {
			delete(m, k)
		}
	}
}
