package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

var meta = push.Meta{IP: "198.51.100.20"}

// code is the TOTP code of secret at the clock's time.
func code(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enrolled signs up email and turns its second factor on; it returns the
// account, the TOTP secret and the recovery codes.
func enrolled(t *testing.T, s *Service, clock *testclock.Clock, email string) (*push.User, string, []string) {
	t.Helper()
	ctx := context.Background()
	u, err := s.SignUp(ctx, email, "password one", "password one", push.Meta{IP: "203.0.113.1"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.BeginEnrolment(ctx, u, "Hush (hush.example)")
	if err != nil {
		t.Fatal(err)
	}
	changed, codes, err := s.ConfirmEnrolment(ctx, u, "password one", code(t, e.Secret, clock.Now()), meta)
	if err != nil {
		t.Fatal(err)
	}
	return changed, e.Secret, codes
}

// signIn runs the whole web sign-in: password, then code.
func signInWithCode(s *Service, email, password, c string, m push.Meta) (*push.User, bool, error) {
	u, err := s.SignIn(context.Background(), email, password, m)
	if err != nil {
		return nil, false, err
	}
	return s.FinishSignIn(context.Background(), s.StartSignInCode(u), c, m)
}

func TestTwoFactorEnrolment(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0.Add(10 * time.Second))
	s := newTestService(t, clock)
	ctx := context.Background()
	u, err := s.SignUp(ctx, "enrol@example.com", "password one", "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.BeginEnrolment(ctx, u, "Hush (hush.example)")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := url.Parse(e.URL)
	if err != nil || parsed.Scheme != "otpauth" || parsed.Host != "totp" || parsed.Query().Get("secret") != e.Secret ||
		parsed.Query().Get("issuer") != "Hush (hush.example)" || !strings.Contains(parsed.Path, "enrol@example.com") {
		t.Fatalf("enrolment URL %q", e.URL)
	}
	if len(e.Secret) != 32 {
		t.Errorf("secret %q: want 20 bytes in base32", e.Secret)
	}
	// Reopened later, the enrolment shows the same secret.
	if again, err := s.PendingEnrolment(ctx, u, "Hush (hush.example)"); err != nil || again == nil || again.Secret != e.Secret {
		t.Fatalf("PendingEnrolment = %+v, %v", again, err)
	}
	// The secret is sealed at rest.
	tf, err := s.store.TwoFactor(ctx, u.ID)
	if err != nil || strings.Contains(string(tf.Pending), e.Secret) {
		t.Fatalf("the pending secret is stored in clear: %v", err)
	}

	right := code(t, e.Secret, clock.Now())
	if _, _, err := s.ConfirmEnrolment(ctx, u, "wrong password", right, meta); push.ErrorCode(err) != push.CodeInvalid {
		t.Fatalf("confirm with a wrong password: %v", err)
	}
	if _, _, err := s.ConfirmEnrolment(ctx, u, "password one", "000000", meta); fieldOf(err) != "code" && right != "000000" {
		t.Fatalf("confirm with a wrong code: %v", err)
	}
	changed, codes, err := s.ConfirmEnrolment(ctx, u, "password one", right, meta)
	if err != nil {
		t.Fatal(err)
	}
	if !changed.HasTwoFactor() || changed.AuthEpoch == u.AuthEpoch {
		t.Errorf("after enrolment: %+v", changed)
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if !regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$`).MatchString(c) || seen[c] {
			t.Errorf("recovery code %q", c)
		}
		seen[c] = true
	}
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes", len(codes))
	}
	if n, _ := s.RecoveryCodesLeft(ctx, changed); n != 10 {
		t.Errorf("%d recovery codes left", n)
	}
	// The old session's epoch no longer signs in; a second enrolment is refused.
	if got, _ := s.SessionUser(ctx, u.ID, u.AuthEpoch); got != nil {
		t.Error("a session from before the second factor survived")
	}
	if _, err := s.BeginEnrolment(ctx, changed, "Hush"); push.ErrorCode(err) != push.CodeConflict {
		t.Errorf("second enrolment: %v", err)
	}
	// The code used to confirm is spent.
	if _, _, err := signInWithCode(s, "enrol@example.com", "password one", right, meta); !isMsg(err, MsgCodeUsed) {
		t.Fatalf("the enrolment's code signs in again: %v", err)
	}
}

func fieldOf(err error) string {
	var e *push.Error
	if errors.As(err, &e) {
		for f := range e.Fields {
			return f
		}
	}
	return ""
}

func isMsg(err error, msg string) bool {
	var e *push.Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Message == msg {
		return true
	}
	for _, m := range e.Fields {
		if len(m) > 0 && m[0] == msg {
			return true
		}
	}
	return false
}

// TestSignInWithCode: the code of now, or of the steps either side, signs
// in once; a code of a step not later than the last accepted one never;
// each recovery code once; the half-signed-in state lasts five minutes and
// ends with the account's auth epoch.
func TestSignInWithCode(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0.Add(5 * time.Second))
	s := newTestService(t, clock)
	ctx := context.Background()
	u, secret, codes := enrolled(t, s, clock, "code@example.com")

	clock.Advance(60 * time.Second) // two steps on
	if _, _, err := signInWithCode(s, u.Email, "password one", "", meta); fieldOf(err) != "code" {
		t.Fatalf("no code: %v", err)
	}
	next := code(t, secret, clock.Now().Add(30*time.Second))
	if got, recovery, err := signInWithCode(s, u.Email, "password one", next, meta); err != nil || got.ID != u.ID || recovery {
		t.Fatalf("the next step's code: %v", err)
	}
	// Now's code is of an earlier step than the one just used.
	if _, _, err := signInWithCode(s, u.Email, "password one", code(t, secret, clock.Now()), meta); !isMsg(err, MsgCodeUsed) {
		t.Fatalf("an earlier step's code: %v", err)
	}
	clock.Advance(60 * time.Second)
	now := code(t, secret, clock.Now())
	if _, _, err := signInWithCode(s, u.Email, "password one", " "+now[:3]+" "+now[3:]+" ", meta); err != nil {
		t.Fatalf("now's code, with spaces: %v", err)
	}
	if _, _, err := signInWithCode(s, u.Email, "password one", now, meta); !isMsg(err, MsgCodeUsed) {
		t.Fatalf("a replayed code: %v", err)
	}
	// Recovery codes, typed in capitals without dashes: once each.
	typed := strings.ToUpper(strings.ReplaceAll(codes[3], "-", ""))
	if _, recovery, err := signInWithCode(s, u.Email, "password one", typed, meta); err != nil || !recovery {
		t.Fatalf("a recovery code: %v, %v", recovery, err)
	}
	if _, _, err := signInWithCode(s, u.Email, "password one", codes[3], meta); fieldOf(err) != "code" {
		t.Fatalf("a spent recovery code: %v", err)
	}
	if n, _ := s.RecoveryCodesLeft(ctx, u); n != 9 {
		t.Errorf("%d recovery codes left, want 9", n)
	}

	// The half-signed-in state.
	signed, err := s.SignIn(ctx, u.Email, "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	p := s.StartSignInCode(signed)
	clock.Advance(SignInCodeTimeout + time.Second)
	if _, _, err := s.FinishSignIn(ctx, p, code(t, secret, clock.Now()), meta); !isMsg(err, MsgSignInExpired) {
		t.Fatalf("after the timeout: %v", err)
	}
	p = s.StartSignInCode(signed)
	if err := s.RevokeSessions(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.FinishSignIn(ctx, p, code(t, secret, clock.Now()), meta); !isMsg(err, MsgSignInExpired) {
		t.Fatalf("after the sessions were revoked: %v", err)
	}
	for _, forged := range []PendingSignIn{{}, {UserID: u.ID}, {UserID: u.ID, Epoch: "guess", Started: clock.Now()},
		{UserID: u.ID + 1, Epoch: signed.AuthEpoch, Started: clock.Now()}} {
		if _, _, err := s.FinishSignIn(ctx, forged, code(t, secret, clock.Now()), meta); !isMsg(err, MsgSignInExpired) {
			t.Errorf("forged state %+v: %v", forged, err)
		}
	}

	// Turning it off takes the password and a code.
	clock.Advance(30 * time.Second)
	u, _ = s.UserByID(ctx, u.ID)
	if err := s.DisableTwoFactor(ctx, u, "password one", "123456", meta); fieldOf(err) != "code" && code(t, secret, clock.Now()) != "123456" {
		t.Fatalf("disable with a wrong code: %v", err)
	}
	if err := s.DisableTwoFactor(ctx, u, "password two", code(t, secret, clock.Now()), meta); fieldOf(err) != "current_password" {
		t.Fatalf("disable with a wrong password: %v", err)
	}
	if err := s.DisableTwoFactor(ctx, u, "password one", codes[0], meta); err != nil {
		t.Fatalf("disable with a recovery code: %v", err)
	}
	if u, _ = s.UserByID(ctx, u.ID); u.HasTwoFactor() {
		t.Fatal("still on")
	}
}

// TestEnrolmentVoidedMidway: a password change or revoked sessions between
// showing the secret and confirming it void the enrolment; so does the
// account's deletion.
func TestEnrolmentVoidedMidway(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	s := newTestService(t, clock)
	ctx := context.Background()
	u, err := s.SignUp(ctx, "midway@example.com", "password one", "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.BeginEnrolment(ctx, u, "Hush")
	if err != nil {
		t.Fatal(err)
	}
	changed, err := s.ChangePassword(ctx, u, "password one", "password two", "password two", meta)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.PendingEnrolment(ctx, changed, "Hush"); err != nil || p != nil {
		t.Fatalf("the enrolment survived a password change: %+v, %v", p, err)
	}
	if _, _, err := s.ConfirmEnrolment(ctx, changed, "password two", code(t, e.Secret, clock.Now()), meta); !isMsg(err, MsgEnrolmentGone) {
		t.Fatalf("confirm after a password change: %v", err)
	}
	// With the old user and password (a request racing the change),
	// neither: the store checks the epoch in the same statement.
	if _, _, err := s.ConfirmEnrolment(ctx, u, "password one", code(t, e.Secret, clock.Now()), meta); !isMsg(err, MsgEnrolmentGone) {
		t.Fatalf("confirm under the old epoch: %v", err)
	}
	// Begun again, then the account is deleted.
	e, err = s.BeginEnrolment(ctx, changed, "Hush")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAccount(ctx, changed, "password two", meta); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ConfirmEnrolment(ctx, changed, "password two", code(t, e.Secret, clock.Now()), meta); err == nil {
		t.Fatal("a deleted account's enrolment was confirmed")
	}
	if got, err := s.UserByEmail(ctx, "midway@example.com"); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("deleted account: %+v, %v", got, err)
	}
}

// TestCodeGuessesReservedBeforeWork: concurrent wrong codes take their slot
// before they are checked; one client gets 5 a minute at an account, and
// an account 10 an hour from all clients together, then 30 a day; a right
// code gives its slot back.
func TestCodeGuessesReservedBeforeWork(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0.Add(5 * time.Second))
	s := newTestService(t, clock)
	ctx := context.Background()
	u, secret, codes := enrolled(t, s, clock, "guess@example.com")
	signed, err := s.SignIn(ctx, u.Email, "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	try := func(n int, ip func(int) string, guess func(int) string) (wrong, refused, ok int) {
		var w, r, o atomic.Int32
		var wg sync.WaitGroup
		p := s.StartSignInCode(signed)
		for i := range n {
			wg.Go(func() {
				_, _, err := s.FinishSignIn(ctx, p, guess(i), push.Meta{IP: ip(i)})
				switch {
				case err == nil:
					o.Add(1)
				case push.ErrorCode(err) == push.CodeInvalid:
					w.Add(1)
				case push.ErrorCode(err) == push.CodeTooMany:
					r.Add(1)
				default:
					t.Errorf("guess %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		return int(w.Load()), int(r.Load()), int(o.Load())
	}
	wrongCode := func(int) string {
		c := code(t, secret, clock.Now())
		return string([]byte{'0' + (c[0]-'0'+5)%10}) + c[1:] // never right
	}
	// 40 at once from one client: 5 checked.
	if w, r, _ := try(40, same("198.51.100.1"), wrongCode); w != 5 || r != 35 {
		t.Fatalf("one client, 40 at once: %d checked, %d refused; want 5 and 35", w, r)
	}
	// Recovery-code guesses count the same.
	if w, r, _ := try(10, same("198.51.100.1"), func(int) string { return "0000-0000-0000-0000" }); w != 0 || r != 10 {
		t.Fatalf("recovery guesses from a client at its limit: %d checked", w)
	}
	// 60 at once from 12 clients: the account takes 5 more this hour.
	if w, _, _ := try(60, func(i int) string { return fmt.Sprintf("198.51.100.%d", 100+i%12) }, wrongCode); w != 5 {
		t.Fatalf("12 clients: %d checked, want the 5 left of the account's hour", w)
	}
	// Now even the right code waits, from anywhere...
	if _, _, err := s.FinishSignIn(ctx, s.StartSignInCode(signed), codes[0], push.Meta{IP: "203.0.113.99"}); push.ErrorCode(err) != push.CodeTooMany {
		t.Fatalf("the right code past the account's limit: %v", err)
	}
	// ...an hour later it works and gives its slot back; the day's
	// ceiling holds after that.
	clock.Advance(time.Hour)
	if _, recovery, err := s.FinishSignIn(ctx, s.StartSignInCode(signed), codes[0], push.Meta{IP: "203.0.113.99"}); err != nil || !recovery {
		t.Fatalf("the right code an hour later: %v", err)
	}
	total := 10
	for hour := range 3 {
		w, _, _ := try(12, func(i int) string { return fmt.Sprintf("192.0.2.%d", 100+i) }, wrongCode)
		total += w
		if hour < 2 && w != 10 {
			t.Fatalf("hour %d: %d checked, want 10", hour, w)
		}
		clock.Advance(time.Hour)
	}
	if total != 30 {
		t.Fatalf("%d checked in a day, want 30", total)
	}
}

// TestRequireTwoFactor: with the setting on, an account without a second
// factor must enrol, and its API token is refused until it has; with one,
// the token works (it stays single-factor).
func TestRequireTwoFactor(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	keys, _ := secure.NewKeyring(testKey)
	s := New(Deps{Store: st, Keys: keys, Argon: secure.NewArgon(1, 64, 1, 0), Now: clock.Now},
		Limits{Settings: push.DefaultSettings(), RequireTwoFactor: true})
	ctx := context.Background()
	plain, err := s.SignUp(ctx, "plain@example.com", "password one", "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.ReplaceToken(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	if !s.MustEnrol(plain) {
		t.Error("an account without a second factor need not enrol")
	}
	if _, err := s.UserByToken(ctx, tok); !isMsg(err, MsgTwoFactorRequired) || push.ErrorCode(err) != push.CodeForbidden {
		t.Fatalf("token of an account without a second factor: %v", err)
	}
	u, _, _ := enrolled(t, s, clock, "second@example.com")
	if s.MustEnrol(u) {
		t.Error("an enrolled account must enrol")
	}
	tok, _ = s.ReplaceToken(ctx, u)
	if got, err := s.UserByToken(ctx, tok); err != nil || got.ID != u.ID {
		t.Fatalf("token of an enrolled account: %v", err)
	}
}

// TestTOTPSecretRotates: key rotation re-seals the TOTP secrets, after
// which the new key alone checks codes.
func TestTOTPSecretRotates(t *testing.T) {
	t.Parallel()
	clock := testclock.New(t0)
	st := openTestStore(t, testdb.URL(t))
	s := newServiceOn(t, st, clock)
	u, secret, _ := enrolled(t, s, clock, "rotate@example.com")
	ctx := context.Background()
	// An enrolment under way, of another account, is re-sealed too.
	other, err := s.SignUp(ctx, "other@example.com", "password one", "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.BeginEnrolment(ctx, other, "Hush")
	if err != nil {
		t.Fatal(err)
	}
	newKey := make([]byte, 32)
	newKey[0] = 9
	keys, err := secure.NewKeyring(newKey, testKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.Reseal(ctx, func(tokenKey string, f store.SealedField, sealed []byte) ([]byte, bool, error) {
		return Reseal(keys, tokenKey, string(f), sealed)
	})
	if err != nil || n != 2 {
		t.Fatalf("Reseal = %d, %v; want 2", n, err)
	}
	onlyNew, _ := secure.NewKeyring(newKey)
	s2 := New(Deps{Store: st, Keys: onlyNew, Argon: secure.NewArgon(1, 64, 1, 0), Now: clock.Now}, Limits{Settings: push.DefaultSettings()})
	clock.Advance(30 * time.Second)
	if _, _, err := signInWithCode(s2, u.Email, "password one", code(t, secret, clock.Now()), meta); err != nil {
		t.Fatalf("sign in after rotation: %v", err)
	}
	if p, err := s2.PendingEnrolment(ctx, other, "Hush"); err != nil || p == nil || p.Secret != pending.Secret {
		t.Fatalf("pending enrolment after rotation: %+v, %v", p, err)
	}
}
