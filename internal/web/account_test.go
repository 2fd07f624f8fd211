package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hush/internal/push"
)

// signUp creates an account through the form and returns the signed-in client.
func (h *harness) signUp(email, pw string) *client {
	h.t.Helper()
	c := h.client()
	r := c.post("/users/sign_up", url.Values{"email": {email}, "password": {pw}, "password_confirmation": {pw}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard" {
		h.t.Fatalf("sign up: %d %q\n%s", r.status, r.header.Get("Location"), r.body)
	}
	return c
}

func (h *harness) user(email string) *push.User {
	h.t.Helper()
	u, err := h.svc.UserByEmail(context.Background(), email)
	if err != nil {
		h.t.Fatal(err)
	}
	return u
}

func sessionCookie(r resp) string {
	for _, c := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "hush_session=") {
			return c
		}
	}
	return ""
}

func TestSignUpSignInSignOut(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	form := c.get("/users/sign_up")
	form.expect(t, http.StatusOK)
	form.has(t, `<label for="email">Email</label>`, `<label for="password">Password</label>`)

	for _, bad := range []url.Values{
		{"email": {"not-an-email"}, "password": {"longenough"}, "password_confirmation": {"longenough"}},
		{"email": {"a@b.example"}, "password": {"short"}, "password_confirmation": {"short"}},
		{"email": {"a@b.example"}, "password": {"longenough"}, "password_confirmation": {"different"}},
	} {
		r := c.post("/users/sign_up", bad)
		r.expect(t, http.StatusUnprocessableEntity)
		r.has(t, `role="alert"`)
	}

	r := c.post("/users/sign_up", url.Values{"email": {"Ann@Example.com"}, "password": {"correct horse"}, "password_confirmation": {"correct horse"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("sign up: %d\n%s", r.status, r.body)
	}
	ck := sessionCookie(r)
	for _, attr := range []string{"HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(ck, attr) {
			t.Errorf("session cookie lacks %s: %s", attr, ck)
		}
	}
	if strings.Contains(ck, "Secure") {
		t.Errorf("Secure cookie over plain http without an https base URL: %s", ck)
	}
	d := c.get("/dashboard")
	d.expect(t, http.StatusOK)
	d.has(t, "Sign out", "No active pushes")
	c.get("/users/sign_up").expect(t, http.StatusSeeOther)
	// The same email again.
	dup := h.client().post("/users/sign_up", url.Values{"email": {"ann@example.com"}, "password": {"another one"}, "password_confirmation": {"another one"}})
	dup.expect(t, http.StatusUnprocessableEntity)
	dup.has(t, "already exists")

	out := c.post("/users/sign_out", nil)
	if out.status != http.StatusSeeOther {
		t.Errorf("sign out: %d", out.status)
	}
	if r := c.get("/dashboard"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/sign_in" {
		t.Errorf("dashboard after sign out: %d %q", r.status, r.header.Get("Location"))
	}

	in := c.post("/users/sign_in", url.Values{"email": {"ann@example.com"}, "password": {"wrong password"}})
	in.expect(t, http.StatusUnauthorized)
	in.has(t, "Invalid email or password.")
	in = c.post("/users/sign_in", url.Values{"email": {"nobody@example.com"}, "password": {"wrong password"}})
	in.has(t, "Invalid email or password.")
	before := c.get("/users/sign_in")
	before.expect(t, http.StatusOK)
	in = c.post("/users/sign_in", url.Values{"email": {"ANN@example.com"}, "password": {"correct horse"}})
	if in.status != http.StatusSeeOther || sessionCookie(in) == "" {
		t.Fatalf("sign in: %d, cookie %q", in.status, sessionCookie(in))
	}
	c.get("/dashboard").expect(t, http.StatusOK)
}

func TestSignInRenewsSessionToken(t *testing.T) {
	h := newHarness(t, nil)
	h.signUp("fix@example.com", "password one")
	c := h.client()
	// A session exists before signing in (an earlier sign-in in the same
	// browser); creating a push anonymously makes none.
	r := c.post("/", url.Values{"kind": {"text"}, "payload": {"x"}, "expire_after_days": {"1"}, "expire_after_views": {"1"}})
	if sessionCookie(r) != "" {
		t.Errorf("an anonymous create set a session cookie: %s", sessionCookie(r))
	}
	before := sessionCookie(c.post("/users/sign_in", url.Values{"email": {"fix@example.com"}, "password": {"password one"}}))
	if before == "" {
		t.Fatal("no session")
	}
	in := c.post("/users/sign_in", url.Values{"email": {"fix@example.com"}, "password": {"password one"}})
	after := sessionCookie(in)
	if after == "" || strings.SplitN(after, ";", 2)[0] == strings.SplitN(before, ";", 2)[0] {
		t.Errorf("session token not renewed on sign-in:\n%s\n%s", before, after)
	}
}

func TestSignInRateLimit(t *testing.T) {
	h := newHarness(t, nil)
	h.signUp("rl@example.com", "password one")
	c := h.client()
	for i := range 5 {
		if r := c.post("/users/sign_in", url.Values{"email": {"rl@example.com"}, "password": {"nope"}}); r.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, r.status)
		}
	}
	r := c.post("/users/sign_in", url.Values{"email": {"rl@example.com"}, "password": {"password one"}})
	r.expect(t, http.StatusTooManyRequests)
	r.has(t, "Too many sign-in attempts")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	// Per client: other emails from the same client run out too (20 a
	// minute in all).
	for i := range 20 - 5 {
		c.post("/users/sign_in", url.Values{"email": {strings.Repeat("x", i+1) + "@example.com"}, "password": {"nope"}})
	}
	c.post("/users/sign_in", url.Values{"email": {"fresh@example.com"}, "password": {"nope"}}).expect(t, http.StatusTooManyRequests)
	h.clock.Advance(time.Minute)
	if r := c.post("/users/sign_in", url.Values{"email": {"rl@example.com"}, "password": {"password one"}}); r.status != http.StatusSeeOther {
		t.Errorf("after a minute: %d", r.status)
	}
}

func TestDisableSignupsAndLogins(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *push.Settings) { o.DisableSignups, o.DisableLogins = true, true })
	c := h.client()
	home := c.get("/")
	home.lacks(t, `href="/users/sign_up"`, `href="/users/sign_in"`)
	for _, r := range []resp{
		c.get("/users/sign_up"),
		c.post("/users/sign_up", url.Values{"email": {"a@b.example"}, "password": {"longenough"}, "password_confirmation": {"longenough"}}),
		c.get("/users/sign_in"),
		c.post("/users/sign_in", url.Values{"email": {"a@b.example"}, "password": {"longenough"}}),
	} {
		r.expect(t, http.StatusForbidden)
	}
	if _, err := h.svc.UserByEmail(context.Background(), "a@b.example"); err == nil {
		t.Error("a user was created while sign-ups are disabled")
	}
}

// TestTokenPage: opening the page never makes a token; "Create" makes one,
// shown once; replacing it asks first, and only a confirmed replacement
// ends the old token.
func TestTokenPage(t *testing.T) {
	h := newHarness(t, nil)
	if r := h.client().get("/users/token"); r.status != http.StatusSeeOther {
		t.Errorf("token page without a session: %d", r.status)
	}
	c := h.signUp("tok@example.com", "password one")
	u := h.user("tok@example.com")
	for range 2 {
		first := c.get("/users/token")
		first.expect(t, http.StatusOK)
		first.has(t, "You have no API token", `action="/users/token"`, "Create a token")
		first.lacks(t, `id="token"`, "Replace")
	}
	if has, _ := h.svc.HasToken(context.Background(), u); has {
		t.Fatal("opening the token page made a token")
	}
	created := c.post("/users/token", nil)
	created.expect(t, http.StatusOK)
	tok := inputValue(t, created.body, "token")
	created.lacks(t, "stopped working")
	second := c.get("/users/token")
	second.lacks(t, tok)
	second.has(t, "You have an API token, created 2026-01-01", "Replace the token", `data-confirm-title="Replace your API token?"`,
		"stops working at once")

	api := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v2/pushes/active", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		return h.client().do(req).status
	}
	if s := api(tok); s != http.StatusOK {
		t.Fatalf("API with the page's token: %d", s)
	}
	// Unconfirmed, a second POST (a double click, another tab, no script)
	// asks; the token keeps working.
	ask := c.post("/users/token", nil)
	ask.expect(t, http.StatusOK)
	ask.has(t, "Replace your API token?", `name="confirm" value="yes"`, `action="/users/token"`)
	ask.lacks(t, `id="token"`)
	if s := api(tok); s != http.StatusOK {
		t.Fatalf("the token after an unconfirmed replace: %d", s)
	}
	regen := c.post("/users/token", url.Values{"confirm": {"yes"}})
	regen.expect(t, http.StatusOK)
	regen.has(t, "The token you had before has stopped working.")
	tok2 := inputValue(t, regen.body, "token")
	if tok2 == tok {
		t.Fatal("regenerate gave the same token")
	}
	if s := api(tok); s != http.StatusUnauthorized {
		t.Errorf("old token after regenerate: %d", s)
	}
	if s := api(tok2); s != http.StatusOK {
		t.Errorf("new token: %d", s)
	}
	// Cookies never authenticate the API (docs/decisions.md, D18).
	if r := c.get("/api/v2/pushes/active"); r.status != http.StatusUnauthorized {
		t.Errorf("API with a session cookie only: %d", r.status)
	}
}

// inputValue returns the value of the input with the given id.
func inputValue(t *testing.T, body, id string) string {
	t.Helper()
	marker := `id="` + id + `" value="`
	i := strings.Index(body, marker)
	if i < 0 {
		t.Fatalf("no input %q in:\n%s", id, body)
	}
	rest := body[i+len(marker):]
	return rest[:strings.IndexByte(rest, '"')]
}

func TestAccountEdit(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("ed@example.com", "password one")
	page := c.get("/users/edit")
	page.expect(t, http.StatusOK)
	page.has(t, "Change password", "Delete my account", `<label for="current_password">`)

	r := c.post("/users/password", url.Values{"current_password": {"wrong"}, "password": {"password two"}, "password_confirmation": {"password two"}})
	r.expect(t, http.StatusUnauthorized)
	r = c.post("/users/password", url.Values{"current_password": {"password one"}, "password": {"password two"}, "password_confirmation": {"password two"}})
	r.expect(t, http.StatusOK)
	r.has(t, "Your password has been changed.")
	other := h.client()
	other.post("/users/sign_in", url.Values{"email": {"ed@example.com"}, "password": {"password one"}}).expect(t, http.StatusUnauthorized)
	if r := other.post("/users/sign_in", url.Values{"email": {"ed@example.com"}, "password": {"password two"}}); r.status != http.StatusSeeOther {
		t.Errorf("sign in with the new password: %d", r.status)
	}

	u := h.user("ed@example.com")
	tok := h.create(u, fields{"payload": "mine"})
	// Unconfirmed, the form asks, and asks for the password again.
	ask := c.post("/users/delete", url.Values{"current_password": {"password two"}})
	ask.expect(t, http.StatusOK)
	ask.has(t, "Delete your account?", `name="confirm" value="yes"`, `type="password"`, `href="/users/edit"`)
	ask.lacks(t, "password two")
	if _, err := h.svc.Lookup(context.Background(), tok); err != nil {
		t.Fatalf("an unconfirmed delete deleted: %v", err)
	}
	c.post("/users/delete", url.Values{"current_password": {"nope"}, "confirm": {"yes"}}).expect(t, http.StatusUnauthorized)
	del := c.post("/users/delete", url.Values{"current_password": {"password two"}, "confirm": {"yes"}})
	del.expect(t, http.StatusOK)
	del.has(t, "Your account has been deleted")
	if _, err := h.svc.Lookup(context.Background(), tok); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("push of a deleted account: %v", err)
	}
	if r := c.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("dashboard after deletion: %d", r.status)
	}
}
