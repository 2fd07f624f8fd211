package service

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/mailtest"
	"hush/internal/push"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

// confirming makes new accounts confirm their address.
func confirming(l *Limits) { l.Accounts.ConfirmEmail = true }

// confirmToken is the token of the confirmation link in a message's text;
// "" when it has none.
func confirmToken(t *testing.T, m mailtest.Message) string {
	t.Helper()
	return tokenOf(t, m, ConfirmPath, ConfirmTokenParam)
}

// tokenOf is the param of the first link to path in a message's text; ""
// when it has none.
func tokenOf(t *testing.T, m mailtest.Message, path, param string) string {
	t.Helper()
	for _, f := range strings.Fields(m.Text) {
		if strings.Contains(f, path+"?") {
			u, err := url.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			return u.Query().Get(param)
		}
	}
	return ""
}

// TestSignUpTakenAddress: where new accounts confirm their address, a
// sign-up with an address that has an account answers as one with a free
// address does, changes nothing of the account, and emails its owner, in
// the owner's language, that someone tried, with the links to sign in and
// to ask for a reset; the stranger's password signs in to nothing
// (docs/decisions.md, D63).
func TestSignUpTakenAddress(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	svc := newMailService(t, openTestStore(t, testdb.URL(t)), testclock.New(t0), mp, &log, confirming)
	ctx := context.Background()
	owner, err := svc.CreateUser(ctx, "owner@example.com", "owner password")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SetLanguage(ctx, owner, "de"); err != nil {
		t.Fatal(err)
	}
	stranger := push.Meta{IP: "198.51.100.7"}
	taken, err := svc.SignUp(ctx, " Owner@Example.com", "stranger password", "stranger password", stranger)
	if err != nil || taken.Email != "owner@example.com" || !taken.ConfirmPending {
		t.Fatalf("sign-up with a taken address: %+v %v; want a new account's answer", taken, err)
	}
	free, err := svc.SignUp(ctx, "fresh@example.com", "fresh password", "fresh password", stranger)
	if err != nil || free.Email != "fresh@example.com" || !free.ConfirmPending {
		t.Fatalf("sign-up with a free address: %+v %v", free, err)
	}
	deliverAll(t, svc)
	if got := log.String(); got != "[signup_taken:sent confirm:sent]" {
		t.Errorf("deliveries %s", got)
	}

	checkTakenNotice(t, mp.Wait(t, "owner@example.com", 1, 5*time.Second)[0])
	if tok := confirmToken(t, mp.Wait(t, "fresh@example.com", 1, 5*time.Second)[0]); tok == "" {
		t.Error("the free address got no confirmation link")
	}
	checkAccountKept(t, svc, owner, "owner password", "stranger password")
}

// checkTakenNotice checks the German message to owner@example.com of a
// sign-up with its address: it says what happened and links the sign-in
// and reset pages under the language's prefix, and nothing that changes
// the account.
func checkTakenNotice(t *testing.T, notice mailtest.Message) {
	t.Helper()
	if notice.Subject != "Jemand wollte sich mit Ihrer Adresse bei Hush registrieren" {
		t.Errorf("the owner's message is not in the account's language: %q", notice.Subject)
	}
	for _, want := range []string{"https://hush.example/de/users/sign_in", "https://hush.example/de/users/password/new",
		"owner@example.com", "ein Hush-Konto anzulegen"} {
		if !strings.Contains(notice.Text, want) || !strings.Contains(notice.HTML, want) {
			t.Errorf("the owner's message lacks %q:\n%s", want, notice.Text)
		}
	}
	if tok := confirmToken(t, notice); tok != "" || strings.Contains(notice.Text, ResetTokenParam) {
		t.Errorf("the owner's message carries a link that changes the account:\n%s", notice.Text)
	}
}

// checkAccountKept checks that before, a confirmed account, is as it was:
// its password, its sessions and its confirmation; password signs in and
// stranger's does not.
func checkAccountKept(t *testing.T, svc *Service, before *push.User, password, stranger string) {
	t.Helper()
	ctx := context.Background()
	after, err := svc.UserByEmail(ctx, before.Email)
	if err != nil || after.PasswordHash != before.PasswordHash || after.AuthEpoch != before.AuthEpoch || after.ConfirmPending {
		t.Fatalf("the account changed: %+v %v", after, err)
	}
	if u, err := svc.SessionUser(ctx, before.ID, before.AuthEpoch); u == nil || err != nil {
		t.Errorf("the owner's sessions ended: %v", err)
	}
	if _, err := svc.SignIn(ctx, before.Email, password, push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Errorf("the owner's password: %v", err)
	}
	if _, err := svc.SignIn(ctx, before.Email, stranger, push.Meta{IP: "192.0.2.1"}); push.ErrorCode(err) != push.CodeUnauthenticated {
		t.Errorf("the stranger's password: %v, want it refused", err)
	}
}

// TestSignUpAwaitingConfirmation: a second sign-up with the address of an
// account that still awaits confirmation sends that account's
// confirmation link again, replacing the first, and leaves its password
// as the first sign-up set it (docs/decisions.md, D63).
func TestSignUpAwaitingConfirmation(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	svc := newMailService(t, openTestStore(t, testdb.URL(t)), testclock.New(t0), mp, &log, confirming)
	ctx := context.Background()
	if _, err := svc.SignUp(ctx, "pending@example.com", "first password", "first password", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	deliverAll(t, svc)
	first := confirmToken(t, mp.Wait(t, "pending@example.com", 1, 5*time.Second)[0])
	again, err := svc.SignUp(ctx, "pending@example.com", "second password", "second password", push.Meta{IP: "198.51.100.7"})
	if err != nil || !again.ConfirmPending {
		t.Fatalf("the second sign-up: %+v %v", again, err)
	}
	deliverAll(t, svc)
	msgs := mp.Wait(t, "pending@example.com", 2, 5*time.Second)
	second := confirmToken(t, msgs[1])
	if first == "" || second == "" || second == first || msgs[1].Subject != "Confirm your email address for Hush" {
		t.Fatalf("the second message (%q) brings no new confirmation link:\n%s", msgs[1].Subject, msgs[1].Text)
	}
	if _, err := svc.ConfirmAccount(ctx, first, "first password", push.Meta{IP: "192.0.2.1"}); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("the first link still works: %v", err)
	}
	if _, err := svc.ConfirmAccount(ctx, second, "second password", push.Meta{IP: "198.51.100.7"}); push.ErrorCode(err) != push.CodeInvalid {
		t.Errorf("the link confirmed with the second sign-up's password: %v", err)
	}
	if _, err := svc.ConfirmAccount(ctx, second, "first password", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignIn(ctx, "pending@example.com", "first password", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Errorf("the first sign-up's password: %v", err)
	}
	if _, err := svc.SignIn(ctx, "pending@example.com", "second password", push.Meta{IP: "192.0.2.1"}); push.ErrorCode(err) != push.CodeUnauthenticated {
		t.Errorf("the second sign-up's password: %v, want it refused", err)
	}
}

// TestSignUpMailBound: sign-ups with one address from many clients at once
// queue at most signUpMailPerEmail messages an hour for it; the rest are
// refused before any work. A free address's first sign-up counts as a
// taken one's does, so the refusal tells nothing about accounts.
func TestSignUpMailBound(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	clock := testclock.New(t0)
	svc := newMailService(t, openTestStore(t, testdb.URL(t)), clock, mp, &log, confirming)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "owner@example.com", "owner password"); err != nil {
		t.Fatal(err)
	}
	const tries = 8
	errs := make([]error, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			_, errs[i] = svc.SignUp(ctx, "owner@example.com", "stranger password", "stranger password",
				push.Meta{IP: fmt.Sprintf("203.0.113.%d", i+1)})
		})
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range errs {
		switch push.ErrorCode(err) {
		case "":
			ok++
		case push.CodeTooMany:
			refused++
		default:
			t.Errorf("sign-up: %v", err)
		}
	}
	if ok != signUpMailPerEmail || refused != tries-signUpMailPerEmail {
		t.Errorf("%d sign-ups answered, %d refused; want %d and %d", ok, refused, signUpMailPerEmail, tries-signUpMailPerEmail)
	}
	deliverAll(t, svc)
	if got, want := log.String(), "["+strings.Repeat("signup_taken:sent ", signUpMailPerEmail-1)+"signup_taken:sent]"; got != want {
		t.Errorf("deliveries %s, want %s", got, want)
	}
	if n := len(mp.Wait(t, "owner@example.com", signUpMailPerEmail, 5*time.Second)); n != signUpMailPerEmail {
		t.Errorf("%d messages for the owner, want %d", n, signUpMailPerEmail)
	}

	for i := range signUpMailPerEmail {
		if _, err := svc.SignUp(ctx, "fresh@example.com", "fresh password", "fresh password", push.Meta{IP: fmt.Sprintf("192.0.2.%d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.SignUp(ctx, "fresh@example.com", "fresh password", "fresh password", push.Meta{IP: "192.0.2.99"}); push.ErrorCode(err) != push.CodeTooMany {
		t.Errorf("a sign-up past the bound of a once free address: %v", err)
	}
	clock.Advance(mailWindow)
	if _, err := svc.SignUp(ctx, "owner@example.com", "stranger password", "stranger password", push.Meta{IP: "192.0.2.99"}); err != nil {
		t.Errorf("a sign-up an hour later: %v", err)
	}
}

// TestSignUpTakenSaidWithoutConfirmation: where new accounts do not confirm
// their address (no email, or email without confirmation), a new account
// is signed in at once, so a taken address is still said to be taken
// (docs/decisions.md, D63).
func TestSignUpTakenSaidWithoutConfirmation(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	ctx := context.Background()
	for name, svc := range map[string]*Service{
		"no email":             newTestService(t, testclock.New(t0)),
		"email, no confirming": newMailService(t, openTestStore(t, testdb.URL(t)), testclock.New(t0), mp, &log),
	} {
		if _, err := svc.CreateUser(ctx, "owner@example.com", "owner password"); err != nil {
			t.Fatal(err)
		}
		_, err := svc.SignUp(ctx, "owner@example.com", "stranger password", "stranger password", push.Meta{IP: "198.51.100.7"})
		if e, ok := err.(*push.Error); !ok || e.Code != push.CodeInvalid || e.Fields["email"][0] != MsgEmailTaken {
			t.Errorf("%s: %v, want %q", name, err, MsgEmailTaken)
		}
		deliverAll(t, svc)
	}
	if got := log.String(); got != "[]" {
		t.Errorf("deliveries %s, want none", got)
	}
}

// TestSignInAwaitingConfirmationLooksWrong: the right password of an
// account that awaits confirmation is refused as a wrong password is, with
// the same message and under the same count, so that whoever signed up
// with an address cannot learn from signing in whether it was free
// (docs/decisions.md, D63).
func TestSignInAwaitingConfirmationLooksWrong(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	svc := newMailService(t, openTestStore(t, testdb.URL(t)), testclock.New(t0), mp, &log, confirming)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "owner@example.com", "owner password"); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"owner@example.com", "fresh@example.com"} {
		if _, err := svc.SignUp(ctx, email, "stranger password", "stranger password", push.Meta{IP: "198.51.100.7"}); err != nil {
			t.Fatal(err)
		}
	}
	signIn := func(email string) string {
		_, err := svc.SignIn(ctx, email, "stranger password", push.Meta{IP: "198.51.100.7"})
		return fmt.Sprint(err)
	}
	refused := fmt.Sprint(&push.Error{Code: push.CodeUnauthenticated, Message: MsgBadOrUnconfirmed})
	for i := range signInPerClientEmail {
		if taken, free := signIn("owner@example.com"), signIn("fresh@example.com"); taken != refused || free != taken {
			t.Fatalf("try %d: %q on the taken address, %q on the one that was free; want %q", i+1, taken, free, refused)
		}
	}
	taken, free := signIn("owner@example.com"), signIn("fresh@example.com")
	if !strings.HasPrefix(taken, string(push.CodeTooMany)) || free != taken {
		t.Errorf("past the limit: %q on the taken address, %q on the one that was free; want the same refusal as too many", taken, free)
	}
}

// TestConfirmationTakesTheSignUpPassword: a stranger who signs up first
// with someone's address keeps no way in. The owner's own sign-up gets the
// link again, but the link confirms only with the password of the sign-up
// that made the account, which the owner does not know; the owner's reset
// sets their password and confirms the address, and the stranger's
// password then signs in to nothing (docs/decisions.md, D68).
func TestConfirmationTakesTheSignUpPassword(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	svc := newMailService(t, openTestStore(t, testdb.URL(t)), testclock.New(t0), mp, &log, confirming)
	ctx := context.Background()
	stranger, owner := push.Meta{IP: "203.0.113.9"}, push.Meta{IP: "192.0.2.1"}
	if _, err := svc.SignUp(ctx, "owner@example.com", "stranger password", "stranger password", stranger); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignUp(ctx, "owner@example.com", "owner password", "owner password", owner); err != nil {
		t.Fatal(err)
	}
	deliverAll(t, svc)
	link := confirmToken(t, mp.Wait(t, "owner@example.com", 2, 5*time.Second)[1])
	_, err := svc.ConfirmAccount(ctx, link, "owner password", owner)
	if push.ErrorCode(err) != push.CodeInvalid || !strings.Contains(err.Error(), MsgConfirmPassword) {
		t.Fatalf("the owner's password confirmed the stranger's account: %v", err)
	}
	if _, err := svc.ConfirmAccount(ctx, link, "", owner); push.ErrorCode(err) != push.CodeInvalid {
		t.Fatalf("no password confirmed the account: %v", err)
	}
	if u, _ := svc.UserByEmail(ctx, "owner@example.com"); !u.ConfirmPending {
		t.Fatal("the account was confirmed by a refused confirmation")
	}
	if err := svc.RequestPasswordReset(ctx, "owner@example.com", "", owner); err != nil {
		t.Fatal(err)
	}
	deliverAll(t, svc)
	reset := tokenOf(t, mp.Wait(t, "owner@example.com", 3, 5*time.Second)[2], ResetPath, ResetTokenParam)
	if _, err := svc.ResetPassword(ctx, reset, "owner's own password", "owner's own password"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignIn(ctx, "owner@example.com", "owner's own password", owner); err != nil {
		t.Errorf("the owner's new password: %v", err)
	}
	if _, err := svc.SignIn(ctx, "owner@example.com", "stranger password", stranger); push.ErrorCode(err) != push.CodeUnauthenticated {
		t.Errorf("the stranger's password: %v, want it refused", err)
	}
	if _, err := svc.ConfirmAccount(ctx, link, "owner's own password", owner); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("the confirmation link outlived the reset: %v", err)
	}
}

// TestConfirmationGuessesAreCounted: passwords tried at a confirmation
// link, from many clients at once, take the address's sign-in slots as
// wrong sign-ins do; past them the right password is refused too, and the
// account stays unconfirmed.
func TestConfirmationGuessesAreCounted(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{})
	var log deliveryLog
	svc := newMailService(t, openTestStore(t, testdb.URL(t)), testclock.New(t0), mp, &log, confirming)
	ctx := context.Background()
	if _, err := svc.SignUp(ctx, "guess@example.com", "right password", "right password", push.Meta{IP: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	deliverAll(t, svc)
	link := confirmToken(t, mp.Wait(t, "guess@example.com", 1, 5*time.Second)[0])
	const tries = signInPerEmail + 10
	codes := make([]push.Code, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			_, err := svc.ConfirmAccount(ctx, link, fmt.Sprintf("guess %d", i), push.Meta{IP: fmt.Sprintf("198.51.%d.%d", i/200, i%200+1)})
			codes[i] = push.ErrorCode(err)
		})
	}
	wg.Wait()
	count := map[push.Code]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[push.CodeInvalid] != signInPerEmail || count[push.CodeTooMany] != tries-signInPerEmail {
		t.Fatalf("outcomes %v: want %d wrong passwords and the rest refused", count, signInPerEmail)
	}
	if _, err := svc.ConfirmAccount(ctx, link, "right password", push.Meta{IP: "192.0.2.200"}); push.ErrorCode(err) != push.CodeTooMany {
		t.Errorf("the right password after the address's slots: %v, want it refused", err)
	}
	if u, _ := svc.UserByEmail(ctx, "guess@example.com"); !u.ConfirmPending {
		t.Error("the account was confirmed")
	}
}
