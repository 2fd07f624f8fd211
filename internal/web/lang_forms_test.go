package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hush/internal/i18n"
	"hush/internal/mailtest"
	"hush/internal/push"
	"hush/internal/service"
	"hush/internal/testenv"
	"hush/internal/webhook"
)

// mailbox is the Mailpit the service sends its email to, where the links
// of reset and confirmation emails are read.
type mailbox struct{ mp *mailtest.Server }

var emailLinkRE = regexp.MustCompile(`/users/(?:password/edit\?reset_password_token|confirmation\?confirmation_token)=[A-Za-z0-9_-]+`)

// link delivers the outbox and returns the path of the link, without a
// prefix, in the last email to addr.
func (m *mailbox) link(h *harness, addr string) string {
	h.t.Helper()
	if err := h.svc.DeliverOutbox(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	msgs := m.mp.Wait(h.t, addr, 1, 10*time.Second)
	for i := len(msgs) - 1; i >= 0; i-- {
		if l := emailLinkRE.FindString(msgs[i].Text); l != "" {
			return l
		}
	}
	h.t.Fatalf("no link emailed to %s", addr)
	return ""
}

// newFormsHarness serves the pages over a service that sends email (to
// the returned mailbox) and delivers webhooks to loopback addresses;
// confirm makes new accounts confirm their address.
func newFormsHarness(t *testing.T, confirm bool) (*harness, *mailbox) {
	t.Helper()
	box := &mailbox{mp: mailtest.Start(t, mailtest.Options{})}
	sender := mailpitSender(t, box.mp)
	env := testenv.NewWithDeps(t, func(l *service.Limits) { l.Accounts.ConfirmEmail = confirm }, func(d *service.Deps) {
		d.Mail = sender
		d.Webhooks, d.WebhookAllowPrivate = webhook.New(webhook.Options{AllowPrivate: true}), true
	})
	return serveHarness(t, env, Options{}), box
}

// formAt is a form as a person finds it: on a page in the language of a
// prefix, with what they type in.
type formAt struct {
	c      *client
	page   resp       // the page that holds the form
	action string     // the form's action, without the prefix
	fields url.Values // what is typed in; the form's hidden fields are sent too
	to     string     // the answer's redirect, without the prefix (path.Match); "": a page
}

// formCase is one form of the pages and what its answer must be.
type formCase struct {
	name string
	open func(t *testing.T, prefix string) formAt
	// ask: the form asks first (docs/decisions.md, D42); its answer is the
	// question, whose own form is sent next with the same fields.
	ask bool
	// want is the catalog key of a text the answer shows, when it is a
	// page; noSwitch, that the page has no language switch.
	want     string
	noSwitch bool
}

var (
	postFormRE  = regexp.MustCompile(`(?s)<form method="post" action="([^"]*)"[^>]*>(.*?)</form>`)
	hiddenRE    = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	footerRE    = regexp.MustCompile(`(?s)<nav class="languages".*?</nav>`)
	switchRE    = regexp.MustCompile(`<a href="([^"]*)" lang="[^"]*" hreflang="([^"]*)"`)
	htmlLangRE  = regexp.MustCompile(`<html lang="([^"]*)"`)
	formsLangs  = []string{"de", "pt-BR", "ar"}
	enrolSecret = regexp.MustCompile(`id="totp-secret" class="secret-text">([A-Z2-7]+)<`)
)

// send sends the form of page whose action is action, as a browser does:
// to the address the form names, with its hidden fields and fields. The
// address must keep the page's prefix.
func send(t *testing.T, c *client, page resp, prefix, action string, fields url.Values) resp {
	t.Helper()
	for _, m := range postFormRE.FindAllStringSubmatch(page.body, -1) {
		to := html.UnescapeString(m[1])
		if to != prefix+action && to != action {
			continue
		}
		if to != prefix+action {
			t.Errorf("the form for %s posts to %s, without the page's prefix %s", action, to, prefix)
		}
		form := url.Values{}
		for _, h := range hiddenRE.FindAllStringSubmatch(m[2], -1) {
			form.Set(h[1], html.UnescapeString(h[2]))
		}
		for k, v := range fields {
			form[k] = v
		}
		return c.post(to, form)
	}
	t.Fatalf("no form for %s on the page (%d):\n%s", action, page.status, page.body)
	return resp{}
}

// checkAnswer checks an answer to a form sent under the prefix of code: a
// redirect stays under the prefix, a page speaks the language, says want,
// links only under the prefix (linksOf), and each of its language links
// opens a page (200) in its language; a page that shows something once
// has none (noSwitch).
func checkAnswer(t *testing.T, c *client, code string, r resp, to, want string, noSwitch bool) {
	t.Helper()
	prefix := "/" + code
	if to != "" {
		loc := r.header.Get("Location")
		if ok, _ := path.Match(prefix+to, loc); r.status != http.StatusSeeOther || !ok {
			t.Errorf("answer %d to %q, want 303 to %s%s", r.status, loc, prefix, to)
		}
		return
	}
	if m := htmlLangRE.FindStringSubmatch(r.body); m == nil || m[1] != code {
		t.Errorf("answer %d in %v, want %s:\n%.1500s", r.status, m, code, r.body)
	}
	text := i18n.For(code).T(want, nil)
	if text == i18n.For(i18n.Default).T(want, nil) {
		t.Fatalf("%s says %q as English does: it shows nothing", want, text)
	}
	if !strings.Contains(r.body, html.EscapeString(text)) {
		t.Errorf("answer %d lacks %q (%s)", r.status, text, want)
	}
	linksOf(t, "the answer", r, prefix)
	links := switchRE.FindAllStringSubmatch(footerRE.FindString(r.body), -1)
	if noSwitch {
		if len(links) > 0 {
			t.Errorf("a page without the switch has %d language links", len(links))
		}
		return
	}
	if len(links) != len(i18n.Languages())-1 {
		t.Errorf("%d language links, want %d", len(links), len(i18n.Languages())-1)
	}
	for _, l := range links {
		href := html.UnescapeString(l[1])
		g := c.get(href)
		if m := htmlLangRE.FindStringSubmatch(g.body); g.status != http.StatusOK || m == nil || m[1] != l[2] {
			t.Errorf("language link %s: %d in %v, want 200 in %s", href, g.status, m, l[2])
		}
	}
}

// TestFormsKeepLanguage sends every form of the pages from a page under a
// language's prefix, as a browser does: the form posts under the prefix,
// its answer is a page in that language, whose language links each open a
// page (the answer's own address takes no GET), or a redirect under the
// prefix.
func TestFormsKeepLanguage(t *testing.T) {
	h, box := newFormsHarness(t, false)
	hc, hbox := newFormsHarness(t, true)
	cases := formCases(h, box)
	cases = append(cases, confirmCases(hc, hbox)...)
	for _, code := range formsLangs {
		prefix := "/" + code
		for _, fc := range cases {
			t.Run(code+"/"+fc.name, func(t *testing.T) {
				// Each form a day later: the limits on sign-ups, sign-ins
				// and codes count per hour.
				h.clock.Advance(24 * time.Hour)
				hc.clock.Advance(24 * time.Hour)
				f := fc.open(t, prefix)
				r := send(t, f.c, f.page, prefix, f.action, f.fields)
				if fc.ask {
					checkAnswer(t, f.c, code, r, "", "confirm.cancel", false)
					r = send(t, f.c, r, prefix, f.action, f.fields)
				}
				checkAnswer(t, f.c, code, r, f.to, fc.want, fc.noSwitch)
			})
		}
	}
}

// formCases are the forms of a service without address confirmation.
func formCases(h *harness, box *mailbox) []formCase {
	n := 0
	// account is a new account's address, password and signed-in client.
	account := func() (string, string, *client) {
		n++
		email := fmt.Sprintf("forms-%d@example.com", n)
		return email, "a forms password", h.signUp(email, "a forms password")
	}
	return slices.Concat(recipientCases(h), creatorCases(h, account), signInCases(h, account),
		accountCases(h, box, account), twoFactorCases(h, account), adminCases(h, account))
}

// recipientCases: the retrieval step, the passphrase, a reload of either,
// and a viewer's deletion.
func recipientCases(h *harness) []formCase {
	step := func(t *testing.T, prefix string) formAt {
		tok := h.create(nil, fields{"payload": "forms secret", "retrieval_step": "true", "expire_after_views": "5"})
		c := h.client()
		return formAt{c: c, page: c.get(prefix + "/p/" + tok + "/r"), action: "/p/" + tok + "/r"}
	}
	passphrase := func(typed string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			tok := h.create(nil, fields{"payload": "forms secret", "passphrase": "sesame", "expire_after_views": "5"})
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/p/" + tok + "/passphrase"), action: "/p/" + tok + "/passphrase",
				fields: url.Values{"passphrase": {typed}}}
		}
	}
	// again is open's form once it has been sent: a reload.
	again := func(open func(*testing.T, string) formAt) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			f := open(t, prefix)
			send(t, f.c, f.page, prefix, f.action, f.fields).expect(t, http.StatusOK)
			return f
		}
	}
	return []formCase{
		{name: "reveal", open: step, want: "secret.title", noSwitch: true},
		{name: "reveal again", open: again(step), want: "stale.title"},
		{name: "wrong passphrase", open: passphrase("wrong"), want: "passphrase.wrong"},
		{name: "right passphrase", open: passphrase("sesame"), want: "secret.title", noSwitch: true},
		{name: "passphrase again", open: again(passphrase("sesame")), want: "stale.title"},
		{name: "viewer deletes", ask: true, want: "message.deleted.title", open: func(t *testing.T, prefix string) formAt {
			tok := h.create(nil, fields{"payload": "forms secret", "deletable_by_viewer": "true", "expire_after_views": "5"})
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/p/" + tok), action: "/p/" + tok + "/expire"}
		}},
	}
}

// creatorCases: the create form, made, refused and sent after the
// session ended; an owner's expiry; the token page.
func creatorCases(h *harness, account func() (string, string, *client)) []formCase {
	create := func(kind, payload string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/?kind=" + kind), action: "/", fields: url.Values{"payload": {payload}}}
		}
	}
	made := create("text", "forms payload")
	return []formCase{
		{name: "create", open: func(t *testing.T, prefix string) formAt {
			f := made(t, prefix)
			f.to = "/p/*/preview"
			return f
		}},
		{name: "create refused", open: create("url", "javascript:x"), want: "create.fix_fields"},
		{name: "create signed out", want: "create.signed_out", open: func(t *testing.T, prefix string) formAt {
			_, _, c := account()
			page := c.get(prefix + "/")
			c.post("/users/sign_out", nil)
			return formAt{c: c, page: page, action: "/", fields: url.Values{"payload": {"forms payload"}}}
		}},
		{name: "owner expires", ask: true, open: func(t *testing.T, prefix string) formAt {
			email, _, c := account()
			tok := h.create(h.user(email), fields{"payload": "forms secret"})
			return formAt{c: c, page: c.get(prefix + "/p/" + tok + "/audit"), action: "/p/" + tok + "/expire", to: "/p/" + tok + "/audit"}
		}},
		{name: "token", want: "token.new", noSwitch: true, open: func(t *testing.T, prefix string) formAt {
			_, _, c := account()
			return formAt{c: c, page: c.get(prefix + "/users/token"), action: "/users/token"}
		}},
		{name: "token replaced", ask: true, want: "token.replaced", noSwitch: true, open: func(t *testing.T, prefix string) formAt {
			_, _, c := account()
			c.post("/users/token", nil).expect(t, http.StatusOK)
			return formAt{c: c, page: c.get(prefix + "/users/token"), action: "/users/token"}
		}},
	}
}

// signInCases: sign-up, sign-in and sign-out, right and wrong, and a form
// the service refuses to read.
func signInCases(h *harness, account func() (string, string, *client)) []formCase {
	anon := func(page, action string, typed url.Values, to string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			c := h.client()
			return formAt{c: c, page: c.get(prefix + page), action: action, fields: typed, to: to}
		}
	}
	signIn := func(wrong bool, to string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			email, pw, _ := account()
			if wrong {
				pw = "not the password"
			}
			return anon("/users/sign_in", "/users/sign_in", url.Values{"email": {email}, "password": {pw}}, to)(t, prefix)
		}
	}
	var signUps int
	signUp := func(t *testing.T, prefix string) formAt {
		signUps++
		pw := "a forms password"
		return anon("/users/sign_up", "/users/sign_up", url.Values{"email": {fmt.Sprintf("new-%d@example.com", signUps)},
			"password": {pw}, "password_confirmation": {pw}}, "/dashboard")(t, prefix)
	}
	return []formCase{
		{name: "sign up", open: signUp},
		{name: "sign up refused", want: "account.msg.password_short", open: anon("/users/sign_up", "/users/sign_up",
			url.Values{"email": {"short@example.com"}, "password": {"short"}, "password_confirmation": {"short"}}, "")},
		{name: "sign in", open: signIn(false, "/dashboard")},
		{name: "sign in refused", want: "account.msg.bad_credentials", open: signIn(true, "")},
		{name: "sign in unreadable", want: "message.bad_request.title", open: anon("/users/sign_in", "/users/sign_in",
			url.Values{"email": {"a\x00@example.com"}, "password": {"x"}}, "")},
		{name: "sign out", open: func(t *testing.T, prefix string) formAt {
			_, _, c := account()
			return formAt{c: c, page: c.get(prefix + "/dashboard"), action: "/users/sign_out", to: "/"}
		}},
	}
}

// accountCases: the account page's forms, and a password reset.
func accountCases(h *harness, box *mailbox, account func() (string, string, *client)) []formCase {
	edit := func(action string, typed func(pw, code string) url.Values) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			_, pw, c := account()
			return formAt{c: c, page: c.get(prefix + "/users/edit"), action: action, fields: typed(pw, prefix[1:])}
		}
	}
	password := func(current string) func(pw, code string) url.Values {
		return func(pw, _ string) url.Values {
			if current == "" {
				current = pw
			}
			return url.Values{"current_password": {current}, "password": {"a new password"}, "password_confirmation": {"a new password"}}
		}
	}
	reset := func(typed string, spent bool) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			email, _, _ := account()
			if err := h.svc.RequestPasswordReset(context.Background(), email, h.url, push.Meta{}); err != nil {
				t.Fatal(err)
			}
			link := box.link(h, email)
			c := h.client()
			page := c.get(prefix + link)
			if spent {
				tok := link[strings.Index(link, "=")+1:]
				if _, err := h.svc.ResetPassword(context.Background(), tok, "spent password", "spent password"); err != nil {
					t.Fatal(err)
				}
			}
			return formAt{c: c, page: page, action: "/users/password/edit",
				fields: url.Values{"password": {typed}, "password_confirmation": {typed}}}
		}
	}
	return []formCase{
		{name: "password", want: "account.password_changed", open: edit("/users/password", password(""))},
		{name: "password refused", want: "account.msg.wrong_password", open: edit("/users/password", password("not it"))},
		{name: "receipts", want: "account.receipts_saved", open: edit("/users/receipts", func(string, string) url.Values {
			return url.Values{"receipt_on_view": {"on"}}
		})},
		{name: "language", want: "account.language_saved", open: edit("/users/language", func(_, code string) url.Values {
			return url.Values{"preferred_language": {code}}
		})},
		{name: "delete account", ask: true, want: "account.deleted_title", open: edit("/users/delete", func(pw, _ string) url.Values {
			return url.Values{"current_password": {pw}}
		})},
		{name: "delete account refused", ask: true, want: "account.msg.not_deleted", open: edit("/users/delete", func(string, string) url.Values {
			return url.Values{"current_password": {"not it"}}
		})},
		{name: "reset asked", want: "account.check_email", open: func(t *testing.T, prefix string) formAt {
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/users/password/new"), action: "/users/password/new",
				fields: url.Values{"email": {"someone@example.com"}}}
		}},
		{name: "reset", want: "password.changed_title", open: reset("a reset password", false)},
		{name: "reset refused", want: "account.msg.password_short", open: reset("short", false)},
		{name: "reset spent", want: "account.link_dead_title", open: reset("a reset password", true)},
	}
}

// twoFactorCases: setting up, turning on and off the second factor, and
// the code step of a sign-in.
func twoFactorCases(h *harness, account func() (string, string, *client)) []formCase {
	// enrolled is an account with the second factor on, a minute after
	// its code was used.
	enrolled := func() (string, string, *client, string, []string) {
		email, pw, c := account()
		secret, codes := h.enrol(c, pw)
		h.clock.Advance(time.Minute)
		return email, pw, c, secret, codes
	}
	enable := func(right bool) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			_, pw, c := account()
			page := c.post(prefix+"/users/two_factor/setup", nil)
			m := enrolSecret.FindStringSubmatch(page.body)
			if m == nil {
				t.Fatalf("no secret on the set-up page:\n%s", page.body)
			}
			code := h.totpCode(m[1])
			if !right {
				code = "000000"
			}
			return formAt{c: c, page: page, action: "/users/two_factor/enable", fields: url.Values{"current_password": {pw}, "code": {code}}}
		}
	}
	// codeStep is a sign-in at its code step, with what code gives.
	codeStep := func(code func(secret string, recovery []string) string, to string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			email, pw, _, secret, recovery := enrolled()
			c := h.client()
			if r := c.post("/users/sign_in", url.Values{"email": {email}, "password": {pw}}); r.status != http.StatusSeeOther {
				t.Fatalf("sign-in: %d", r.status)
			}
			return formAt{c: c, page: c.get(prefix + "/users/sign_in/two_factor"), action: "/users/sign_in/two_factor",
				fields: url.Values{"code": {code(secret, recovery)}}, to: to}
		}
	}
	rightCode := func(secret string, _ []string) string { return h.totpCode(secret) }
	return []formCase{
		{name: "two factor set-up", want: "twofactor.scan", open: func(t *testing.T, prefix string) formAt {
			_, _, c := account()
			return formAt{c: c, page: c.get(prefix + "/users/two_factor"), action: "/users/two_factor/setup"}
		}},
		{name: "two factor on", want: "twofactor.codes_page_title", noSwitch: true, open: enable(true)},
		{name: "two factor wrong code", want: "account.msg.bad_code", open: enable(false)},
		{name: "two factor off", open: func(t *testing.T, prefix string) formAt {
			_, pw, c, secret, _ := enrolled()
			return formAt{c: c, page: c.get(prefix + "/users/two_factor"), action: "/users/two_factor/disable",
				fields: url.Values{"current_password": {pw}, "code": {h.totpCode(secret)}}, to: "/users/two_factor"}
		}},
		{name: "sign in with 2FA", open: func(t *testing.T, prefix string) formAt {
			email, pw, _, _, _ := enrolled()
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/users/sign_in"), action: "/users/sign_in",
				fields: url.Values{"email": {email}, "password": {pw}}, to: "/users/sign_in/two_factor"}
		}},
		{name: "sign-in code", open: codeStep(rightCode, "/dashboard")},
		{name: "sign-in recovery code", open: codeStep(func(_ string, r []string) string { return r[0] }, "/users/two_factor")},
		{name: "sign-in wrong code", want: "account.msg.bad_code", open: codeStep(func(string, []string) string { return "000000" }, "")},
		{name: "sign-in code too late", want: "account.msg.sign_in_expired", open: func(t *testing.T, prefix string) formAt {
			f := codeStep(rightCode, "")(t, prefix)
			h.clock.Advance(service.SignInCodeTimeout + time.Minute)
			return f
		}},
	}
}

// adminCases: an admin's action on an account, and the webhook pages, an
// account's and the instance's.
func adminCases(h *harness, account func() (string, string, *client)) []formCase {
	// admin is a new admin's client and address.
	admin := func() (*client, string) {
		email, _, c := account()
		h.promote(email)
		return c, email
	}
	user := func() (*client, string) {
		email, _, c := account()
		return c, email
	}
	act := func(action, to string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			a, _ := admin()
			email, _, _ := account()
			id := h.user(email).ID
			f := formAt{c: a, page: a.get(fmt.Sprintf("%s/admin/users/%d", prefix, id)), action: fmt.Sprintf("/admin/users/%d/%s", id, action),
				to: fmt.Sprintf("/admin/users/%d", id)}
			if to != "" {
				f.to = to
			}
			return f
		}
	}
	hooks := func(base string, who func() (*client, string), typed url.Values) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			c, _ := who()
			return formAt{c: c, page: c.get(prefix + base), action: base, fields: typed}
		}
	}
	// hookAct is an action on the page of a new endpoint under base; back,
	// that its answer is the list.
	hookAct := func(base string, who func() (*client, string), action string, typed url.Values, back bool) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			c, email := who()
			c.post(base, url.Values{"url": {"http://127.0.0.1:9/in"}, "events": {"push.created"}}).expect(t, http.StatusOK)
			m := hookLink.FindStringSubmatch(c.get(base).body)
			if m == nil {
				t.Fatal("no endpoint link")
			}
			page := m[1]
			if action == "redeliver" {
				// A delivery, which fails: there is a message to send again.
				h.create(h.user(email), fields{"payload": "forms secret"})
				if err := h.svc.DeliverOutbox(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			f := formAt{c: c, page: c.get(prefix + page), action: page + "/" + action, fields: typed, to: page}
			if back {
				f.to = base
			}
			return f
		}
	}
	created := url.Values{"url": {"http://127.0.0.1:9/in"}, "events": {"push.created"}}
	return []formCase{
		{name: "admin disables", ask: true, open: act("disable", "")},
		{name: "admin deletes", ask: true, open: act("delete", "/admin/users")},
		{name: "webhook added", want: "webhooks.created", noSwitch: true, open: hooks("/users/webhooks", user, created)},
		{name: "webhook refused", want: "webhooks.msg.url_https", open: hooks("/users/webhooks", user,
			url.Values{"url": {"ftp://x.example"}, "events": {"push.created"}})},
		{name: "webhook saved", open: hookAct("/users/webhooks", user, "update", url.Values{"events": {"push.created"}, "enabled": {"on"}}, false)},
		{name: "webhook sent again", open: hookAct("/users/webhooks", user, "redeliver", nil, false)},
		{name: "webhook deleted", ask: true, open: hookAct("/users/webhooks", user, "delete", nil, true)},
		{name: "instance webhook added", want: "webhooks.created", noSwitch: true, open: hooks("/admin/webhooks", admin, created)},
		{name: "instance webhook deleted", ask: true, open: hookAct("/admin/webhooks", admin, "delete", nil, true)},
	}
}

// confirmCases are the forms of a service whose new accounts confirm
// their address.
func confirmCases(h *harness, box *mailbox) []formCase {
	n := 0
	// pending is a new account's address, whose confirmation was emailed.
	pending := func(t *testing.T) string {
		n++
		email := fmt.Sprintf("pending-%d@example.com", n)
		pw := "a forms password"
		if r := h.client().post("/users/sign_up", url.Values{"email": {email}, "password": {pw}, "password_confirmation": {pw}}); r.status != http.StatusOK {
			t.Fatalf("sign-up: %d", r.status)
		}
		return email
	}
	confirm := func(spent bool, typed string) func(t *testing.T, prefix string) formAt {
		return func(t *testing.T, prefix string) formAt {
			link := box.link(h, pending(t))
			c := h.client()
			page := c.get(prefix + link)
			if spent {
				tok := link[strings.Index(link, "=")+1:]
				if _, err := h.svc.ConfirmAccount(context.Background(), tok, "a forms password", push.Meta{IP: "192.0.2.1"}); err != nil {
					t.Fatal(err)
				}
			}
			to := ""
			if !spent && typed == "a forms password" {
				to = "/dashboard"
			}
			return formAt{c: c, page: page, action: "/users/confirmation", fields: url.Values{"password": {typed}}, to: to}
		}
	}
	return []formCase{
		{name: "sign up to confirm", want: "signup.confirm_title", open: func(t *testing.T, prefix string) formAt {
			n++
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/users/sign_up"), action: "/users/sign_up", fields: url.Values{
				"email": {fmt.Sprintf("confirm-%d@example.com", n)}, "password": {"a forms password"}, "password_confirmation": {"a forms password"}}}
		}},
		{name: "confirmed", open: confirm(false, "a forms password")},
		{name: "confirmation with another password", want: "account.msg.confirm_password", open: confirm(false, "another password")},
		{name: "confirmation spent", want: "account.link_dead_title", open: confirm(true, "a forms password")},
		{name: "confirmation asked again", want: "account.check_email", open: func(t *testing.T, prefix string) formAt {
			email := pending(t)
			c := h.client()
			return formAt{c: c, page: c.get(prefix + "/users/confirmation/new"), action: "/users/confirmation/new",
				fields: url.Values{"email": {email}}}
		}},
	}
}

// TestLanguageChosenUnderPrefix: the language form, sent from a page under
// a prefix, answers in the language chosen, under its prefix; the
// browser's language, chosen there, answers without a prefix.
func TestLanguageChosenUnderPrefix(t *testing.T) {
	h, _ := newFormsHarness(t, false)
	c := h.signUp("chooser@example.com", "a chooser password")
	fr := send(t, c, c.get("/de/users/edit"), "/de", "/users/language", url.Values{"preferred_language": {"fr"}})
	fr.expect(t, http.StatusOK)
	fr.has(t, `<html lang="fr"`, html.EscapeString(i18n.For("fr").T("account.language_saved", nil)),
		`action="/fr/users/password"`, `<a href="/de/users/edit" lang="de"`)
	if u := h.user("chooser@example.com"); u.Language != "fr" {
		t.Errorf("stored %q, want fr", u.Language)
	}
	browser := c.post("/de/users/language", url.Values{"preferred_language": {""}}, "Accept-Language", "sv")
	browser.expect(t, http.StatusOK)
	browser.has(t, `<html lang="sv"`, html.EscapeString(i18n.For("sv").T("account.language_saved", nil)),
		`action="/users/password"`, `<a href="/de/users/edit" lang="de"`)
}

// TestEmailedLinkPagesSwitch: the pages of a reset and of a confirmation
// link, whose token is in the query, link the same page, token and all, in
// the other languages; without the token each says the link is dead.
func TestEmailedLinkPagesSwitch(t *testing.T) {
	h, box := newFormsHarness(t, false)
	h.signUp("resets@example.com", "a reset password")
	if err := h.svc.RequestPasswordReset(context.Background(), "resets@example.com", h.url, push.Meta{}); err != nil {
		t.Fatal(err)
	}
	hc, hbox := newFormsHarness(t, true)
	if r := hc.client().post("/users/sign_up", url.Values{"email": {"confirms@example.com"}, "password": {"a forms password"},
		"password_confirmation": {"a forms password"}}); r.status != http.StatusOK {
		t.Fatalf("sign-up: %d", r.status)
	}
	for _, l := range []struct {
		h          *harness
		link, want string
	}{{h, box.link(h, "resets@example.com"), "password.choose_title"}, {hc, hbox.link(hc, "confirms@example.com"), "signup.confirm_title"}} {
		c := l.h.client()
		page := c.get("/de" + l.link)
		page.expect(t, http.StatusOK)
		page.has(t, `<a href="/ja`+l.link+`" lang="ja"`)
		checkAnswer(t, c, "de", page, "", l.want, false)
	}
}

// TestBrowserFormsKeepLanguage: in Chromium (whose browser language is
// English), a person signs up on the German sign-up page: the refused form
// comes back in German, its switch to French opens the French form, which
// signs them up onto the French dashboard; replacing the token through the
// script's dialog answers in French too.
func TestBrowserFormsKeepLanguage(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	p := b.person()
	where := func() string {
		return run(b, p, chromedp.Evaluate[string](`document.documentElement.lang + " " + location.pathname`))
	}
	b.do(p, chromedp.Navigate(h.url+"/de/users/sign_up"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), "french@example.com"), chromedp.SendKeys(css("#password"), "a long password"),
		chromedp.SendKeys(css("#password_confirmation"), "another password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css(".alert")))
	if got := where(); got != "de /de/users/sign_up" {
		t.Errorf("refused sign-up: %q", got)
	}
	b.do(p, chromedp.Click(css(`nav.languages a[hreflang="fr"]`)), chromedp.WaitNotPresent(css(".alert")),
		chromedp.WaitVisible(css("#email")))
	if got := where(); got != "fr /fr/users/sign_up" {
		t.Fatalf("the French switch: %q", got)
	}
	b.do(p, chromedp.SendKeys(css("#email"), "french@example.com"), chromedp.SendKeys(css("#password"), "a long password"),
		chromedp.SendKeys(css("#password_confirmation"), "a long password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("nav.tabs")))
	if got := where(); got != "fr /fr/dashboard" {
		t.Errorf("signed up: %q", got)
	}
	b.do(p, chromedp.Navigate(h.url+"/fr/users/token"), chromedp.Click(css("#create-token")), chromedp.WaitVisible(css("#token")),
		chromedp.Navigate(h.url+"/fr/users/token"), chromedp.Click(css("form[data-confirm] button")),
		chromedp.WaitVisible(css("#confirm-ok")), chromedp.Click(css("#confirm-ok")), chromedp.WaitVisible(css("#token")))
	if got := where(); got != "fr /fr/users/token" {
		t.Errorf("token replaced: %q", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
