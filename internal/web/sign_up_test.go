package web

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/service"
)

// confirmAddresses makes new accounts confirm their address.
func confirmAddresses(_ *Options, l *service.Limits) { l.Accounts.ConfirmEmail = true }

// signUpAs posts the sign-up form for email from a fresh client; hdr are
// extra header name/value pairs.
func (h *harness) signUpAs(email, pw string, hdr ...string) resp {
	h.t.Helper()
	return h.client().post("/users/sign_up", url.Values{"email": {email}, "password": {pw}, "password_confirmation": {pw}}, hdr...)
}

// sameAnswer fails the test unless a and b are the same answer byte for
// byte once each one's address is replaced, headers included but for the
// date.
func sameAnswer(t *testing.T, a resp, addrA string, b resp, addrB string) {
	t.Helper()
	if a.status != b.status {
		t.Errorf("status %d and %d", a.status, b.status)
	}
	for name := range a.header {
		if name != "Date" && !slices.Equal(a.header.Values(name), b.header.Values(name)) {
			t.Errorf("header %s: %q and %q", name, a.header.Values(name), b.header.Values(name))
		}
	}
	if len(a.header) != len(b.header) {
		t.Errorf("headers %v and %v", a.header, b.header)
	}
	bodyA, bodyB := strings.ReplaceAll(a.body, addrA, "ADDRESS"), strings.ReplaceAll(b.body, addrB, "ADDRESS")
	if bodyA != bodyB {
		t.Errorf("the pages differ beyond the address:\n%s\n----\n%s", bodyA, bodyB)
	}
}

// TestSignUpTakenAddressLooksFree: where new accounts confirm their
// address, the sign-up form answers an address that has an account as it
// answers a free one, byte for byte but for the address. The owner is
// emailed in the account's language, with links that open the sign-in and
// reset pages; the account, its session and its password stay, and the
// stranger's password signs in to nothing (docs/decisions.md, D63).
func TestSignUpTakenAddressLooksFree(t *testing.T) {
	h, mp, deliver := newMailHarnessWith(t, confirmAddresses)
	ctx := context.Background()
	owner, err := h.svc.CreateUser(ctx, "owner@example.com", "owner password")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.svc.SetLanguage(ctx, owner, "sv"); err != nil {
		t.Fatal(err)
	}
	session := h.client()
	session.post("/users/sign_in", url.Values{"email": {"owner@example.com"}, "password": {"owner password"}}).expect(t, http.StatusSeeOther)

	taken := h.signUpAs("owner@example.com", "stranger password")
	free := h.signUpAs("fresh@example.com", "stranger password")
	taken.expect(t, http.StatusOK)
	taken.has(t, "owner@example.com", "Confirm your email address")
	sameAnswer(t, taken, "owner@example.com", free, "fresh@example.com")

	deliver()
	notice := mp.Wait(t, "owner@example.com", 1, 5*time.Second)[0]
	if notice.Subject != "Någon försökte registrera sig på Hush med din adress" {
		t.Errorf("the owner's message is not in the account's language: %q", notice.Subject)
	}
	links := map[string]string{"/sv/users/sign_in": `name="password"`, "/sv/users/password/new": `name="email"`}
	for _, f := range strings.Fields(notice.Text) {
		path := strings.TrimPrefix(f, h.url)
		want, ok := links[path]
		if !ok || path == f {
			continue
		}
		delete(links, path)
		r := h.client().get(path)
		r.expect(t, http.StatusOK)
		r.has(t, `lang="sv"`, want)
	}
	if len(links) > 0 {
		t.Errorf("the owner's message lacks the links %v:\n%s", links, notice.Text)
	}

	session.get("/users/edit").expect(t, http.StatusOK)
	signIn := func(pw string) resp {
		return h.client().post("/users/sign_in", url.Values{"email": {"owner@example.com"}, "password": {pw}})
	}
	if r := signIn("owner password"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard" {
		t.Errorf("the owner's password: %d %q", r.status, r.header.Get("Location"))
	}
	signIn("stranger password").expect(t, http.StatusUnauthorized)
}

// TestSignInAfterSignUpLooksTheSame: where new accounts confirm their
// address, signing in with the address and password a sign-up was given
// answers the same page whether the address was free or taken, a hint to
// confirm the address included (docs/decisions.md, D63).
func TestSignInAfterSignUpLooksTheSame(t *testing.T) {
	h, _, _ := newMailHarnessWith(t, confirmAddresses)
	if _, err := h.svc.CreateUser(context.Background(), "owner@example.com", "owner password"); err != nil {
		t.Fatal(err)
	}
	signIn := func(email string) resp {
		h.signUpAs(email, "stranger password").expect(t, http.StatusOK)
		return h.client().post("/users/sign_in", url.Values{"email": {email}, "password": {"stranger password"}})
	}
	taken, free := signIn("owner@example.com"), signIn("fresh@example.com")
	taken.expect(t, http.StatusUnauthorized)
	taken.has(t, "Invalid email or password. If you have just signed up, confirm your email address first")
	sameAnswer(t, taken, "owner@example.com", free, "fresh@example.com")
}

// TestSignUpMailBoundFromManyClients: sign-ups with one address sent at
// once from many client addresses (behind a trusted proxy) email its owner
// at most 3 times an hour; the others are refused (429).
func TestSignUpMailBoundFromManyClients(t *testing.T) {
	h, mp, deliver := newMailHarnessWith(t, func(o *Options, l *service.Limits) {
		confirmAddresses(o, l)
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	if _, err := h.svc.CreateUser(context.Background(), "owner@example.com", "owner password"); err != nil {
		t.Fatal(err)
	}
	const tries, bound = 7, 3
	statuses := make([]int, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			statuses[i] = h.signUpAs("owner@example.com", "stranger password", "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1)).status
		})
	}
	wg.Wait()
	slices.Sort(statuses)
	want := append(slices.Repeat([]int{http.StatusOK}, bound), slices.Repeat([]int{http.StatusTooManyRequests}, tries-bound)...)
	if !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	deliver()
	mp.Wait(t, "owner@example.com", bound, 5*time.Second)
	if n := mp.Count(t); n != bound {
		t.Errorf("%d messages, want %d", n, bound)
	}
}

// TestSignUpTakenWithoutEmail: without email a new account is signed in at
// once, so the form still says that an address is taken.
func TestSignUpTakenWithoutEmail(t *testing.T) {
	h := newHarness(t, nil)
	h.signUp("owner@example.com", "owner password")
	r := h.signUpAs("owner@example.com", "stranger password")
	r.expect(t, http.StatusUnprocessableEntity)
	r.has(t, "An account with this email address already exists.")
}
