package service

import (
	"fmt"
	"testing"
	"time"

	"hush/internal/push"
)

func TestGuardLimits(t *testing.T) {
	g := newPassphraseGuard()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Per client: 5 failures a minute.
	for i := 0; i < 5; i++ {
		if err := g.check("p", "198.51.100.1", now); err != nil {
			t.Fatalf("blocked after %d failures", i)
		}
		g.fail("p", "198.51.100.1", now.Add(time.Duration(i)*time.Second))
	}
	err := g.check("p", "198.51.100.1", now.Add(5*time.Second))
	var e *push.Error
	if err == nil || push.ErrorCode(err) != push.CodeTooMany {
		t.Fatalf("6th attempt: %v", err)
	}
	e = err.(*push.Error)
	if e.RetryAfter != 55*time.Second || e.Message != MsgTooManyGuess {
		t.Errorf("retry after %v, message %q", e.RetryAfter, e.Message)
	}
	if err := g.check("p", "198.51.100.2", now); err != nil {
		t.Error("another client is blocked by a stranger's guesses")
	}
	if err := g.check("p", "198.51.100.1", now.Add(61*time.Second)); err != nil {
		t.Error("still blocked after the minute")
	}

	// Per push: 20 failures an hour from anywhere.
	for i := 0; i < 20; i++ {
		ip := fmt.Sprintf("10.0.0.%d", i)
		if err := g.check("t", ip, now); err != nil {
			t.Fatalf("client %d blocked early: %v", i, err)
		}
		g.fail("t", ip, now)
	}
	if err := g.check("t", "192.0.2.1", now); err == nil {
		t.Error("a fresh client is not blocked after 20 failures on the push")
	}
	if err := g.check("other", "10.0.0.1", now); err != nil {
		t.Error("another push is blocked")
	}
	if err := g.check("t", "192.0.2.1", now.Add(time.Hour)); err != nil {
		t.Error("still blocked an hour later")
	}
}

func TestGuardPrunesOldKeys(t *testing.T) {
	g := newPassphraseGuard()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i <= guardMaxKeys; i++ {
		g.perPush[fmt.Sprint(i)] = []time.Time{now}
	}
	g.fail("fresh", "1.2.3.4", now.Add(2*time.Hour))
	if len(g.perPush) != 1 {
		t.Errorf("%d per-push entries after pruning, want 1", len(g.perPush))
	}
}

func TestValidToken(t *testing.T) {
	for tok, want := range map[string]bool{
		"abc": true, "q3v9x0k1m2n4": true, "a_b-c": true,
		"": false, "a.b": false, "a/b": false, "a\x00": false, string(make([]byte, 129)): false,
	} {
		if got := ValidToken(tok); got != want {
			t.Errorf("ValidToken(%q) = %v", tok, got)
		}
	}
}
