package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// adminSame are the words an admin page may show unchanged in any
// language: names of things, and what the server or its operator wrote.
var adminSame = []string{"Webhooks", "SSO", "2FA", "hush user", "PWP__EXAMPLE_NAME", "example value", "test"}

// cognates are the words a language writes as English does.
var cognates = map[string][]string{
	"de": {"Pushes", "Administrator", "Admin", "Version", "Status"},
	"fr": {"Administration", "Administration · Hush"},
	"es": {"no"},
	"it": {"no", "Account", "Database", "password"},
	"nl": {"Accounts", "Accounts · Hush", "Account", "Pushes"},
	"pl": {"Administrator"},
	"sv": {"Administration", "Administration · Hush", "admin", "text", "Version"},
}

// sameAsData is a text an admin page takes from its data: an email, a date
// (Swedish writes it as English does), a size.
var sameAsData = regexp.MustCompile(`@example\.com|^[0-9/.,:\- ،]+UTC$|^[0-9.,\s]*\(?[0-9.,\s]+ (bytes?|[KMGT]iB)\)?$`)

// adminView is one admin page, fetched under a language's prefix.
type adminView struct {
	name string
	get  func(prefix string) resp
}

// adminViews are the admin pages of h, seen by the admin client a: the
// overview, the account list (all, a match, none), an account's page
// (enabled with a token, disabled with 2FA badges, the admin's own), the
// confirmation of an action, the notice after one, the log, and the
// refusals.
func adminViews(h *harness, a, user *client) []adminView {
	h.t.Helper()
	admin := h.user("admin@example.com")
	v := h.user("victim@example.com")
	if _, err := h.svc.ReplaceToken(context.Background(), v); err != nil {
		h.t.Fatal(err)
	}
	d := h.user("gone@example.com")
	if _, err := h.svc.Administer(context.Background(), push.AdminActor{Name: "test"}, push.AdminDisable, d.ID); err != nil {
		h.t.Fatal(err)
	}
	for _, kind := range []string{"text", "url", "qr"} {
		payload := "payload"
		if kind == "url" {
			payload = "https://example.com/"
		}
		h.create(nil, fields{"kind": kind, "payload": payload})
	}
	get := func(p string) func(string) resp { return func(prefix string) resp { return a.get(prefix + p) } }
	victim := fmt.Sprintf("/admin/users/%d", v.ID)
	return []adminView{
		{"overview", get("/admin")},
		{"accounts", get("/admin/users")},
		{"search", get("/admin/users?q=victim")},
		{"search without match", get("/admin/users?q=nobody-here")},
		{"account", get(victim)},
		{"disabled account", get(fmt.Sprintf("/admin/users/%d", d.ID))},
		{"own account", get(fmt.Sprintf("/admin/users/%d", admin.ID))},
		{"confirmation", func(prefix string) resp { return a.post(prefix+victim+"/disable", nil) }},
		{"notice", func(prefix string) resp {
			r := a.post(prefix+victim+"/revoke_sessions", url.Values{"confirm": {"yes"}})
			if r.status != http.StatusSeeOther || r.header.Get("Location") != prefix+victim {
				h.t.Fatalf("revoke_sessions under %q: %d %q", prefix, r.status, r.header.Get("Location"))
			}
			return a.get(r.header.Get("Location"))
		}},
		{"log", get("/admin/log")},
		{"own account refused", func(prefix string) resp {
			return a.post(prefix+fmt.Sprintf("/admin/users/%d/disable", admin.ID), url.Values{"confirm": {"yes"}})
		}},
		{"not an admin", func(prefix string) resp { return user.get(prefix + "/admin") }},
	}
}

// TestAdminPagesTranslated renders every admin page in every shipped
// language and fails on any text left as it is in English.
func TestAdminPagesTranslated(t *testing.T) {
	allowed := slices.Concat(sameEverywhere, adminSame)
	for _, l := range i18n.Languages() {
		allowed = append(allowed, l.Name)
	}
	settings := func(o *Options, _ *service.Limits) {
		o.Settings = []Setting{{Name: "PWP__EXAMPLE_NAME", Value: "example value"}}
	}
	for _, mail := range []bool{true, false} {
		var h *harness
		if mail {
			h = newHarnessMail(t, settings, queuedMail{})
		} else {
			h = newHarnessLimits(t, settings)
		}
		a := h.signUp("admin@example.com", "password one")
		h.promote("admin@example.com")
		h.signUp("victim@example.com", "password one")
		h.signUp("gone@example.com", "password one")
		user := h.signUp("user@example.com", "password one")
		for _, v := range adminViews(h, a, user) {
			english := v.get("/en")
			enText := visibleTexts(english.body)
			if len(enText) < 3 {
				t.Fatalf("%s: too little text in English: %q", v.name, enText)
			}
			for _, l := range i18n.Languages() {
				if l.Code == i18n.Default {
					continue
				}
				other := v.get("/" + l.Code)
				if other.status != english.status {
					t.Errorf("%s in %s: status %d, English %d", v.name, l.Code, other.status, english.status)
				}
				if !strings.Contains(other.body, `<html lang="`+l.Code+`"`) {
					t.Errorf("%s in %s: not in its language", v.name, l.Code)
				}
				for _, s := range visibleTexts(other.body) {
					if slices.Contains(enText, s) && !slices.Contains(allowed, s) && !slices.Contains(cognates[l.Code], s) &&
						!sameAsData.MatchString(s) {
						t.Errorf("%s in %s: %q is left in English", v.name, l.Code, s)
					}
				}
			}
		}
	}
}

// TestAdminWebhooksTranslated: the admin's own words on the instance's
// webhook page are in the page's language.
func TestAdminWebhooksTranslated(t *testing.T) {
	h := newHookHarness(t)
	a := h.signUp("admin@example.com", "password one")
	h.promote("admin@example.com")
	en := i18n.For("en")
	for _, l := range i18n.Languages() {
		r := a.get("/" + l.Code + "/admin/webhooks")
		r.expect(t, http.StatusOK)
		loc := i18n.For(l.Code)
		title := html.EscapeString(loc.T("admin.webhooks.title", nil))
		r.has(t, "<h1>"+title+"</h1>", "<title>"+title+" · Hush</title>", loc.T("admin.nav.overview", nil))
		if l.Code != i18n.Default {
			r.lacks(t, en.T("admin.webhooks.title", nil), en.T("admin.webhooks.intro", nil))
		}
	}
}

// TestAdminGerman spot-checks the German admin pages: labels, plurals,
// dates in German order, the confirmation and the log's action names.
func TestAdminGerman(t *testing.T) {
	h := newHarness(t, nil)
	a := h.signUp("admin@example.com", "password one")
	h.promote("admin@example.com")
	h.signUp("victim@example.com", "password one")
	v := h.user("victim@example.com")
	a.get("/de/admin/users?q=victim").has(t, "<h1>Konten</h1>", "1 Konto passt.", `placeholder="E-Mail enthält …"`,
		h.clock.Now().UTC().Format("02.01.2006, 15:04 UTC"))
	a.get("/de/admin/users").has(t, "2 Konten.")
	ask := a.post(fmt.Sprintf("/de/admin/users/%d/disable", v.ID), nil)
	ask.has(t, "victim@example.com deaktivieren?", "Konto deaktivieren", fmt.Sprintf(`href="/de/admin/users/%d"`, v.ID))
	done := a.post(fmt.Sprintf("/de/admin/users/%d/disable", v.ID), url.Values{"confirm": {"yes"}})
	a.get(done.header.Get("Location")).has(t, "victim@example.com: deaktiviert und überall abgemeldet.", "Deaktiviert seit",
		`<span class="badge danger">deaktiviert</span>`)
	log := a.get("/de/admin/log")
	log.has(t, `<td data-action="disable">Deaktiviert</td>`, `<td data-action="promote">Zum Administrator gemacht</td>`, "<h1>Admin-Protokoll</h1>")
	log.lacks(t, ">disable<")
}

// TestAdminLogLabels: every action the admin log can hold, from the pages
// or from the command line, has a label of its own in every shipped
// language, so that the log never shows an action's stored name.
func TestAdminLogLabels(t *testing.T) {
	for _, l := range i18n.Languages() {
		loc := i18n.For(l.Code)
		for _, a := range slices.Concat(push.AdminActions, push.CommandLineActions) {
			if got := actionLabel(loc, a); got == string(a) {
				t.Errorf("%s: the admin log shows %q as it is stored", l.Code, a)
			}
		}
	}
}
