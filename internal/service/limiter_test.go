package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/testclock"
)

// guessAll sends n retrievals with passphrase pass at once, the i-th from
// ip(i), and counts how many were evaluated (a wrong passphrase: 401), how
// many were refused before any work (429), and how many opened the push.
func guessAll(t *testing.T, s *Service, token string, n int, ip func(int) string, pass func(int) string) (wrong, refused, opened int) {
	t.Helper()
	var w, r, o atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := s.Retrieve(context.Background(), token, pass(i), nil, push.Meta{IP: ip(i)})
			switch {
			case errors.Is(err, ErrPassphrase):
				w.Add(1)
			case push.ErrorCode(err) == push.CodeTooMany:
				r.Add(1)
			case err == nil:
				o.Add(1)
			default:
				t.Errorf("guess %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	return int(w.Load()), int(r.Load()), int(o.Load())
}

func same(v string) func(int) string { return func(int) string { return v } }

// TestPassphraseGuessesReservedBeforeWork: concurrent guesses take their
// slot before Argon2id runs, so no more are evaluated than the limits
// allow, and a right guess inside the burst is refused like any other.
func TestPassphraseGuessesReservedBeforeWork(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	s := newTestService(t, clock)
	tok := create(t, s, nil, push.CreateRequest{Payload: "s3cret", Passphrase: "right", ExpireAfterViews: ptr(100)})

	// 60 at once from one client, one of them right: 5 evaluated.
	wrong, refused, opened := guessAll(t, s, tok, 60, same("198.51.100.1"), func(i int) string {
		if i == 30 {
			return "right"
		}
		return "wrong"
	})
	// Failures are limited to 5. The right guess, if it got a slot, gave it
	// back, and a wrong one may then have taken it — or all others were
	// refused by then: 4 or 5 failures with it, 5 without.
	if wrong > guessPerClient || wrong < guessPerClient-opened || opened > 1 || wrong+opened+refused != 60 {
		t.Fatalf("one client, 60 at once: %d wrong and %d opened evaluated, %d refused; want %d failures",
			wrong, opened, refused, guessPerClient)
	}

	// 4 clients × 50 at once: the whole push takes 20 in the hour.
	clock.Advance(2 * time.Minute)
	tok2 := create(t, s, nil, push.CreateRequest{Payload: "s3cret", Passphrase: "right"})
	wrong, refused, _ = guessAll(t, s, tok2, 200, func(i int) string { return fmt.Sprintf("203.0.113.%d", i%4) }, same("wrong"))
	if wrong != 4*guessPerClient || refused != 200-4*guessPerClient {
		t.Fatalf("4 clients × 50: %d evaluated, %d refused; want %d evaluated", wrong, refused, 4*guessPerClient)
	}
	clock.Advance(time.Minute + time.Second)
	wrong, _, _ = guessAll(t, s, tok2, 50, func(i int) string { return fmt.Sprintf("203.0.113.%d", 10+i%4) }, same("wrong"))
	if wrong != guessPerPush-4*guessPerClient {
		t.Fatalf("second minute: %d evaluated, want the %d left under the push's ceiling", wrong, guessPerPush-4*guessPerClient)
	}
	_, err := s.Retrieve(context.Background(), tok2, "right", nil, push.Meta{IP: "192.0.2.99"})
	var e *push.Error
	if !errors.As(err, &e) || e.Code != push.CodeTooMany {
		t.Fatalf("a fresh client after the push's ceiling: %v, want 429", err)
	}
	// L3: message and Retry-After agree about the hour.
	if e.RetryAfter < 57*time.Minute || e.Message != "Too many passphrase attempts. Please try again in 59 minutes." {
		t.Errorf("whole-push cap: retry after %v, message %q", e.RetryAfter, e.Message)
	}
	// A client's own minute reads as Password Pusher's message.
	clock.Advance(time.Hour)
	tok3 := create(t, s, nil, push.CreateRequest{Payload: "x", Passphrase: "right"})
	guessAll(t, s, tok3, guessPerClient, same("198.51.100.7"), same("wrong"))
	_, err = s.Retrieve(context.Background(), tok3, "wrong", nil, push.Meta{IP: "198.51.100.7"})
	if !errors.As(err, &e) || e.Message != MsgTooManyGuess || e.RetryAfter > time.Minute {
		t.Errorf("per-client limit: %v", err)
	}
}

// TestRightPassphraseReleasesItsSlot: a right passphrase does not count.
func TestRightPassphraseReleasesItsSlot(t *testing.T) {
	t.Parallel()
	s := newTestService(t, testclock.New(t0))
	tok := create(t, s, nil, push.CreateRequest{Payload: "s3cret", Passphrase: "right", ExpireAfterViews: ptr(100)})
	for i := range 3 * guessPerClient {
		if _, err := s.Retrieve(context.Background(), tok, "right", nil, push.Meta{IP: "198.51.100.1"}); err != nil {
			t.Fatalf("right passphrase %d: %v", i, err)
		}
	}
}

// TestIPv6ClientsByNetwork: an IPv6 client is limited by its /64, so a host
// cannot take a fresh allowance with every address of its network.
func TestIPv6ClientsByNetwork(t *testing.T) {
	t.Parallel()
	s := newTestService(t, testclock.New(t0))
	tok := create(t, s, nil, push.CreateRequest{Payload: "s3cret", Passphrase: "right", ExpireAfterViews: ptr(100)})
	wrong, refused, _ := guessAll(t, s, tok, 12, func(i int) string { return fmt.Sprintf("2001:db8:1:2::%x", i+1) }, same("wrong"))
	if wrong != guessPerClient || refused != 12-guessPerClient {
		t.Fatalf("12 addresses of one /64: %d evaluated; want %d", wrong, guessPerClient)
	}
	if _, err := s.Retrieve(context.Background(), tok, "wrong", nil, push.Meta{IP: "2001:db8:1:3::1"}); !errors.Is(err, ErrPassphrase) {
		t.Fatalf("another /64: %v, want its own allowance", err)
	}
}

// TestMissingPassphraseIsLoggedOncePerMinute: retrievals without the
// passphrase write one audit entry per client and minute, however many.
func TestMissingPassphraseIsLoggedOncePerMinute(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	s := newTestService(t, clock)
	owner, err := s.store.CreateUser(context.Background(), "o@example.com", "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	tok := create(t, s, owner, push.CreateRequest{Payload: "s3cret", Passphrase: "right"})
	for range 50 {
		if _, err := s.Retrieve(context.Background(), tok, "", nil, push.Meta{IP: "198.51.100.1"}); !errors.Is(err, ErrPassphrase) {
			t.Fatal(err)
		}
	}
	clock.Advance(61 * time.Second)
	s.Retrieve(context.Background(), tok, "", nil, push.Meta{IP: "198.51.100.1"})
	_, events, err := s.Audit(context.Background(), tok, owner, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Kind == push.EventFailedPassphrase {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d failed_passphrase entries for 51 retrievals over two minutes, want 2", n)
	}
}

// TestSignInLimits: one client gets 5 evaluated tries at one account however
// many it sends at once; other clients still get theirs (a stranger cannot
// lock the owner out), and a right password does not count.
func TestSignInLimits(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	s := newTestService(t, clock)
	ctx := context.Background()
	if _, err := s.SignUp(ctx, "a@example.com", "correct horse", "correct horse", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	var wrong, refused atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			_, err := s.SignIn(ctx, "a@example.com", "wrong password", push.Meta{IP: "198.51.100.1"})
			switch push.ErrorCode(err) {
			case push.CodeUnauthenticated:
				wrong.Add(1)
			case push.CodeTooMany:
				refused.Add(1)
			default:
				t.Errorf("sign-in: %v", err)
			}
		})
	}
	wg.Wait()
	if wrong.Load() != signInPerClientEmail {
		t.Fatalf("50 concurrent sign-ins: %d evaluated, %d refused; want %d evaluated", wrong.Load(), refused.Load(), signInPerClientEmail)
	}
	// The owner, from elsewhere, still signs in; repeatedly, since a right
	// password gives its slot back.
	for i := range 2 * signInPerClientEmail {
		if _, err := s.SignIn(ctx, "A@example.com ", "correct horse", push.Meta{IP: "192.0.2.50"}); err != nil {
			t.Fatalf("owner's sign-in %d: %v", i, err)
		}
	}
	// Many clients together reach the account's ceiling.
	for i := 0; i < signInPerEmail; i++ {
		s.SignIn(ctx, "a@example.com", "wrong", push.Meta{IP: fmt.Sprintf("10.1.%d.%d", i/200, i%200)})
	}
	if _, err := s.SignIn(ctx, "a@example.com", "correct horse", push.Meta{IP: "192.0.2.51"}); push.ErrorCode(err) != push.CodeTooMany {
		t.Fatalf("after %d failures from many clients: %v, want the account's ceiling", signInPerEmail, err)
	}
	// An unknown account answers like a wrong password.
	if _, err := s.SignIn(ctx, "nobody@example.com", "x", push.Meta{IP: "192.0.2.60"}); push.ErrorCode(err) != push.CodeUnauthenticated {
		t.Fatalf("unknown account: %v", err)
	}
}

// TestSignUpLimit: a client creates at most 5 accounts an hour, taken
// addresses included, so the form cannot sweep for addresses.
func TestSignUpLimit(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	s := newTestService(t, clock)
	ctx := context.Background()
	m := push.Meta{IP: "198.51.100.9"}
	for i := range signUpPerClient {
		if _, err := s.SignUp(ctx, fmt.Sprintf("u%d@example.com", i), "password1", "password1", m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SignUp(ctx, "u0@example.com", "password1", "password1", m); push.ErrorCode(err) != push.CodeTooMany {
		t.Fatalf("6th sign-up (a taken address): %v, want 429 before any answer about the address", err)
	}
	if _, err := s.SignUp(ctx, "bad", "password1", "password1", m); push.ErrorCode(err) != push.CodeInvalid {
		t.Fatalf("invalid address: %v, want 422 (checked first, costs nothing)", err)
	}
	clock.Advance(time.Hour + time.Second)
	if _, err := s.SignUp(ctx, "u0@example.com", "password1", "password1", m); push.ErrorCode(err) != push.CodeInvalid {
		t.Fatalf("after the hour, a taken address: %v", err)
	}
}

// TestRetryIn checks the words of a wait.
func TestRetryIn(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "in a minute", time.Minute: "in a minute", time.Minute + time.Second: "in 2 minutes",
		59*time.Minute + 59*time.Second: "in 60 minutes",
	} {
		if got := retryIn(d); got != want {
			t.Errorf("retryIn(%v) = %q, want %q", d, got, want)
		}
	}
}
