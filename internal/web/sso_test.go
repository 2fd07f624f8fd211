package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hush/internal/oidctest"
	"hush/internal/push"
	"hush/internal/service"
	"hush/internal/sso"
)

// The people at the test provider.
var (
	ssoAlice      = oidctest.User{ID: "alice-sub", Username: "alice", Password: "alice-pw", Email: "alice@corp.example", EmailVerified: true}
	ssoBob        = oidctest.User{ID: "bob-sub", Username: "bob", Password: "bob-pw", Email: "bob@other.example", EmailVerified: true}
	ssoUnverified = oidctest.User{ID: "carol-sub", Username: "carol", Password: "carol-pw", Email: "carol@corp.example", EmailVerified: false}
)

// ssoHarness is a harness with single sign-on through a real provider
// (oidctest) that knows alice, bob and carol.
func ssoHarness(t *testing.T, rules service.SSORules) (*harness, *oidctest.Server) {
	t.Helper()
	h := newHarness(t, nil)
	op := oidctest.Start(t, h.url+sso.CallbackPath, ssoAlice, ssoBob, ssoUnverified)
	if rules.Label == "" {
		rules.Label = "Sign in with Corp ID"
	}
	h.svc.EnableSSO(sso.New(sso.Config{Issuer: op.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		Scopes: []string{"openid", "email", "profile"}, RedirectURL: h.url + sso.CallbackPath}), rules)
	return h, op
}

// follow makes c's request and follows redirects (to the provider and
// back) until a page answers, or until a redirect to Hush's callback,
// which it returns unvisited when stopAtCallback.
func (c *client) follow(req *http.Request, stopAtCallback bool) (resp, string) {
	c.h.t.Helper()
	for range 10 {
		r := c.do(req)
		loc := r.header.Get("Location")
		if r.status < 300 || r.status > 399 || loc == "" {
			return r, ""
		}
		next, err := req.URL.Parse(loc)
		if err != nil {
			c.h.t.Fatal(err)
		}
		if stopAtCallback && strings.HasPrefix(next.String(), c.h.url+sso.CallbackPath) {
			return r, next.String()
		}
		req, _ = http.NewRequest(http.MethodGet, next.String(), nil)
	}
	c.h.t.Fatal("too many redirects")
	return resp{}, ""
}

var loginID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// providerLogin starts a sign-in from Hush's button, signs in on the
// provider's login page as u, and returns the callback URL the provider
// sends the browser back to (not yet visited).
func (h *harness) providerLogin(c *client, u oidctest.User) string {
	h.t.Helper()
	return h.providerLoginAt(c, u, "/users/sso")
}

// providerLoginAt is providerLogin from the button's address start (under
// a language's prefix).
func (h *harness) providerLoginAt(c *client, u oidctest.User, start string) string {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.url+start, nil)
	page, _ := c.follow(req, true)
	m := loginID.FindStringSubmatch(page.body)
	if page.status != http.StatusOK || m == nil {
		h.t.Fatalf("the provider's login page: %d\n%s", page.status, page.body)
	}
	// The login page is the provider's: its form posts back to itself.
	loginURL := strings.TrimSuffix(ssoIssuerOf(h), "/") + "/login/username"
	form := url.Values{"id": {m[1]}, "username": {u.Username}, "password": {u.Password}}
	post, _ := http.NewRequest(http.MethodPost, loginURL, strings.NewReader(form.Encode()))
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r, callback := c.follow(post, true)
	if callback == "" {
		h.t.Fatalf("the provider did not send the browser back: %d\n%s", r.status, r.body)
	}
	return callback
}

// ssoIssuers keeps the issuer of each harness's provider.
var ssoIssuers = map[*harness]string{}

func ssoIssuerOf(h *harness) string { return ssoIssuers[h] }

// startSSO is ssoHarness with the issuer remembered for providerLogin.
func startSSO(t *testing.T, rules service.SSORules) *harness {
	h, op := ssoHarness(t, rules)
	ssoIssuers[h] = op.Issuer
	t.Cleanup(func() { delete(ssoIssuers, h) })
	return h
}

// callback visits the callback URL in c and follows Hush's answer.
func (c *client) callback(u string) resp {
	c.h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	r, _ := c.follow(req, false)
	return r
}

// signedInAs checks that the callback ended on the dashboard and that c's
// session is email's account.
func (h *harness) signedInAs(c *client, r resp, email string) {
	h.t.Helper()
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>Dashboard</h1>") {
		h.t.Fatalf("after the callback: %d\n%s", r.status, r.body)
	}
	c.get("/users/edit").has(h.t, email)
}

// TestSSOSignInCreatesAccount: with account creation on, a person new to
// Hush signs in through the provider, lands on their dashboard with an
// account of their verified address and no password, and the admin pages
// say it signs in with SSO.
func TestSSOSignInCreatesAccount(t *testing.T) {
	h := startSSO(t, service.SSORules{CreateUsers: true})
	c := h.client()
	page := c.get("/users/sign_in")
	page.has(t, `href="/users/sso"`, "Sign in with Corp ID", `action="/users/sign_in"`)
	h.signedInAs(c, c.callback(h.providerLogin(c, ssoAlice)), "alice@corp.example")
	u := h.user("alice@corp.example")
	if u.PasswordHash != "" {
		t.Fatal("an account made by SSO has a password")
	}
	// The account has no password: no password signs it in.
	c2 := h.client()
	c2.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {""}}).expect(t, http.StatusUnauthorized)
	c2.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"anything-at-all"}}).expect(t, http.StatusUnauthorized)

	// A second sign-in finds the same account by the identity.
	c3 := h.client()
	h.signedInAs(c3, c3.callback(h.providerLogin(c3, ssoAlice)), "alice@corp.example")
	if again := h.user("alice@corp.example"); again.ID != u.ID {
		t.Fatalf("a second account: %d, first %d", again.ID, u.ID)
	}

	h.signUp("admin@hush.example", "admin-password")
	h.promote("admin@hush.example")
	admin := h.client()
	admin.post("/users/sign_in", url.Values{"email": {"admin@hush.example"}, "password": {"admin-password"}}).expect(t, http.StatusSeeOther)
	list := admin.get("/admin/users")
	list.has(t, "<td>SSO</td>", "<td>password</td>")
	detail := admin.get("/admin/users/" + strconv.FormatInt(u.ID, 10))
	detail.has(t, "Signs in with", "SSO: alice@corp.example at "+ssoIssuerOf(h))
}

// TestSSOLinksPasswordAccount: without account creation, the first SSO
// sign-in of an existing password account's verified address does not
// sign in: it asks for the account's password, and the password sign-in
// that follows in the same browser links the identity (D50). From then on
// the account signs in both ways.
func TestSSOLinksPasswordAccount(t *testing.T) {
	h := startSSO(t, service.SSORules{})
	h.signUp("alice@corp.example", "alice-password")
	c := h.client()
	first := c.callback(h.providerLogin(c, ssoAlice))
	first.expect(t, http.StatusForbidden)
	first.has(t, "signs in with a password here")
	c.get("/dashboard").expect(t, http.StatusSeeOther)
	if m, _ := h.svc.SignInMethodsOf(context.Background(), h.user("alice@corp.example")); len(m.Identities) != 0 {
		t.Fatalf("linked before the password: %+v", m)
	}
	c.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"alice-password"}}).expect(t, http.StatusSeeOther)
	m, err := h.svc.SignInMethodsOf(context.Background(), h.user("alice@corp.example"))
	if err != nil || m.Methods != "password and SSO" || len(m.Identities) != 1 || m.Identities[0].Subject != "alice-sub" {
		t.Fatalf("sign-in methods: %+v, %v", m, err)
	}
	c2 := h.client()
	h.signedInAs(c2, c2.callback(h.providerLogin(c2, ssoAlice)), "alice@corp.example")
	h.client().post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"alice-password"}}).expect(t, http.StatusSeeOther)
}

// TestSSOSquattedAddress is the attack D50 guards against: a stranger signs
// up with someone else's address and a password of their choosing, before
// its owner first signs in through the provider. The owner's sign-in does
// not land in the stranger's account, the stranger's own sign-in links
// nothing, and the owner's waiting link is made only by the account's
// password in the owner's browser, within the attempt's time.
func TestSSOSquattedAddress(t *testing.T) {
	h := startSSO(t, service.SSORules{})
	squatter := h.signUp("alice@corp.example", "squatter-password")
	owner := h.client()
	owner.callback(h.providerLogin(owner, ssoAlice)).expect(t, http.StatusForbidden)
	owner.get("/dashboard").expect(t, http.StatusSeeOther)
	// The squatter signs in again, in their own browser and in a new one:
	// neither has the owner's waiting link.
	squatter.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"squatter-password"}}).expect(t, http.StatusSeeOther)
	h.client().post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"squatter-password"}}).expect(t, http.StatusSeeOther)
	unlinked := func(when string) {
		t.Helper()
		if m, _ := h.svc.SignInMethodsOf(context.Background(), h.user("alice@corp.example")); len(m.Identities) != 0 {
			t.Fatalf("%s: the identity was linked: %+v", when, m)
		}
	}
	unlinked("after the squatter's sign-ins")
	// A password sign-in of another account in the owner's browser drops
	// the waiting link rather than making it.
	h.signUp("bob@corp.example", "bob-password")
	owner.post("/users/sign_in", url.Values{"email": {"bob@corp.example"}, "password": {"bob-password"}}).expect(t, http.StatusSeeOther)
	owner.post("/users/sign_out", nil)
	owner.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"squatter-password"}}).expect(t, http.StatusSeeOther)
	unlinked("after another account's sign-in in the owner's browser")
	// The wait lasts as long as an attempt.
	late := h.client()
	late.callback(h.providerLogin(late, ssoAlice)).expect(t, http.StatusForbidden)
	h.clock.Advance(service.SSOAttemptTimeout + time.Second)
	late.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"squatter-password"}}).expect(t, http.StatusSeeOther)
	unlinked("after a password sign-in past the attempt's time")
	// Every SSO sign-in of the owner is refused until the password is given.
	again := h.client()
	again.callback(h.providerLogin(again, ssoAlice)).expect(t, http.StatusForbidden)
	again.get("/dashboard").expect(t, http.StatusSeeOther)
}

// TestSSORefusals: each refusal ends on the sign-in page with its reason,
// and signs no one in.
func TestSSORefusals(t *testing.T) {
	t.Run("unknown user when creation is off", func(t *testing.T) {
		h := startSSO(t, service.SSORules{})
		c := h.client()
		r := c.callback(h.providerLogin(c, ssoAlice))
		r.expect(t, http.StatusForbidden)
		r.has(t, "There is no account for your email address here")
		if _, err := h.svc.UserByEmail(context.Background(), "alice@corp.example"); push.ErrorCode(err) != push.CodeNotFound {
			t.Fatalf("an account was made: %v", err)
		}
		c.get("/dashboard").expect(t, http.StatusSeeOther)
	})
	t.Run("foreign email domain", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true, AllowedDomains: []string{"corp.example"}})
		c := h.client()
		r := c.callback(h.providerLogin(c, ssoBob))
		r.expect(t, http.StatusForbidden)
		r.has(t, "not in a domain allowed")
		if _, err := h.svc.UserByEmail(context.Background(), "bob@other.example"); push.ErrorCode(err) != push.CodeNotFound {
			t.Fatalf("an account was made: %v", err)
		}
		// The allowed domain still signs in.
		c2 := h.client()
		c2.callback(h.providerLogin(c2, ssoAlice)).expect(t, http.StatusOK)
	})
	t.Run("unverified email", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true})
		h.signUp("carol@corp.example", "carol-password") // not linked on an unverified address
		c := h.client()
		r := c.callback(h.providerLogin(c, ssoUnverified))
		r.expect(t, http.StatusForbidden)
		r.has(t, "has not verified your email address")
		c.get("/dashboard").expect(t, http.StatusSeeOther)
		if m, _ := h.svc.SignInMethodsOf(context.Background(), h.user("carol@corp.example")); m.Methods != "password" {
			t.Fatalf("linked on an unverified address: %+v", m)
		}
	})
	t.Run("replayed callback", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true})
		c := h.client()
		cb := h.providerLogin(c, ssoAlice)
		c.callback(cb).expect(t, http.StatusOK)
		// The same URL again, in the same browser: refused by Hush (the
		// attempt is spent), before the provider is asked about its code.
		r := c.callback(cb)
		r.expect(t, http.StatusUnauthorized)
		r.has(t, service.MsgSSOExpired)
		c.post("/users/sign_out", nil).expect(t, http.StatusSeeOther)
		c.callback(cb).expect(t, http.StatusUnauthorized)
		other := h.client()
		other.callback(cb).expect(t, http.StatusUnauthorized)
		other.get("/dashboard").expect(t, http.StatusSeeOther)
	})
	t.Run("callback in another browser", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true})
		cb := h.providerLogin(h.client(), ssoAlice)
		thief := h.client()
		thief.callback(cb).expect(t, http.StatusUnauthorized)
		thief.get("/dashboard").expect(t, http.StatusSeeOther)
	})
	t.Run("wrong state", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true})
		c := h.client()
		cb, _ := url.Parse(h.providerLogin(c, ssoAlice))
		q := cb.Query()
		q.Set("state", q.Get("state")+"x")
		genuine := cb.String()
		cb.RawQuery = q.Encode()
		c.callback(cb.String()).expect(t, http.StatusUnauthorized)
		// The failed callback spent the attempt: the genuine one is refused too.
		r := c.callback(genuine)
		r.expect(t, http.StatusUnauthorized)
		r.has(t, service.MsgSSOExpired)
		c.get("/dashboard").expect(t, http.StatusSeeOther)
	})
	t.Run("too slow", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true})
		c := h.client()
		cb := h.providerLogin(c, ssoAlice)
		h.clock.Advance(service.SSOAttemptTimeout + time.Second)
		c.callback(cb).expect(t, http.StatusUnauthorized)
	})
	t.Run("refused at the provider", func(t *testing.T) {
		h := startSSO(t, service.SSORules{CreateUsers: true})
		c := h.client()
		c.get("/users/sso").expect(t, http.StatusSeeOther)
		r := c.callback(h.url + sso.CallbackPath + "?error=access_denied&state=whatever")
		r.expect(t, http.StatusUnauthorized)
		r.has(t, service.MsgSSOFailed)
	})
}

// TestSSOIdentityWithNUL: a provider whose subject holds a NUL character
// (which PostgreSQL's text refuses, and which answered 500) is refused as a
// failed sign-in, on both engines, and no account is made
// (docs/decisions.md, D61).
func TestSSOIdentityWithNUL(t *testing.T) {
	h := newHarness(t, nil)
	nul := oidctest.User{ID: "nul\x00sub", Username: "nul", Password: "nul-pw", Email: "nul@corp.example", EmailVerified: true}
	op := oidctest.Start(t, h.url+sso.CallbackPath, nul)
	h.svc.EnableSSO(sso.New(sso.Config{Issuer: op.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		Scopes: []string{"openid", "email"}, RedirectURL: h.url + sso.CallbackPath}), service.SSORules{CreateUsers: true, Label: "Corp ID"})
	ssoIssuers[h] = op.Issuer
	t.Cleanup(func() { delete(ssoIssuers, h) })
	c := h.client()
	r := c.callback(h.providerLogin(c, nul))
	r.expect(t, http.StatusUnauthorized)
	r.has(t, service.MsgSSOFailed)
	if _, err := h.svc.UserByEmail(context.Background(), "nul@corp.example"); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("an account was made: %v", err)
	}
}

// TestSSOPasswordOff: with password sign-in off, every password route
// refuses (the API has no sign-in: it takes tokens only), the sign-in page
// offers only the provider, and the provider still signs in.
func TestSSOPasswordOff(t *testing.T) {
	h := startSSO(t, service.SSORules{CreateUsers: true})
	oldSession := h.signUp("alice@corp.example", "old-password") // made while passwords were on
	token, err := h.svc.ReplaceToken(context.Background(), h.user("alice@corp.example"))
	if err != nil {
		t.Fatal(err)
	}
	rules, _ := h.svc.SSO()
	rules.PasswordOff = true
	h.svc.EnableSSO(sso.New(sso.Config{Issuer: ssoIssuerOf(h), ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		Scopes: []string{"openid", "email"}, RedirectURL: h.url + sso.CallbackPath}), rules)
	c := h.client()
	page := c.get("/users/sign_in")
	page.expect(t, http.StatusOK)
	page.has(t, `href="/users/sso"`)
	page.lacks(t, `action="/users/sign_in"`, `name="password"`, "/users/sign_up", "/users/password/new")
	for _, p := range []struct {
		method, path string
		form         url.Values
	}{
		{http.MethodPost, "/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"old-password"}}},
		{http.MethodGet, "/users/sign_up", nil},
		{http.MethodPost, "/users/sign_up", url.Values{"email": {"new@corp.example"}, "password": {"new-password"}, "password_confirmation": {"new-password"}}},
		{http.MethodGet, "/users/password/new", nil},
		{http.MethodPost, "/users/password/new", url.Values{"email": {"alice@corp.example"}}},
		{http.MethodGet, "/users/password/edit?reset_password_token=abc", nil},
		{http.MethodPost, "/users/password/edit", url.Values{"reset_password_token": {"abc"}, "password": {"x-password"}, "password_confirmation": {"x-password"}}},
		{http.MethodGet, "/users/sign_in/two_factor", nil},
		{http.MethodPost, "/users/sign_in/two_factor", url.Values{"code": {"123456"}}},
	} {
		var r resp
		if p.method == http.MethodGet {
			r = c.get(p.path)
		} else {
			r = c.post(p.path, p.form)
		}
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "Password sign-in is off") {
			t.Errorf("%s %s: %d, want 403 saying password sign-in is off", p.method, p.path, r.status)
		}
	}
	c.get("/dashboard").expect(t, http.StatusSeeOther)
	if _, err := h.svc.SignIn(context.Background(), "alice@corp.example", "old-password", push.Meta{}); push.ErrorCode(err) != push.CodeForbidden {
		t.Fatalf("the service signed in with a password: %v", err)
	}
	// The old account links by its verified address and signs in. Its
	// password no longer signs in, so nothing proves who chose it: the
	// link ends the sessions and the API token made before it.
	h.signedInAs(c, c.callback(h.providerLogin(c, ssoAlice)), "alice@corp.example")
	if m, _ := h.svc.SignInMethodsOf(context.Background(), h.user("alice@corp.example")); len(m.Identities) != 1 {
		t.Fatalf("the old account was not linked: %+v", m)
	}
	oldSession.get("/dashboard").expect(t, http.StatusSeeOther)
	if _, err := h.svc.UserByToken(context.Background(), token); err == nil {
		t.Fatal("the API token made before the link still works")
	}
}

// TestSSOPasswordOffConfirmation: with password sign-in off, an account
// still awaiting the confirmation of its address from before cannot
// confirm it with its password, which would sign it in (D68): the link's
// page and its form say that password sign-in is off, and the account
// stays unconfirmed and signed out.
func TestSSOPasswordOffConfirmation(t *testing.T) {
	h, box := newFormsHarness(t, true)
	op := oidctest.Start(t, h.url+sso.CallbackPath, ssoAlice)
	form := url.Values{"email": {"waiting@corp.example"}, "password": {"a waiting password"}, "password_confirmation": {"a waiting password"}}
	h.client().post("/users/sign_up", form).expect(t, http.StatusOK)
	link := box.link(h, "waiting@corp.example")
	h.svc.EnableSSO(sso.New(sso.Config{Issuer: op.Issuer, ClientID: oidctest.ClientID, ClientSecret: oidctest.ClientSecret,
		Scopes: []string{"openid", "email"}, RedirectURL: h.url + sso.CallbackPath}), service.SSORules{PasswordOff: true})
	c := h.client()
	page := c.get(link)
	if page.status != http.StatusForbidden || !strings.Contains(page.body, "Password sign-in is off") {
		t.Errorf("the link's page: %d, want 403 saying password sign-in is off", page.status)
	}
	r := c.post("/users/confirmation", url.Values{service.ConfirmTokenParam: {link[strings.Index(link, "=")+1:]},
		"password": {"a waiting password"}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "Password sign-in is off") {
		t.Errorf("the confirmation: %d, want 403 saying password sign-in is off", r.status)
	}
	c.get("/dashboard").expect(t, http.StatusSeeOther)
	if u := h.user("waiting@corp.example"); !u.ConfirmPending {
		t.Error("the account was confirmed")
	}
}

// TestSSODisabledUserSessionEnds: an admin disabling an account that
// signed in through the provider ends its open session at once (the
// session checks the account on every request), and the provider cannot
// sign it in again.
func TestSSODisabledUserSessionEnds(t *testing.T) {
	h := startSSO(t, service.SSORules{CreateUsers: true})
	c := h.client()
	c.callback(h.providerLogin(c, ssoAlice)).expect(t, http.StatusOK)
	c.get("/dashboard").expect(t, http.StatusOK)
	u := h.user("alice@corp.example")
	if _, err := h.svc.Administer(context.Background(), push.AdminActor{Name: "test"}, push.AdminDisable, u.ID); err != nil {
		t.Fatal(err)
	}
	r := c.get("/dashboard")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/sign_in" {
		t.Fatalf("the disabled account's session: %d %q", r.status, r.header.Get("Location"))
	}
	again := c.callback(h.providerLogin(c, ssoAlice))
	again.expect(t, http.StatusForbidden)
	again.has(t, "This account is disabled")
}

// TestSSOSkipsHushSecondFactor: an account that has Hush's second factor
// signs in through the provider without Hush's code, and an instance that
// requires a second factor does not make an SSO session enrol (D51).
func TestSSOSkipsHushSecondFactor(t *testing.T) {
	h := startSSO(t, service.SSORules{})
	signedUp := h.signUp("alice@corp.example", "alice-password")
	secret, _ := h.enrol(signedUp, "alice-password")
	// The first SSO sign-in waits for the password, and its code.
	first := h.client()
	first.callback(h.providerLogin(first, ssoAlice)).expect(t, http.StatusForbidden)
	first.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"alice-password"}}).expect(t, http.StatusSeeOther)
	h.clock.Advance(30 * time.Second)
	first.post("/users/sign_in/two_factor", url.Values{"code": {h.totpCode(secret)}}).expect(t, http.StatusSeeOther)
	c := h.client()
	h.signedInAs(c, c.callback(h.providerLogin(c, ssoAlice)), "alice@corp.example")
	// The password still asks for the code.
	pw := h.client()
	pr := pw.post("/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"alice-password"}})
	if pr.header.Get("Location") != "/users/sign_in/two_factor" {
		t.Fatalf("the password sign-in skipped the code: %d %q", pr.status, pr.header.Get("Location"))
	}
}
