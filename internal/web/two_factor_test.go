package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"hush/internal/service"
)

// totpCode is the code of secret at the harness's clock.
func (h *harness) totpCode(secret string) string {
	h.t.Helper()
	c, err := totp.GenerateCode(secret, h.clock.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

var (
	secretRE   = regexp.MustCompile(`id="totp-secret" class="secret-text">([A-Z2-7]+)<`)
	recoveryRE = regexp.MustCompile(`[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}`)
)

// enrol sets up the second factor of c's account through the pages and
// returns the secret and the recovery codes.
func (h *harness) enrol(c *client, password string) (string, []string) {
	h.t.Helper()
	setup := c.post("/users/two_factor/setup", nil)
	setup.expect(h.t, http.StatusOK)
	m := secretRE.FindStringSubmatch(setup.body)
	if m == nil {
		h.t.Fatalf("no secret on the set-up page:\n%s", setup.body)
	}
	done := c.post("/users/two_factor/enable", url.Values{"current_password": {password}, "code": {h.totpCode(m[1])}})
	done.expect(h.t, http.StatusOK)
	codes := recoveryRE.FindAllString(done.body, -1)
	if len(codes) != 10 {
		h.t.Fatalf("%d recovery codes on the page:\n%s", len(codes), done.body)
	}
	return m[1], codes
}

// TestTwoFactorPages: enrolment (QR code, secret as text, confirmed with
// password and code, recovery codes once), then sign-in with the code step.
func TestTwoFactorPages(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("tf@example.com", "password one")
	other := h.client()
	if r := other.post("/users/sign_in", url.Values{"email": {"tf@example.com"}, "password": {"password one"}}); r.status != http.StatusSeeOther {
		t.Fatalf("second session: %d", r.status)
	}

	c.get("/users/edit").has(t, "Off: signing in asks for your password alone.", `href="/users/two_factor"`)
	intro := c.get("/users/two_factor")
	intro.expect(t, http.StatusOK)
	intro.has(t, "Set up two-factor authentication", `action="/users/two_factor/setup"`)
	intro.lacks(t, `class="qr"`)
	if tf, _ := h.svc.PendingEnrolment(context.Background(), h.user("tf@example.com"), "x"); tf != nil {
		t.Fatal("opening the page began an enrolment")
	}

	setup := c.post("/users/two_factor/setup", nil)
	setup.expect(t, http.StatusOK)
	setup.has(t, `<svg xmlns="http://www.w3.org/2000/svg" class="qr"`, `action="/users/two_factor/enable"`, `autocomplete="one-time-code"`)
	secret := secretRE.FindStringSubmatch(setup.body)[1]
	// Reloaded, the page shows the same set-up.
	c.get("/users/two_factor").has(t, secret)

	wrong := c.post("/users/two_factor/enable", url.Values{"current_password": {"password one"}, "code": {"12345"}})
	wrong.expect(t, http.StatusUnprocessableEntity)
	wrong.has(t, "That code is not right", secret)
	badPass := c.post("/users/two_factor/enable", url.Values{"current_password": {"nope"}, "code": {h.totpCode(secret)}})
	badPass.expect(t, http.StatusUnauthorized)
	badPass.has(t, "The password is not correct.")

	done := c.post("/users/two_factor/enable", url.Values{"current_password": {"password one"}, "code": {h.totpCode(secret)}})
	done.expect(t, http.StatusOK)
	done.has(t, "Two-factor authentication is on", "shown only now")
	codes := recoveryRE.FindAllString(done.body, -1)
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes", len(codes))
	}
	// This session carries on; the other one ended.
	c.get("/users/two_factor").has(t, "authentication is on since", "You have 10 unused recovery codes.")
	if r := other.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("the other session after turning the second factor on: %d", r.status)
	}
	c.get("/users/two_factor").lacks(t, codes[0])
	c.get("/users/edit").has(t, "On: signing in asks for a code")

	// Sign-in: the password leads to the code step, which is no session.
	h.clock.Advance(30 * time.Second)
	b := h.client()
	r := b.post("/users/sign_in", url.Values{"email": {"tf@example.com"}, "password": {"password one"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/sign_in/two_factor" {
		t.Fatalf("password of an account with a second factor: %d %q", r.status, r.header.Get("Location"))
	}
	for _, p := range []string{"/dashboard", "/users/token", "/users/edit", "/users/two_factor", "/admin"} {
		if r := b.get(p); r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/sign_in" {
			t.Errorf("GET %s half signed in: %d %q", p, r.status, r.header.Get("Location"))
		}
	}
	for _, p := range []string{"/users/token", "/users/two_factor/disable", "/users/delete"} {
		if r := b.post(p, url.Values{"current_password": {"password one"}, "confirm": {"yes"}}); r.status != http.StatusSeeOther {
			t.Errorf("POST %s half signed in: %d", p, r.status)
		}
	}
	form := b.get("/users/sign_in/two_factor")
	form.expect(t, http.StatusOK)
	form.has(t, `name="code"`, "5 minutes")
	bad := b.post("/users/sign_in/two_factor", url.Values{"code": {"000000"}})
	if h.totpCode(secret) != "000000" {
		bad.expect(t, http.StatusUnprocessableEntity)
		bad.has(t, "That code is not right")
	}
	code := h.totpCode(secret)
	if r := b.post("/users/sign_in/two_factor", url.Values{"code": {code}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard" {
		t.Fatalf("the right code: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
	b.get("/dashboard").expect(t, http.StatusOK)
	// The same code again, in another sign-in: refused.
	b2 := h.client()
	b2.post("/users/sign_in", url.Values{"email": {"tf@example.com"}, "password": {"password one"}})
	replay := b2.post("/users/sign_in/two_factor", url.Values{"code": {code}})
	replay.expect(t, http.StatusUnprocessableEntity)
	replay.has(t, "already used")
	// A recovery code signs in once, and the page says how many are left.
	rc := b2.post("/users/sign_in/two_factor", url.Values{"code": {codes[2]}})
	if rc.status != http.StatusSeeOther || rc.header.Get("Location") != "/users/two_factor" {
		t.Fatalf("a recovery code: %d %q", rc.status, rc.header.Get("Location"))
	}
	b2.get("/users/two_factor").has(t, "You signed in with a recovery code, which cannot be used again: 9 left.", "You have 9 unused recovery codes.")

	// The code step lasts five minutes.
	b3 := h.client()
	b3.post("/users/sign_in", url.Values{"email": {"tf@example.com"}, "password": {"password one"}})
	h.clock.Advance(service.SignInCodeTimeout + time.Second)
	late := b3.post("/users/sign_in/two_factor", url.Values{"code": {h.totpCode(secret)}})
	late.expect(t, http.StatusUnauthorized)
	late.has(t, "took too long", `action="/users/sign_in"`)
	if r := b3.get("/users/sign_in/two_factor"); r.status != http.StatusSeeOther {
		t.Errorf("the code step after it ended: %d", r.status)
	}

	// Turning it off takes the password and a code.
	h.clock.Advance(30 * time.Second)
	off := c.post("/users/two_factor/disable", url.Values{"current_password": {"password one"}, "code": {"999999x"}})
	off.expect(t, http.StatusUnprocessableEntity)
	off = c.post("/users/two_factor/disable", url.Values{"current_password": {"password one"}, "code": {h.totpCode(secret)}})
	if off.status != http.StatusSeeOther {
		t.Fatalf("disable: %d %s", off.status, off.body)
	}
	c.get("/users/two_factor").has(t, "Two-factor authentication is off.", "Set up two-factor authentication")
	if r := h.client().post("/users/sign_in", url.Values{"email": {"tf@example.com"}, "password": {"password one"}}); r.header.Get("Location") != "/dashboard" {
		t.Errorf("sign-in after turning it off: %q", r.header.Get("Location"))
	}
}

// TestHalfSignedInSessionHasNoRights: the session of the code step, whose
// cookie an attacker holds, reaches nothing a signed-in session would, and
// a password change or the account's deletion in between ends it.
func TestHalfSignedInSessionHasNoRights(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.signUp("half@example.com", "password one")
	secret, _ := h.enrol(owner, "password one")
	u := h.user("half@example.com")
	tok := h.create(u, fields{"payload": "owned", "deletable_by_viewer": "false"})

	half := h.client()
	half.post("/users/sign_in", url.Values{"email": {"half@example.com"}, "password": {"password one"}})
	if r := half.get("/p/" + tok + "/audit"); r.status == http.StatusOK {
		t.Error("the half-signed-in session reads the audit log")
	}
	if r := half.post("/p/"+tok+"/expire", url.Values{"confirm": {"yes"}}); r.status != http.StatusForbidden {
		t.Errorf("the half-signed-in session expires an owned push: %d", r.status)
	}
	if r := half.post("/users/two_factor/setup", nil); r.status != http.StatusSeeOther {
		t.Errorf("the half-signed-in session begins an enrolment: %d", r.status)
	}
	half.get("/").lacks(t, "Sign out")

	// The password changes meanwhile: the state ends.
	h.clock.Advance(30 * time.Second)
	owner.post("/users/password", url.Values{"current_password": {"password one"}, "password": {"password two"},
		"password_confirmation": {"password two"}}).expect(t, http.StatusOK)
	r := half.post("/users/sign_in/two_factor", url.Values{"code": {h.totpCode(secret)}})
	r.expect(t, http.StatusUnauthorized)
	r.has(t, "no longer valid")

	// The account is deleted meanwhile: the state ends.
	h.clock.Advance(30 * time.Second)
	half.post("/users/sign_in", url.Values{"email": {"half@example.com"}, "password": {"password two"}})
	owner.post("/users/delete", url.Values{"current_password": {"password two"}, "confirm": {"yes"}}).expect(t, http.StatusOK)
	h.clock.Advance(30 * time.Second)
	half.post("/users/sign_in/two_factor", url.Values{"code": {h.totpCode(secret)}}).expect(t, http.StatusUnauthorized)
	if r := half.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("dashboard after all that: %d", r.status)
	}
}

// TestEnrolmentMidway: the password changes, or the account is deleted,
// between the secret shown and the code entered.
func TestEnrolmentMidway(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("mid@example.com", "password one")
	setup := c.post("/users/two_factor/setup", nil)
	secret := secretRE.FindStringSubmatch(setup.body)[1]
	// Another session (the owner's phone) changes the password.
	phone := h.client()
	phone.post("/users/sign_in", url.Values{"email": {"mid@example.com"}, "password": {"password one"}})
	phone.post("/users/password", url.Values{"current_password": {"password one"}, "password": {"password two"},
		"password_confirmation": {"password two"}}).expect(t, http.StatusOK)
	// The first session ended with it; signed in again, the set-up is gone.
	if r := c.post("/users/two_factor/enable", url.Values{"current_password": {"password two"}, "code": {h.totpCode(secret)}}); r.status != http.StatusSeeOther {
		t.Fatalf("enable from an ended session: %d", r.status)
	}
	phone.get("/users/two_factor").lacks(t, secret)
	r := phone.post("/users/two_factor/enable", url.Values{"current_password": {"password two"}, "code": {h.totpCode(secret)}})
	r.expect(t, http.StatusConflict)
	r.has(t, "no longer valid", "Set up two-factor authentication")
	if h.user("mid@example.com").HasTwoFactor() {
		t.Fatal("an enrolment from before a password change was confirmed")
	}
	// Begun again, then the account goes.
	setup = phone.post("/users/two_factor/setup", nil)
	secret = secretRE.FindStringSubmatch(setup.body)[1]
	laptop := h.client()
	laptop.post("/users/sign_in", url.Values{"email": {"mid@example.com"}, "password": {"password two"}})
	laptop.post("/users/delete", url.Values{"current_password": {"password two"}, "confirm": {"yes"}}).expect(t, http.StatusOK)
	if r := phone.post("/users/two_factor/enable", url.Values{"current_password": {"password two"}, "code": {h.totpCode(secret)}}); r.status != http.StatusSeeOther {
		t.Fatalf("enable after the account's deletion: %d", r.status)
	}
}

// TestRequireTwoFactorPages: with PWP__REQUIRE_MFA, an account without a
// second factor is sent to set it up before anything else, acts as a
// visitor on a secret link's pages, and its API token is refused.
func TestRequireTwoFactorPages(t *testing.T) {
	h := newHarnessLimits(t, func(_ *Options, l *service.Limits) { l.RequireTwoFactor = true })
	c := h.client()
	r := c.post("/users/sign_up", url.Values{"email": {"req@example.com"}, "password": {"password one"}, "password_confirmation": {"password one"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("sign up: %d", r.status)
	}
	u := h.user("req@example.com")
	tok := h.create(u, fields{"payload": "mine", "expire_after_views": "3", "deletable_by_viewer": "false"})
	apiTok, err := h.svc.ReplaceToken(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dashboard", "/", "/users/token", "/users/edit", "/admin", "/admin/users", "/users/sign_in", "/p/" + tok + "/audit?x"} {
		path := strings.TrimSuffix(p, "?x")
		r := c.get(path)
		if strings.HasPrefix(path, "/p/") {
			if r.status == http.StatusOK {
				t.Errorf("GET %s while enrolling: 200", path)
			}
			continue
		}
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/two_factor" {
			t.Errorf("GET %s while enrolling: %d %q", path, r.status, r.header.Get("Location"))
		}
	}
	for _, p := range []string{"/users/token", "/users/delete", "/"} {
		if r := c.post(p, url.Values{"payload": {"x"}, "current_password": {"password one"}, "confirm": {"yes"}}); r.header.Get("Location") != "/users/two_factor" {
			t.Errorf("POST %s while enrolling: %d %q", p, r.status, r.header.Get("Location"))
		}
	}
	if has, _ := h.svc.HasToken(context.Background(), u); !has {
		t.Fatal("the token was replaced while enrolling")
	}
	page := c.get("/users/two_factor")
	page.expect(t, http.StatusOK)
	page.has(t, "This server requires two-factor authentication", "Sign out")
	page.lacks(t, `href="/dashboard"`)
	req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v2/pushes/active", nil)
	req.Header.Set("Authorization", "Bearer "+apiTok)
	api := h.client().do(req)
	if api.status != http.StatusForbidden || !strings.Contains(api.body, service.MsgTwoFactorRequired) {
		t.Fatalf("API token of an account without a second factor: %d %s", api.status, api.body)
	}

	h.enrol(c, "password one")
	c.get("/dashboard").expect(t, http.StatusOK)
	if api := h.client().do(req); api.status != http.StatusOK {
		t.Fatalf("the API token once enrolled: %d", api.status)
	}
}
