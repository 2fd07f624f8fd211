package web

import (
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/testenv"
)

// TestLanguagePrefix: /de/… serves the recipient's pages in German and
// keeps the prefix through the flow; the unprefixed link keeps working in
// English; a prefix of a language Hush does not ship is Password Pusher's
// old link, redirected.
func TestLanguagePrefix(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "im Tresor", "passphrase": "sesam", "retrieval_step": "true"})

	step := c.get("/de/p/" + tok + "/r")
	step.expect(t, http.StatusOK)
	step.has(t, `<html lang="de" dir="ltr">`, "<h1>Ihnen wurde ein Geheimnis geschickt</h1>",
		`href="/de/p/`+tok+`/passphrase"`, "<title>Ihnen wurde ein Geheimnis geschickt · Hush</title>")
	en := c.get("/p/" + tok + "/r")
	en.has(t, `<html lang="en" dir="ltr">`, "<h1>You have been sent a secret</h1>", `href="/p/`+tok+`/passphrase"`)

	r := c.get("/de/p/" + tok)
	if r.status != http.StatusFound || r.header.Get("Location") != "/de/p/"+tok+"/passphrase" {
		t.Fatalf("show under /de/: %d %q", r.status, r.header.Get("Location"))
	}
	form := c.get("/de/p/" + tok + "/passphrase")
	form.has(t, "<h1>Passphrase erforderlich</h1>", `action="/de/p/`+tok+`/passphrase"`)
	wrong := c.post("/de/p/"+tok+"/passphrase", url.Values{"passphrase": {"falsch"}})
	wrong.expect(t, http.StatusUnauthorized)
	wrong.has(t, "Diese Passphrase ist falsch.")
	right := c.post("/de/p/"+tok+"/passphrase", url.Values{"passphrase": {"sesam"}})
	right.expect(t, http.StatusOK)
	right.has(t, "im Tresor", "<h1>Ihr Geheimnis</h1>", "für 4 weitere Aufrufe", "7 Tage",
		"In die Zwischenablage kopieren")
	right.lacks(t, "Copy to clipboard")

	// /de/ is the German create page's address, and /de, which is what
	// the server's edge makes of /de/, is that page too.
	for _, p := range []string{"/de/", "/de"} {
		if r := c.get(p); r.status != http.StatusOK || !strings.Contains(r.body, `<html lang="de"`) {
			t.Errorf("%s: %d %q", p, r.status, r.header.Get("Location"))
		}
	}
	// Korean is no language of Hush: the old prefixed link goes to /p/.
	if r := c.get("/ko/p/" + tok); r.status != http.StatusMovedPermanently || r.header.Get("Location") != "/p/"+tok {
		t.Errorf("/ko/p/: %d %q", r.status, r.header.Get("Location"))
	}
	// The expired page keeps the language and its link to the create page.
	gone := c.get("/de/p/no-such-token")
	gone.has(t, "<h1>Dieser Geheimnis-Link ist abgelaufen</h1>", `href="/de/"`)
}

// TestLanguageChoiceOrder: the prefix, then the account's choice, then
// Accept-Language, then the operator's default.
func TestLanguageChoiceOrder(t *testing.T) {
	h := newHarness(t, func(_ *Options, s *push.Settings) { s.DefaultLocale = "de" })
	tok := h.create(nil, fields{"payload": "x", "retrieval_step": "true"})
	path := "/p/" + tok + "/r"
	get := func(c *client, p, accept string) string {
		req, _ := http.NewRequest(http.MethodGet, h.url+p, nil)
		if accept != "" {
			req.Header.Set("Accept-Language", accept)
		}
		r := c.do(req)
		m := regexp.MustCompile(`<html lang="([^"]+)"`).FindStringSubmatch(r.body)
		if m == nil {
			t.Fatalf("%s: no html lang in %d %s", p, r.status, r.body)
		}
		return m[1]
	}
	anon := h.client()
	for _, c := range []struct{ path, accept, want string }{
		{path, "", "de"},                   // the operator's default
		{path, "en-US,en;q=0.9", "en"},     // the browser's
		{path, "ko-KR, tr;q=0.8", "de"},    // nothing shipped fits: the default
		{"/en" + path, "de", "en"},         // the prefix before the browser
		{"/de" + path, "en", "de"},         // …either way
		{path, "de-CH, en;q=0.5", "de"},    // a regional variant matches
		{path, "en;q=0.1, de;q=0.9", "de"}, // quality counts
	} {
		if got := get(anon, c.path, c.accept); got != c.want {
			t.Errorf("%s with Accept-Language %q: %s, want %s", c.path, c.accept, got, c.want)
		}
	}

	// An account's choice beats the browser, and the prefix beats it.
	u := h.signUp("lang@example.com", "a long password")
	if got := get(u, path, "de"); got != "de" {
		t.Errorf("account without a choice, browser de: %s", got)
	}
	saved := u.post("/users/language", url.Values{"preferred_language": {"en"}})
	saved.expect(t, http.StatusOK)
	if h.user("lang@example.com").Language != "en" {
		t.Fatal("the choice was not stored")
	}
	if got := get(u, path, "de"); got != "en" {
		t.Errorf("account chose en, browser de: %s", got)
	}
	if got := get(u, "/de"+path, "en"); got != "de" {
		t.Errorf("account chose en, prefix de: %s", got)
	}
	edit := u.get("/users/edit")
	edit.has(t, `<option value="en" lang="en" selected>English</option>`)
	// An unknown language is refused and nothing changes.
	if r := u.post("/users/language", url.Values{"preferred_language": {"xx"}}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("unknown language: %d", r.status)
	}
	if h.user("lang@example.com").Language != "en" {
		t.Error("an unknown language changed the choice")
	}
	// Back to the browser's.
	u.post("/users/language", url.Values{"preferred_language": {""}})
	if got := get(u, path, "de"); got != "de" {
		t.Errorf("account back to its browser's, browser de: %s", got)
	}
}

// TestLanguageSwitch: the footer links the same page under each other
// language's prefix, without the query; the secret page, whose address
// would claim another view, has none.
func TestLanguageSwitch(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "x", "retrieval_step": "true", "expire_after_views": "3"})
	r := c.get("/p/" + tok + "/r?utm=1")
	r.has(t, `<span aria-current="true" lang="en" dir="ltr">English</span>`,
		`<a href="/de/p/`+tok+`/r" lang="de" hreflang="de" dir="ltr">Deutsch</a>`, `aria-label="Language"`)
	r.lacks(t, "utm=1")
	de := c.get("/de/p/" + tok + "/r")
	de.has(t, `<a href="/en/p/`+tok+`/r" lang="en" hreflang="en" dir="ltr">English</a>`,
		`<span aria-current="true" lang="de" dir="ltr">Deutsch</span>`, `aria-label="Sprache"`)
	// The create page (not yet translated) has the switch too.
	c.get("/").has(t, `<a href="/de/" lang="de"`)
	secret := c.get("/de/p/" + tok)
	secret.has(t, "<h1>Ihr Geheimnis</h1>")
	secret.lacks(t, `hreflang=`)
}

// TestLanguageDirection: the page's <html> carries the language's
// direction: Arabic is right to left, the others left to right.
func TestLanguageDirection(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	for _, l := range i18n.Languages() {
		want := `<html lang="` + l.Code + `" dir="ltr">`
		if l.Code == "ar" {
			want = `<html lang="ar" dir="rtl">`
		}
		c.get("/"+l.Code+"/p/no-such-token").has(t, want)
	}
	if _, ok := i18n.Lookup("ar"); !ok {
		t.Error("Arabic is not shipped")
	}
}

// sameEverywhere are the words a page may show unchanged in any language.
var sameEverywhere = []string{"Hush", "API", "Passphrase", "KiB", "·"}

// visible is what a person sees or hears of a page: the text of its title,
// header, main and footer, its labels for screen readers and dialogs, and
// the texts its script shows (data-t-*, data-copied).
func visibleTexts(page string) []string {
	var parts []string
	if m := regexp.MustCompile(`<body[^>]*>`).FindString(page); m != "" {
		parts = append(parts, m)
	}
	for _, tag := range []string{"title", "header", "main", "footer"} {
		if m := regexp.MustCompile(`(?s)<` + tag + `[^>]*>(.*)</` + tag + `>`).FindStringSubmatch(page); m != nil {
			parts = append(parts, m[1])
		}
	}
	var out []string
	for _, p := range parts {
		for _, a := range regexp.MustCompile(`(?:aria-label|data-confirm[a-z-]*|data-t-[a-z-]+|data-copied|data-label|title|placeholder|alt)="([^"]*)"`).FindAllStringSubmatch(p, -1) {
			out = append(out, html.UnescapeString(a[1]))
		}
		for _, s := range regexp.MustCompile(`<[^>]*>`).Split(p, -1) {
			if s = strings.TrimSpace(html.UnescapeString(s)); strings.ContainsFunc(s, isLetter) {
				out = append(out, s)
			}
		}
	}
	return out
}

func isLetter(r rune) bool { return r > 127 || (r|0x20 >= 'a' && r|0x20 <= 'z') }

// TestRecipientPagesTranslated renders every recipient page in every
// shipped language and fails on any text left as it is in English.
func TestRecipientPagesTranslated(t *testing.T) {
	h := newHarness(t, nil)
	allowed := append([]string{}, sameEverywhere...)
	for _, l := range i18n.Languages() {
		allowed = append(allowed, l.Name)
	}
	type view struct {
		name string
		get  func(c *client, prefix string) resp
	}
	secret := func(f fields) func(c *client, prefix string) resp {
		return func(c *client, prefix string) resp {
			return c.get(prefix + "/p/" + h.create(nil, f))
		}
	}
	views := []view{
		{"retrieval step", func(c *client, prefix string) resp {
			return c.get(prefix + "/p/" + h.create(nil, fields{"payload": "payload", "retrieval_step": "true"}) + "/r")
		}},
		{"passphrase form", func(c *client, prefix string) resp {
			return c.get(prefix + "/p/" + h.create(nil, fields{"payload": "payload", "passphrase": "p"}) + "/passphrase")
		}},
		{"wrong passphrase", func(c *client, prefix string) resp {
			tok := h.create(nil, fields{"payload": "payload", "passphrase": "p"})
			return c.post(prefix+"/p/"+tok+"/passphrase", url.Values{"passphrase": {"wrong"}})
		}},
		{"empty passphrase", func(c *client, prefix string) resp {
			tok := h.create(nil, fields{"payload": "payload", "passphrase": "p"})
			return c.post(prefix+"/p/"+tok+"/passphrase", url.Values{})
		}},
		{"text secret", secret(fields{"payload": "payload", "deletable_by_viewer": "true"})},
		{"one view left", secret(fields{"payload": "payload", "expire_after_views": "2"})},
		{"last view", secret(fields{"payload": "payload", "expire_after_views": "1"})},
		{"url secret after passphrase", func(c *client, prefix string) resp {
			tok := h.create(nil, fields{"kind": "url", "payload": "https://example.com/", "passphrase": "p"})
			return c.post(prefix+"/p/"+tok+"/passphrase", url.Values{"passphrase": {"p"}})
		}},
		{"qr secret", secret(fields{"kind": "qr", "payload": "payload"})},
		{"expired", func(c *client, prefix string) resp { return c.get(prefix + "/p/no-such-token") }},
	}
	c := h.client()
	for _, v := range views {
		english := v.get(c, "/en")
		enText := visibleTexts(english.body)
		if len(enText) < 3 {
			t.Fatalf("%s: too little text in English: %q", v.name, enText)
		}
		for _, l := range i18n.Languages() {
			if l.Code == i18n.Default {
				continue
			}
			other := v.get(c, "/"+l.Code)
			if other.status != english.status {
				t.Errorf("%s in %s: status %d, English %d", v.name, l.Code, other.status, english.status)
			}
			for _, s := range visibleTexts(other.body) {
				if slices.Contains(enText, s) && !slices.Contains(allowed, s) && s != "payload" && s != "https://example.com/" {
					t.Errorf("%s in %s: %q is left in English", v.name, l.Code, s)
				}
			}
		}
	}
}

// TestBrowserGermanRecipient: a recipient opens a German link to a
// passphrase-protected secret in Chromium: the passphrase page and the
// secret are in German, and the flow keeps the prefix.
func TestBrowserGermanRecipient(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": "Schatzkarte", "passphrase": "Sesam öffne dich", "push_locale": "de", "expire_after_views": "2"})
	p, err := h.svc.Lookup(t.Context(), tok)
	if err != nil || p.Locale != "de" {
		t.Fatalf("push locale %q %v", p.Locale, err)
	}
	link := push.LocaleURL(h.url, p.Locale, tok, false)
	bob := b.person()
	b.do(bob, chromedp.Navigate(link), chromedp.WaitVisible(css("#passphrase")))
	b.shot(bob, "de-passphrase")
	lang := run(b, bob, chromedp.Evaluate[string](`document.documentElement.lang + " " + document.documentElement.dir`))
	h1 := run(b, bob, chromedp.TextContent(css("h1")))
	loc := run(b, bob, chromedp.Evaluate[string](`location.pathname`))
	if lang != "de ltr" || h1 != "Passphrase erforderlich" || loc != "/de/p/"+tok+"/passphrase" {
		t.Errorf("passphrase page: lang %q, h1 %q, at %q", lang, h1, loc)
	}
	label := run(b, bob, chromedp.TextContent(css("main button[type=submit]")))
	if label != "Geheimnis öffnen" {
		t.Errorf("button %q", label)
	}
	b.do(bob, chromedp.SendKeys(css("#passphrase"), "Sesam öffne dich"), chromedp.Click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("#secret")))
	b.shot(bob, "de-secret")
	if got := run(b, bob, chromedp.TextContent(css("#secret"))); got != "Schatzkarte" {
		t.Errorf("secret %q", got)
	}
	h1 = run(b, bob, chromedp.TextContent(css("h1")))
	expiry := run(b, bob, chromedp.TextContent(css(".expiry")))
	copyLabel := run(b, bob, chromedp.TextContent(css("[data-copy]")))
	if h1 != "Ihr Geheimnis" || !strings.Contains(expiry, "gilt noch 7 Tage oder für 1 weiteren Aufruf") || copyLabel != "In die Zwischenablage kopieren" {
		t.Errorf("secret page: h1 %q, expiry %q, copy %q", h1, expiry, copyLabel)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// sameIn are words a page may show as English does in one language,
// because that language writes them so too: Swedish writes an instant as
// ISO 8601, as English does (the audit log's and dashboard's dates, at the
// test clock's start).
var sameIn = map[string][]string{
	"de": {"Passphrase (optional)"},
	"fr": {"Actions"}, // the dashboard's column of actions
	"ja": {"URL"},     // Japanese writes the word in Latin letters
	"it": {"File"},    // the kind of secret
	"nl": {"Status"},  // the audit log's status of a push
	"sv": {i18n.For("sv").Date(testenv.Start), i18n.For("sv").DateTime(testenv.Start)},
}

// TestSenderPagesTranslated renders the sender's pages — the create form
// of each kind, a refused form, the preview, the dashboard with a push, the
// audit log, the stale page, the confirmation page without script and an
// error page — in every shipped language and fails on any text left as it
// is in English.
func TestSenderPagesTranslated(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("sender@example.com", "a sender password")
	u := h.user("sender@example.com")
	tok := h.create(u, fields{"payload": "payload", "name": "payload", "note": "payload", "passphrase": "p", "expire_after_views": "5"})
	c.get("/p/" + tok + "/audit") // an owner view, for an audit row
	anon := h.client()
	form := url.Values{"passphrase": {"p"}, "stamp": {formStamp(t, anon.get("/p/"+tok+"/passphrase"))}}
	anon.post("/p/"+tok+"/passphrase", form).expect(t, http.StatusOK)
	long := strings.Repeat("x", push.MaxQRPayload+1)
	type view struct {
		name string
		get  func(prefix string) resp
	}
	get := func(cl *client, path string) func(string) resp {
		return func(prefix string) resp { return cl.get(prefix + path) }
	}
	views := []view{
		{"create text", get(c, "/?kind=text")},
		{"create url", get(c, "/?kind=url")},
		{"create qr", get(c, "/?kind=qr")},
		{"create file", get(c, "/?kind=file")},
		{"create anonymous", get(anon, "/")},
		{"refused form", func(prefix string) resp {
			return c.post(prefix+"/", url.Values{"kind": {"url"}, "payload": {"javascript:x"}, "expire_after_days": {"x"}, "push_locale": {"xx"}})
		}},
		{"refused qr", func(prefix string) resp {
			return c.post(prefix+"/", url.Values{"kind": {"qr"}, "payload": {long}})
		}},
		{"preview", get(c, "/p/"+tok+"/preview")},
		{"dashboard", get(c, "/dashboard")},
		{"dashboard expired", get(c, "/dashboard?tab=expired")},
		{"audit", get(c, "/p/"+tok+"/audit")},
		{"stale", func(prefix string) resp { return anon.post(prefix+"/p/"+tok+"/passphrase", form) }},
		{"confirm", func(prefix string) resp { return c.post(prefix+"/p/"+tok+"/expire", url.Values{}) }},
		{"not found", get(anon, "/no/such/page")},
		{"not yours", get(h.signUp("other@example.com", "another password"), "/p/"+tok+"/audit")},
	}
	allowed := append([]string{"payload", "p", "sender@example.com", tok, "https://", long, "Go-http-client/1.1"}, sameEverywhere...)
	for _, l := range i18n.Languages() {
		allowed = append(allowed, l.Name)
	}
	for _, v := range views {
		english := v.get("/en")
		enText := visibleTexts(english.body)
		if len(enText) < 5 {
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
			for _, s := range visibleTexts(other.body) {
				if slices.Contains(enText, s) && !slices.Contains(allowed, s) && !slices.Contains(sameIn[l.Code], s) &&
					!strings.Contains(s, h.url) && !strings.Contains(s, "{{") {
					t.Errorf("%s in %s: %q is left in English", v.name, l.Code, s)
				}
			}
		}
	}
}

// TestCreateMessagesKnown: every message the create form can get back from
// validation has a catalog key (so the page shows it in its language), and
// each is written differently in German than in English.
func TestCreateMessagesKnown(t *testing.T) {
	h := newHarness(t, nil)
	st := h.web.settings()
	st.MaxFileUploads = 2
	st.NotifyByEmail, st.Receipts = false, false
	yes, kind := true, func(k push.Kind) *push.Kind { return &k }
	reqs := []*push.CreateRequest{
		{Kind: kind(push.KindText), Payload: " "},
		{Kind: kind(push.KindText), Payload: strings.Repeat("x", push.MaxTextPayload+1)},
		{Kind: kind(push.KindQR), Payload: " "},
		{Kind: kind(push.KindQR), Payload: strings.Repeat("x", push.MaxQRPayload+1)},
		{Kind: kind(push.KindQR), Payload: strings.Repeat("🔑", push.MaxQRPayload)},
		{Kind: kind(push.KindURL), Payload: " "},
		{Kind: kind(push.KindURL), Payload: "javascript:alert(1)"},
		{Kind: kind(push.KindFile), Payload: strings.Repeat("x", push.MaxTextPayload+1), FileCount: 3},
		{Kind: kind(push.KindText), Payload: "x", PushLocale: "xx", NotifyEmailsTo: "a@example.org", ReceiptOnView: &yes},
	}
	var msgs [][2]string
	for _, r := range reqs {
		_, err := push.Validate(r, &st)
		var e *push.Error
		if !errors.As(err, &e) || len(e.Fields) == 0 {
			t.Fatalf("%+v: no field errors: %v", r, err)
		}
		for f, ms := range e.Fields {
			for _, m := range ms {
				msgs = append(msgs, [2]string{f, m})
			}
		}
	}
	for _, bad := range []string{"a@x.org,,b@x.org", "a@x.org,a@x.org", "a@x.org,b@x.org,c@x.org,d@x.org,e@x.org,f@x.org", "not an address"} {
		_, ms := push.ParseRecipients(bad, push.MaxNotifyRecipients)
		if len(ms) == 0 {
			t.Fatalf("recipients %q: no message", bad)
		}
		for _, m := range ms {
			msgs = append(msgs, [2]string{"notify_emails_to", m})
		}
	}
	errs := push.FieldErrors{}
	formInt(url.Values{"expire_after_days": {"seven"}}, "expire_after_days", errs)
	msgs = append(msgs, [2]string{"expire_after_days", errs["expire_after_days"][0]}, [2]string{"files", msgNoFile})
	for _, k := range []push.Kind{push.KindFile, push.KindURL, push.KindQR} {
		off := st
		off.EnableFilePushes, off.EnableURLPushes, off.EnableQRPushes = k != push.KindFile, k != push.KindURL, k != push.KindQR
		if _, err := push.Validate(&push.CreateRequest{Kind: kind(k), Payload: "https://example.org/"}, &off); err != nil {
			for _, m := range err.(*push.Error).Fields["kind"] {
				msgs = append(msgs, [2]string{"kind", m})
			}
		}
	}
	known := createMessages(&st)
	de := i18n.For("de")
	for _, fm := range msgs {
		k, ok := known[fm[0]][fm[1]]
		if !ok {
			t.Errorf("%s: %q has no catalog key", fm[0], fm[1])
			continue
		}
		for _, l := range i18n.Languages() {
			if got := localMessage(i18n.For(l.Code), k); got == k.key || got == "" {
				t.Errorf("%s: %s lacks %s", fm[0], l.Code, k.key)
			}
		}
		if got := localFieldErrors(de, &st, map[string][]string{fm[0]: {fm[1]}})[fm[0]][0]; got == fm[1] {
			t.Errorf("%s: %q is shown in English on a German page", fm[0], fm[1])
		}
	}
	if len(msgs) < 15 {
		t.Errorf("only %d messages checked", len(msgs))
	}
	// An unknown message is shown as it came.
	if got := localFieldErrors(de, &st, map[string][]string{"payload": {"something new"}}); got["payload"][0] != "something new" {
		t.Errorf("unknown message: %q", got)
	}
}
