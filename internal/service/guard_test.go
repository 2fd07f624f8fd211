package service

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/store"
	"hush/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func newTestService(t *testing.T, now func() time.Time) *Service {
	t.Helper()
	st, err := store.Open(context.Background(), testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return New(st, nil, nil, push.DefaultSettings(), now)
}

func TestGuessLimits(t *testing.T) {
	ctx := context.Background()
	s := newTestService(t, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Per client: 5 failures a minute.
	for i := 0; i < 5; i++ {
		if err := s.checkGuesses(ctx, "p", "198.51.100.1", now); err != nil {
			t.Fatalf("blocked after %d failures", i)
		}
		s.failGuess(ctx, "p", "198.51.100.1", now.Add(time.Duration(i)*time.Second))
	}
	err := s.checkGuesses(ctx, "p", "198.51.100.1", now.Add(5*time.Second))
	if push.ErrorCode(err) != push.CodeTooMany {
		t.Fatalf("6th attempt: %v", err)
	}
	if e := err.(*push.Error); e.RetryAfter != 55*time.Second || e.Message != MsgTooManyGuess {
		t.Errorf("retry after %v, message %q", e.RetryAfter, e.Message)
	}
	if err := s.checkGuesses(ctx, "p", "198.51.100.2", now); err != nil {
		t.Error("another client is blocked by a stranger's guesses")
	}
	if err := s.checkGuesses(ctx, "p", "198.51.100.1", now.Add(61*time.Second)); err != nil {
		t.Error("still blocked after the minute")
	}

	// Per push: 20 failures an hour from anywhere.
	for i := 0; i < 20; i++ {
		ip := fmt.Sprintf("10.0.0.%d", i)
		if err := s.checkGuesses(ctx, "t", ip, now); err != nil {
			t.Fatalf("client %d blocked early: %v", i, err)
		}
		s.failGuess(ctx, "t", ip, now)
	}
	if err := s.checkGuesses(ctx, "t", "192.0.2.1", now); err == nil {
		t.Error("a fresh client is not blocked after 20 failures on the push")
	}
	if err := s.checkGuesses(ctx, "other", "10.0.0.1", now); err != nil {
		t.Error("another push is blocked")
	}
	if err := s.checkGuesses(ctx, "t", "192.0.2.1", now.Add(time.Hour)); err != nil {
		t.Error("still blocked an hour later")
	}
}

func TestSignInLimitsAndPruning(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newTestService(t, func() time.Time { return now })
	for i := 0; i < 5; i++ {
		if wait, err := s.AllowSignIn(ctx, "198.51.100.1", "a@example.com"); wait != 0 || err != nil {
			t.Fatalf("attempt %d: %v %v", i, wait, err)
		}
	}
	if wait, _ := s.AllowSignIn(ctx, "198.51.100.2", "a@example.com"); wait <= 0 {
		t.Error("a 6th attempt on one account is allowed")
	}
	if wait, _ := s.AllowSignIn(ctx, "198.51.100.1", "b@example.com"); wait != 0 {
		t.Error("another account is blocked")
	}
	// The sweeper prunes counters older than the longest window.
	now = now.Add(2 * time.Hour)
	if n, err := s.Store.PruneEvents(ctx, now.Add(-time.Hour)); err != nil || n != 12 {
		t.Errorf("pruned %d events (%v), want 12 (6 allowed attempts × 2 counters)", n, err)
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
