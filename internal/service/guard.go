package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"hush/internal/push"
)

// Rule is one rate limit: at most Limit events per Window in Bucket.
type Rule struct {
	Bucket string
	Limit  int
	Window time.Duration
}

// bucket names a counter by a digest of its parts, so the table holds no
// address, email or token.
func bucket(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Wait returns how long until every rule allows one more event (0: now).
// Counters live in the database, so all instances share them.
func (s *Service) Wait(ctx context.Context, now time.Time, rules ...Rule) (time.Duration, error) {
	var wait time.Duration
	for _, r := range rules {
		times, err := s.Store.RecentEvents(ctx, r.Bucket, now.Add(-r.Window+time.Millisecond), r.Limit)
		if err != nil {
			return 0, err
		}
		if len(times) >= r.Limit {
			wait = max(wait, times[r.Limit-1].Add(r.Window).Sub(now))
		}
	}
	return wait, nil
}

// Hit records one event under every rule.
func (s *Service) Hit(ctx context.Context, now time.Time, rules ...Rule) error {
	buckets := make([]string, len(rules))
	for i, r := range rules {
		buckets[i] = r.Bucket
	}
	return s.Store.AddEvents(ctx, now, buckets...)
}

// Passphrase guessing limits (D8): failed attempts only.
const (
	guessPerClient       = 5
	guessPerClientWindow = time.Minute
	guessPerPush         = 20
	guessPerPushWindow   = time.Hour
)

func passphraseRules(token, ip string) []Rule {
	return []Rule{
		{bucket("passphrase-client", token, ip), guessPerClient, guessPerClientWindow},
		{bucket("passphrase-push", token), guessPerPush, guessPerPushWindow},
	}
}

// checkGuesses returns a CodeTooMany error while a limit is used up. A
// stranger's guesses lock out the real recipient only when the whole-push
// cap is reached.
func (s *Service) checkGuesses(ctx context.Context, token, ip string, now time.Time) error {
	wait, err := s.Wait(ctx, now, passphraseRules(token, ip)...)
	if err != nil || wait <= 0 {
		return err
	}
	return &push.Error{Code: push.CodeTooMany, Message: MsgTooManyGuess, RetryAfter: wait}
}

// failGuess records one failed attempt.
func (s *Service) failGuess(ctx context.Context, token, ip string, now time.Time) error {
	return s.Hit(ctx, now, passphraseRules(token, ip)...)
}

// Sign-in limits: every attempt counts, so the password hashing an attacker
// can cause is bounded too.
const (
	signInPerIP    = 10
	signInPerEmail = 5
	signInWindow   = time.Minute
)

// AllowSignIn records a sign-in attempt unless the client or the account
// used up its attempts; then it returns how long to wait.
func (s *Service) AllowSignIn(ctx context.Context, ip, email string) (time.Duration, error) {
	now := s.now()
	rules := []Rule{
		{bucket("signin-ip", ip), signInPerIP, signInWindow},
		{bucket("signin-email", email), signInPerEmail, signInWindow},
	}
	wait, err := s.Wait(ctx, now, rules...)
	if err != nil || wait > 0 {
		return wait, err
	}
	return 0, s.Hit(ctx, now, rules...)
}
