package web

import (
	"context"
	"html"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// The links of a page keep the language its address named
// (docs/decisions.md, D67): the menu, the admin tabs, the "back" links and
// every other link to a page of this site, through single sign-on too.

var (
	hrefRE     = regexp.MustCompile(`<a [^>]*?href="([^"]*)"`)
	linksLangs = []string{"de", "ar"}
)

// asIs is an address of this site that a page links without a prefix in
// every language: the API's documentation, which the API serves beside
// the pages, not under a prefix. The page's assets (/static/) are not
// pages.
var asIs = []string{"/help/api"}

// linksOf are the addresses of this site that page (at where) links
// outside its language switch, each of which must keep prefix: it fails
// on one that does not, and returns the others.
func linksOf(t *testing.T, where string, page resp, prefix string) []string {
	t.Helper()
	var out []string
	for _, m := range hrefRE.FindAllStringSubmatch(footerRE.ReplaceAllString(page.body, ""), -1) {
		href := html.UnescapeString(m[1])
		if !strings.HasPrefix(href, "/") || strings.HasPrefix(href, "//") || strings.HasPrefix(href, "/static/") || slices.Contains(asIs, href) {
			continue
		}
		if !strings.HasPrefix(href, prefix+"/") {
			t.Errorf("%s links %s, without its prefix %s", where, href, prefix)
			continue
		}
		out = append(out, href)
	}
	return out
}

// walk opens, as c, the addresses starts and every page their links lead
// to: each must be a page (200) in the language code, or a redirect under
// its prefix, and link only under the prefix. It returns the addresses
// opened, without the prefix.
func walk(t *testing.T, c *client, code string, starts ...string) []string {
	t.Helper()
	prefix := "/" + code
	var seen []string
	for queue := slices.Clone(starts); len(queue) > 0 && len(seen) < 200; {
		p := queue[0]
		queue = queue[1:]
		if slices.Contains(seen, strings.TrimPrefix(p, prefix)) {
			continue
		}
		seen = append(seen, strings.TrimPrefix(p, prefix))
		r := c.get(p)
		if r.status == http.StatusSeeOther || r.status == http.StatusMovedPermanently || r.status == http.StatusFound {
			if loc := r.header.Get("Location"); strings.HasPrefix(loc, prefix+"/") {
				queue = append(queue, loc)
			} else {
				t.Errorf("%s redirects to %s, without its prefix", p, loc)
			}
			continue
		}
		if m := htmlLangRE.FindStringSubmatch(r.body); r.status != http.StatusOK || m == nil || m[1] != code {
			t.Errorf("%s: %d in %v, want 200 in %s", p, r.status, m, code)
		}
		queue = append(queue, linksOf(t, p, r, prefix)...)
	}
	return seen
}

// reached fails unless each pattern (path.Match, without the prefix)
// matches an address of seen.
func reached(t *testing.T, seen []string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !slices.ContainsFunc(seen, func(s string) bool { ok, _ := path.Match(p, s); return ok }) {
			t.Errorf("the walk did not reach %s; it opened %q", p, seen)
		}
	}
}

// TestLinksKeepLanguage walks the pages under the prefixes of German and
// Arabic, from the create page and a recipient's pages, as a visitor, an
// admin with pushes and webhooks, an account that must set up its second
// factor first, and a visitor where new accounts confirm their address:
// every link of every page leads under the prefix, to a page in its
// language, and the walk reaches every page of the menus.
func TestLinksKeepLanguage(t *testing.T) {
	h, _ := newFormsHarness(t, false)
	hc, _ := newFormsHarness(t, true)
	he := newHarnessLimits(t, func(_ *Options, l *service.Limits) { l.RequireTwoFactor = true })
	admin := h.signUp("links-admin@example.com", "a links password")
	h.signUp("links-user@example.com", "a links password")
	u := h.promote("links-admin@example.com")
	h.create(u, fields{"payload": "links secret", "name": "kept"})
	gone := h.create(u, fields{"payload": "links secret", "name": "gone"})
	if _, err := h.svc.Expire(context.Background(), gone, u, push.Meta{}); err != nil {
		t.Fatal(err)
	}
	hook := url.Values{"url": {"http://127.0.0.1:9/in"}, "events": {"push.created"}}
	admin.post("/users/webhooks", hook).expect(t, http.StatusOK)
	admin.post("/admin/webhooks", hook).expect(t, http.StatusOK)
	step := h.create(nil, fields{"payload": "links secret", "retrieval_step": "true", "expire_after_views": "5"})
	locked := h.create(nil, fields{"payload": "links secret", "passphrase": "sesame"})
	enrolling := he.client()
	if r := enrolling.post("/users/sign_up", url.Values{"email": {"links-enrol@example.com"}, "password": {"a links password"},
		"password_confirmation": {"a links password"}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign-up: %d", r.status)
	}
	for _, code := range linksLangs {
		prefix := "/" + code
		t.Run(code, func(t *testing.T) {
			reached(t, walk(t, admin, code, prefix+"/", prefix+"/api_tokens"), "/", "/?kind=*", "/dashboard", "/dashboard?tab=expired",
				"/p/*/audit", "/p/*/preview", "/users/token", "/users/edit", "/users/two_factor", "/users/webhooks", "/users/webhooks/*",
				"/admin", "/admin/users", "/admin/users/*", "/admin/log", "/admin/webhooks", "/admin/webhooks/*")
			reached(t, walk(t, h.client(), code, prefix+"/", prefix+"/p/"+step+"/r", prefix+"/p/"+locked+"/passphrase", prefix+"/p/none"),
				"/users/sign_in", "/users/sign_up", "/users/password/new")
			reached(t, walk(t, hc.client(), code, prefix+"/users/sign_in"), "/users/confirmation/new")
			reached(t, walk(t, enrolling, code, prefix+"/"), "/users/two_factor")
		})
	}
}

// templateHrefRE is a link's address as a template writes it.
var templateHrefRE = regexp.MustCompile(`href="([^"]*)"`)

// wholeAddresses are the template values a link may have that are
// addresses already: the language switch's, the brand's files, "Cancel"
// (which keeps the prefix where it is made, confirm.go), a URL push's
// payload and a file's download.
var wholeAddresses = []string{"{{.Href}}", "{{$l.Href}}", "{{.}}", "{{.Cancel}}", "{{.Payload}}", "{{.URL}}"}

// TestTemplateLinksKeepPrefix: every link a template writes to a page of
// this site starts with the page's prefix, the ones the walk does not
// reach too (the next and previous pages of a long list).
func TestTemplateLinksKeepPrefix(t *testing.T) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(templateFS, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range templateHrefRE.FindAllStringSubmatch(string(b), -1) {
			href := m[1]
			switch {
			case strings.HasPrefix(href, "{{$.Prefix}}"), strings.HasPrefix(href, "{{.Prefix}}"):
			case strings.HasPrefix(href, "/static/"), slices.Contains(asIs, href), slices.Contains(wholeAddresses, href):
			default:
				t.Errorf("%s links %s, without the page's prefix", n, href)
			}
		}
	}
}

// TestNotFoundSwitchLeadsHome: a page not found, under a prefix, speaks
// its language, its links keep the prefix, and its language switch leads
// to each language's create page, since the address it names is not
// found under any prefix; an admin's unknown account too.
func TestNotFoundSwitchLeadsHome(t *testing.T) {
	h := newHarness(t, nil)
	admin := h.signUp("lost-admin@example.com", "a lost password")
	h.promote("lost-admin@example.com")
	for _, code := range linksLangs {
		prefix := "/" + code
		for _, lost := range []struct {
			c    *client
			path string
		}{{h.client(), "/no-such-page"}, {h.client(), "/de/users/sign_in"}, {admin, "/admin/users/999999"}} {
			t.Run(code+lost.path, func(t *testing.T) {
				r := lost.c.get(prefix + lost.path)
				if r.status != http.StatusNotFound {
					t.Fatalf("%d, want 404", r.status)
				}
				linksOf(t, prefix+lost.path, r, prefix)
				for _, l := range switchRE.FindAllStringSubmatch(footerRE.FindString(r.body), -1) {
					if href := html.UnescapeString(l[1]); href != "/"+l[2]+"/" {
						t.Errorf("the switch to %s links %s, want /%s/", l[2], href, l[2])
					}
				}
				checkAnswer(t, lost.c, code, r, "", "message.not_found.title", false)
			})
		}
	}
}

// ssoLinkRE is the sign-in page's single sign-on button.
var ssoLinkRE = regexp.MustCompile(`<a href="([^"]*)" class="button primary" id="sso">`)

// TestSSOKeepsLanguage: single sign-on started from the sign-in page
// under a prefix comes back to it: a refusal is the sign-in page in that
// language, whose switch leads to the sign-in pages, and whose password
// form (the identity waiting for its account's password) signs in under
// the prefix; a sign-in lands on the dashboard under the prefix. The
// provider's callback address stays the one registered. An attempt
// started without a prefix, in the same browser afterwards, lands without
// one.
func TestSSOKeepsLanguage(t *testing.T) {
	for _, code := range linksLangs {
		prefix := "/" + code
		t.Run(code, func(t *testing.T) {
			h := startSSO(t, service.SSORules{})
			h.signUp("alice@corp.example", "alice-password")
			c := h.client()
			page := c.get(prefix + "/users/sign_in")
			m := ssoLinkRE.FindStringSubmatch(page.body)
			if m == nil || m[1] != prefix+"/users/sso" {
				t.Fatalf("the sign-on button links %v, want %s/users/sso", m, prefix)
			}
			// Bob has no account here.
			checkAnswer(t, c, code, c.callback(h.providerLoginAt(c, ssoBob, m[1])), "", "account.msg.sso_no_account", false)
			// Alice's identity waits for her account's password.
			first := c.callback(h.providerLoginAt(c, ssoAlice, m[1]))
			checkAnswer(t, c, code, first, "", "account.msg.sso_sign_in_first", false)
			r := send(t, c, first, prefix, "/users/sign_in", url.Values{"email": {"alice@corp.example"}, "password": {"alice-password"}})
			checkAnswer(t, c, code, r, "/dashboard", "", false)
			// Linked, she signs in through the provider alone.
			c2 := h.client()
			cb := h.providerLoginAt(c2, ssoAlice, m[1])
			if !strings.HasPrefix(cb, h.url+"/users/sso/callback?") {
				t.Errorf("the provider sends the browser back to %s", cb)
			}
			req, _ := http.NewRequest(http.MethodGet, cb, nil)
			back := c2.do(req)
			checkAnswer(t, c2, code, back, "/dashboard", "", false)
			dash := c2.get(back.header.Get("Location"))
			if lang := htmlLangRE.FindStringSubmatch(dash.body); dash.status != http.StatusOK || lang == nil || lang[1] != code {
				t.Errorf("the dashboard: %d in %v, want 200 in %s", dash.status, lang, code)
			}
			c2.post(prefix+"/users/sign_out", nil)
			req, _ = http.NewRequest(http.MethodGet, h.providerLoginAt(c2, ssoAlice, "/users/sso"), nil)
			if plain := c2.do(req); plain.header.Get("Location") != "/dashboard" {
				t.Errorf("a sign-on started without a prefix: %d to %q, want /dashboard", plain.status, plain.header.Get("Location"))
			}
		})
	}
}

// TestShownOnceHasNoSwitch: a page that shows something once, under a
// prefix (a new API token, the recovery codes, a new webhook's secret),
// has no language switch, which would lose what it shows; its links keep
// the prefix. The pages the forms are on keep their switch.
func TestShownOnceHasNoSwitch(t *testing.T) {
	h, _ := newFormsHarness(t, false)
	for _, code := range linksLangs {
		prefix := "/" + code
		t.Run(code, func(t *testing.T) {
			email := "once-" + code + "@example.com"
			c := h.signUp(email, "a once password")
			h.promote(email)
			setup := c.post(prefix+"/users/two_factor/setup", nil)
			secret := enrolSecret.FindStringSubmatch(setup.body)
			if secret == nil {
				t.Fatalf("no secret on the set-up page:\n%s", setup.body)
			}
			hook := url.Values{"url": {"http://127.0.0.1:9/in"}, "events": {"push.created"}}
			for _, once := range []struct {
				page, action string
				fields       url.Values
				shown        *regexp.Regexp
			}{
				{"/users/token", "/users/token", nil, regexp.MustCompile(`id="token" value="[^"]+"`)},
				{"/users/two_factor", "/users/two_factor/enable", url.Values{"current_password": {"a once password"},
					"code": {h.totpCode(secret[1])}}, recoveryRE},
				{"/users/webhooks", "/users/webhooks", hook, regexp.MustCompile(`id="secret" value="[^"]+"`)},
				{"/admin/webhooks", "/admin/webhooks", hook, regexp.MustCompile(`id="secret" value="[^"]+"`)},
			} {
				form := c.get(prefix + once.page)
				if n := len(switchRE.FindAllString(footerRE.FindString(form.body), -1)); n != len(i18n.Languages())-1 {
					t.Errorf("%s: %d language links, want %d", once.page, n, len(i18n.Languages())-1)
				}
				r := send(t, c, form, prefix, once.action, once.fields)
				if r.status != http.StatusOK || !once.shown.MatchString(r.body) {
					t.Fatalf("%s: %d, nothing shown:\n%s", once.action, r.status, r.body)
				}
				if strings.Contains(r.body, `<nav class="languages"`) {
					t.Errorf("%s: the page that shows it once has a language switch", once.action)
				}
				linksOf(t, once.action, r, prefix)
			}
		})
	}
}
