package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// lastCase is a form of the pages sent with one field twice: first a value
// that must lose, then the one that must win.
type lastCase struct {
	name string
	send func(t *testing.T) resp
	to   string // the answer's redirect (path.Match); "": a page (200)
	want string // the catalog key of a text the page says; "": none checked
	// check, when set, looks at what the last value left behind.
	check func(t *testing.T, r resp)
}

// twice is form with key sent twice, lose before win.
func twice(form url.Values, key, lose, win string) url.Values {
	form[key] = []string{lose, win}
	return form
}

var messageIDRE = regexp.MustCompile(`name="message" value="(\d+)"`)

// TestFormFieldLastWins sends each form of the pages with a field that
// decides something sent twice: the last value counts, as Rack reads a form
// and as the API reads it (docs/decisions.md, D65). Each case sends a value
// that would be refused, or would do otherwise, first.
func TestFormFieldLastWins(t *testing.T) {
	h, box := newFormsHarness(t, false)
	hc, hbox := newFormsHarness(t, true)
	cases := append(lastRecipientCases(h), lastCreateCases(h)...)
	cases = append(cases, lastAccountCases(h, box)...)
	cases = append(cases, lastTwoFactorCases(h)...)
	cases = append(cases, lastWebhookCases(h)...)
	cases = append(cases, lastConfirmCases(hc, hbox)...)
	en := i18n.For(i18n.Default)
	for _, lc := range cases {
		t.Run(lc.name, func(t *testing.T) {
			// A day later: the earlier cases' sign-ups count against no limit.
			h.clock.Advance(24 * time.Hour)
			hc.clock.Advance(24 * time.Hour)
			r := lc.send(t)
			if lc.to != "" {
				loc := r.header.Get("Location")
				if ok, _ := path.Match(lc.to, loc); r.status != http.StatusSeeOther || !ok {
					t.Fatalf("answer %d to %q, want 303 to %s:\n%.1500s", r.status, loc, lc.to, r.body)
				}
			} else if r.status != http.StatusOK {
				t.Fatalf("answer %d, want 200:\n%.1500s", r.status, r.body)
			}
			if lc.want != "" {
				r.has(t, html.EscapeString(en.T(lc.want, nil)))
			}
			if lc.check != nil {
				lc.check(t, r)
			}
		})
	}
}

// lastRecipientCases: the passphrase and the view stamp of a recipient's
// forms.
func lastRecipientCases(h *harness) []lastCase {
	secret := func(t *testing.T, r resp) { r.has(t, "last wins secret") }
	passphrase := func(t *testing.T) (*client, string) {
		tok := h.create(nil, fields{"payload": "last wins secret", "passphrase": "sesame", "expire_after_views": "5"})
		return h.client(), "/p/" + tok + "/passphrase"
	}
	return []lastCase{
		{name: "passphrase", check: secret, send: func(t *testing.T) resp {
			c, at := passphrase(t)
			return c.post(at, twice(url.Values{}, "passphrase", "wrong", "sesame"))
		}},
		{name: "passphrase stamp", check: secret, send: func(t *testing.T) resp {
			c, at := passphrase(t)
			stamp := formStamp(t, c.get(at))
			return c.post(at, twice(url.Values{"passphrase": {"sesame"}}, "stamp", "stale", stamp))
		}},
		{name: "retrieval step stamp", check: secret, send: func(t *testing.T) resp {
			tok := h.create(nil, fields{"payload": "last wins secret", "retrieval_step": "true", "expire_after_views": "5"})
			c := h.client()
			stamp := formStamp(t, c.get("/p/"+tok+"/r"))
			return c.post("/p/"+tok+"/r", twice(url.Values{}, "stamp", "stale", stamp))
		}},
	}
}

// lastCreateCases: the create form, urlencoded and multipart, and the
// confirmation an owner's expiry asks for.
func lastCreateCases(h *harness) []lastCase {
	views := func(t *testing.T, r resp) {
		tok := strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
		p, err := h.svc.Lookup(context.Background(), tok)
		if err != nil {
			t.Fatal(err)
		}
		if p.ExpireAfterViews != 3 {
			t.Errorf("the push expires after %d views, want 3", p.ExpireAfterViews)
		}
	}
	return []lastCase{
		{name: "create", to: "/p/*/preview", check: views, send: func(t *testing.T) resp {
			form := url.Values{"kind": {"text"}, "payload": {"last wins payload"}}
			return h.client().post("/", twice(form, "expire_after_views", "1", "3"))
		}},
		{name: "create with a file", to: "/p/*/preview", check: views, send: func(t *testing.T) resp {
			c := h.signUp("last-file@example.com", "a last wins password")
			form := url.Values{"kind": {"file"}, "payload": {""}, "expire_after_days": {"3"}}
			return c.postMultipart(twice(form, "expire_after_views", "1", "3"), upload{"a.txt", []byte("file")})
		}},
		{name: "confirmed", to: "/p/*/audit", send: func(t *testing.T) resp {
			c := h.signUp("last-expire@example.com", "a last wins password")
			tok := h.create(h.user("last-expire@example.com"), fields{"payload": "last wins secret"})
			return c.post("/p/"+tok+"/expire", twice(url.Values{}, "confirm", "no", "yes"))
		}},
	}
}

// lastAccountCases: signing up and in, the account page's forms and the
// password reset.
func lastAccountCases(h *harness, box *mailbox) []lastCase {
	const pw = "a last wins password"
	n := 0
	// account is a new account's address and signed-in client.
	account := func() (string, *client) {
		n++
		email := fmt.Sprintf("last-%d@example.com", n)
		return email, h.signUp(email, pw)
	}
	var langOf string
	return []lastCase{
		{name: "sign up", to: "/dashboard", send: func(t *testing.T) resp {
			form := url.Values{"email": {"last-new@example.com"}, "password": {pw}}
			return h.client().post("/users/sign_up", twice(form, "password_confirmation", "another password", pw))
		}},
		{name: "sign in", to: "/dashboard", send: func(t *testing.T) resp {
			email, _ := account()
			return h.client().post("/users/sign_in", twice(url.Values{"email": {email}}, "password", "not the password", pw))
		}},
		{name: "password", want: "account.password_changed", send: func(t *testing.T) resp {
			_, c := account()
			form := url.Values{"password": {"a new password"}, "password_confirmation": {"a new password"}}
			return c.post("/users/password", twice(form, "current_password", "not it", pw))
		}},
		{name: "delete account", want: "account.deleted_title", send: func(t *testing.T) resp {
			_, c := account()
			return c.post("/users/delete", twice(url.Values{"confirm": {"yes"}}, "current_password", "not it", pw))
		}},
		{name: "language", send: func(t *testing.T) resp {
			email, c := account()
			langOf = email
			return c.post("/users/language", twice(url.Values{}, "preferred_language", "xx", "de"))
		}, check: func(t *testing.T, _ resp) {
			if got := h.user(langOf).Language; got != "de" {
				t.Errorf("the account's language is %q, want de", got)
			}
		}},
		{name: "reset asked", want: "account.check_email", send: func(t *testing.T) resp {
			email, _ := account()
			return h.client().post("/users/password/new", twice(url.Values{}, "email", "not an address", email))
		}},
		{name: "reset", want: "password.changed_title", send: func(t *testing.T) resp {
			email, _ := account()
			if err := h.svc.RequestPasswordReset(context.Background(), email, h.url, push.Meta{}); err != nil {
				t.Fatal(err)
			}
			link := box.link(h, email)
			form := url.Values{"password": {"a reset password"}, "password_confirmation": {"a reset password"}}
			return h.client().post("/users/password/edit", twice(form, service.ResetTokenParam, "not-the-token", link[strings.Index(link, "=")+1:]))
		}},
	}
}

// lastTwoFactorCases: the codes that turn the second factor on and off and
// finish a sign-in.
func lastTwoFactorCases(h *harness) []lastCase {
	const pw = "a last wins password"
	n := 0
	// enrolled is a new account with the second factor on, a minute after
	// its code was used: its address, client and secret.
	enrolled := func() (string, *client, string) {
		n++
		email := fmt.Sprintf("last-2fa-%d@example.com", n)
		c := h.signUp(email, pw)
		secret, _ := h.enrol(c, pw)
		h.clock.Advance(time.Minute)
		return email, c, secret
	}
	return []lastCase{
		{name: "two factor on", want: "twofactor.codes_page_title", send: func(t *testing.T) resp {
			c := h.signUp("last-2fa-on@example.com", pw)
			m := secretRE.FindStringSubmatch(c.post("/users/two_factor/setup", nil).body)
			if m == nil {
				t.Fatal("no secret on the set-up page")
			}
			return c.post("/users/two_factor/enable", twice(url.Values{"current_password": {pw}}, "code", "000000", h.totpCode(m[1])))
		}},
		{name: "two factor off", to: "/users/two_factor", send: func(t *testing.T) resp {
			_, c, secret := enrolled()
			return c.post("/users/two_factor/disable", twice(url.Values{"current_password": {pw}}, "code", "000000", h.totpCode(secret)))
		}},
		{name: "sign-in code", to: "/dashboard", send: func(t *testing.T) resp {
			email, _, secret := enrolled()
			c := h.client()
			if r := c.post("/users/sign_in", url.Values{"email": {email}, "password": {pw}}); r.status != http.StatusSeeOther {
				t.Fatalf("sign-in: %d", r.status)
			}
			return c.post("/users/sign_in/two_factor", twice(url.Values{}, "code", "000000", h.totpCode(secret)))
		}},
	}
}

// lastWebhookCases: an endpoint's address, its switch and the message sent
// again.
func lastWebhookCases(h *harness) []lastCase {
	// The endpoints' receiver takes every delivery, so that a message may
	// be sent again.
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	h.t.Cleanup(recv.Close)
	n := 0
	// endpoint is a new account's client, address, and endpoint page.
	endpoint := func(t *testing.T) (*client, string, string) {
		n++
		email := fmt.Sprintf("last-hook-%d@example.com", n)
		c := h.signUp(email, "a last wins password")
		c.post("/users/webhooks", url.Values{"url": {recv.URL + "/in"}, "events": {"push.created"}}).expect(t, http.StatusOK)
		m := hookLink.FindStringSubmatch(c.get("/users/webhooks").body)
		if m == nil {
			t.Fatal("no endpoint link")
		}
		return c, email, m[1]
	}
	var owner, saved string // the endpoint "webhook saved" changed, and its owner
	return []lastCase{
		{name: "webhook added", want: "webhooks.created", send: func(t *testing.T) resp {
			c := h.signUp("last-hook-new@example.com", "a last wins password")
			form := url.Values{"events": {"push.created"}}
			return c.post("/users/webhooks", twice(form, "url", "ftp://x.example", "http://127.0.0.1:9/in"))
		}},
		{name: "webhook saved", to: "/users/webhooks/*", send: func(t *testing.T) resp {
			c, email, page := endpoint(t)
			owner, saved = email, page
			return c.post(page+"/update", twice(url.Values{"events": {"push.created"}}, "enabled", "off", "on"))
		}, check: func(t *testing.T, _ resp) {
			id, _ := strconv.ParseInt(path.Base(saved), 10, 64)
			hook, err := h.svc.Webhook(context.Background(), h.user(owner), id)
			if err != nil {
				t.Fatal(err)
			}
			if !hook.Enabled {
				t.Error("the endpoint was turned off")
			}
		}},
		{name: "webhook sent again", to: "/users/webhooks/*", send: func(t *testing.T) resp {
			c, email, page := endpoint(t)
			h.create(h.user(email), fields{"payload": "last wins secret"})
			if err := h.svc.DeliverOutbox(context.Background()); err != nil {
				t.Fatal(err)
			}
			m := messageIDRE.FindStringSubmatch(c.get(page).body)
			if m == nil {
				t.Fatal("no message to send again")
			}
			r := c.post(page+"/redeliver", twice(url.Values{}, "message", "x", m[1]))
			r.body = c.get(page).body // the flash
			return r
		}, want: "webhooks.requeued"},
	}
}

// lastConfirmCases: the confirmation of a new account's address, and
// asking for its link again.
func lastConfirmCases(h *harness, box *mailbox) []lastCase {
	// pending is a new account's address, whose confirmation was emailed.
	pending := func(t *testing.T, email string) {
		pw := "a last wins password"
		if r := h.client().post("/users/sign_up", url.Values{"email": {email}, "password": {pw}, "password_confirmation": {pw}}); r.status != http.StatusOK {
			t.Fatalf("sign-up: %d", r.status)
		}
	}
	return []lastCase{
		{name: "address confirmed", to: "/dashboard", send: func(t *testing.T) resp {
			pending(t, "last-confirm@example.com")
			link := box.link(h, "last-confirm@example.com")
			form := twice(url.Values{}, service.ConfirmTokenParam, "not-the-token", link[strings.Index(link, "=")+1:])
			return h.client().post("/users/confirmation", twice(form, "password", "another password", "a last wins password"))
		}},
		{name: "confirmation asked", want: "account.check_email", send: func(t *testing.T) resp {
			pending(t, "last-again@example.com")
			return h.client().post("/users/confirmation/new", twice(url.Values{}, "email", "not an address", "last-again@example.com"))
		}},
	}
}
