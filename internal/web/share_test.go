package web

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hush/internal/config"
	"hush/internal/push"
	"hush/internal/service"
)

// defaultGenerated is a password of the default generator settings: three
// syllables of one to three letters, capitalised, each with a digit,
// separated by -, _ or =.
var defaultGenerated = regexp.MustCompile(`^` + syllable + `[0-9](?:[-_=]` + syllable + `[0-9]){2}$`)

// syllable is one to three letters of the default sets, the first a capital.
const syllable = `[BCDFGHKLMNPRSTVZAEIOUY][bcdfghklmnprstvzaeiouy]{0,2}`

// alternates reports whether the letters of each syllable of pw (split at
// capitals, digits and separators) alternate between consonants and vowels.
func alternates(pw string) bool {
	for _, syl := range regexp.MustCompile(`[A-Z][a-z]*`).FindAllString(pw, -1) {
		syl = strings.ToLower(syl)
		for i := 1; i < len(syl); i++ {
			if strings.ContainsRune("aeiouy", rune(syl[i])) == strings.ContainsRune("aeiouy", rune(syl[i-1])) {
				return false
			}
		}
	}
	return true
}

// poll evaluates js until it gives want, for up to two seconds, and
// returns what it gave last.
func poll(b *browser, ctx context.Context, js, want string) string {
	b.t.Helper()
	got := ""
	for range 100 {
		if got = run(b, ctx, chromedp.Evaluate[string](js)); got == want {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return got
}

const liveRegion = `(document.querySelector("body > [role=status][aria-live=polite]") || {}).textContent || ""`

func visible(b *browser, ctx context.Context, sel string) bool {
	b.t.Helper()
	return run(b, ctx, chromedp.Evaluate[bool](`(function(){var e=document.querySelector(`+"`"+sel+"`"+`);return !!e&&e.checkVisibility()})()`))
}

// TestBrowserGenerator: the generator takes the operator's PWP__GEN__
// settings; a browser may save its own defaults, which survive a reload,
// stay in that browser, and give way to the server's on reset. Options that
// cannot make a password are refused on the page.
func TestBrowserGenerator(t *testing.T) {
	cfg, err := config.Load(nil, func(k string) string {
		return map[string]string{"PWP__GEN__SYLLABLES_COUNT": "5", "PWP__GEN__USE_SEPARATORS": "false"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	h := newHarness(t, func(_ *Options, st *push.Settings) { st.Generator = cfg.Push.Generator })
	five := regexp.MustCompile(`^(?:` + syllable + `[0-9]){5}$`)
	alice := b.person()
	b.do(alice, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("[data-generate]")))
	seen := map[string]bool{}
	for range 20 {
		b.do(alice, chromedp.Click(css("[data-generate]")))
		pw := run(b, alice, chromedp.Value(css("#payload")))
		if !five.MatchString(pw) || !alternates(pw) {
			t.Fatalf("generated %q, want five syllables, no separators", pw)
		}
		seen[pw] = true
	}
	if len(seen) < 15 {
		t.Errorf("20 passwords, only %d different", len(seen))
	}
	if said := poll(b, alice, liveRegion, "Password generated"); said != "Password generated" {
		t.Errorf("after Generate the live region says %q", said)
	}
	b.do(alice, chromedp.Click(css("#generator-options summary")), chromedp.WaitVisible(css("#gen-save")))
	if got := run(b, alice, chromedp.Value(css("#gen-syllables-count"))); got != "5" {
		t.Errorf("syllables shown %q, want the server's 5", got)
	}
	if run(b, alice, chromedp.Evaluate[bool](`document.getElementById("gen-use-separators").checked`)) {
		t.Error("separators shown on, the server says off")
	}

	// Alice saves two syllables without digits, with separators, as her default.
	b.do(alice, chromedp.SetValue(css("#gen-syllables-count"), "2"),
		chromedp.Click(css("#gen-has-numbers")), chromedp.Click(css("#gen-use-separators")),
		chromedp.SetValue(css("#gen-separators"), "."), chromedp.Click(css("#gen-save")))
	if said := poll(b, alice, liveRegion, "Saved as the default in this browser"); said != "Saved as the default in this browser" {
		t.Errorf("after Save the live region says %q", said)
	}
	two := regexp.MustCompile(`^` + syllable + `\.` + syllable + `$`)
	b.do(alice, chromedp.Reload(), chromedp.WaitVisible(css("[data-generate]")), chromedp.Click(css("[data-generate]")))
	if pw := run(b, alice, chromedp.Value(css("#payload"))); !two.MatchString(pw) || !alternates(pw) {
		t.Errorf("after a reload, generated %q with the saved defaults", pw)
	}
	if got := run(b, alice, chromedp.TextContent(css("#gen-source"))); got != "Using the defaults saved in this browser." {
		t.Errorf("source after reload: %q", got)
	}

	// Another browser keeps the server's defaults.
	bob := b.person()
	b.do(bob, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("[data-generate]")), chromedp.Click(css("[data-generate]")))
	if pw := run(b, bob, chromedp.Value(css("#payload"))); !five.MatchString(pw) {
		t.Errorf("another browser generated %q", pw)
	}

	// Options that cannot make a password are refused; the field keeps its value.
	b.do(alice, chromedp.Click(css("#generator-options summary")), chromedp.WaitVisible(css("#gen-save")),
		chromedp.SetValue(css("#payload"), "kept"),
		chromedp.SetValue(css("#gen-min-syllable-length"), "3"), chromedp.SetValue(css("#gen-max-syllable-length"), "2"),
		chromedp.Click(css("[data-generate]")))
	if got := run(b, alice, chromedp.TextContent(css("#gen-error"))); got != "The shortest syllable must not be longer than the longest." {
		t.Errorf("error shown: %q", got)
	}
	if pw := run(b, alice, chromedp.Value(css("#payload"))); pw != "kept" {
		t.Errorf("a refused generation wrote %q", pw)
	}
	for _, bad := range []struct{ sel, value, want string }{
		{"#gen-syllables-count", "0", "Syllables must be a whole number from 1 to 32."},
		{"#gen-syllables-count", "33", "Syllables must be a whole number from 1 to 32."},
		{"#gen-consonants", "", "Consonants must not be empty."},
		{"#gen-vowels", "aa", "Vowels must not repeat a character."},
	} {
		b.do(alice, chromedp.Reload(), chromedp.WaitVisible(css("[data-generate]")),
			chromedp.Click(css("#generator-options summary")), chromedp.WaitVisible(css("#gen-save")))
		run(b, alice, chromedp.Evaluate[bool](`document.querySelector("`+bad.sel+`").value = "`+bad.value+`"; true`))
		b.do(alice, chromedp.Click(css("#gen-save")))
		if got := run(b, alice, chromedp.TextContent(css("#gen-error"))); got != bad.want {
			t.Errorf("%s=%q: error %q, want %q", bad.sel, bad.value, got, bad.want)
		}
	}
	// None of those was saved: the two-syllable default stands.
	b.do(alice, chromedp.Reload(), chromedp.WaitVisible(css("[data-generate]")))
	if got := run(b, alice, chromedp.Value(css("#gen-syllables-count"))); got != "2" {
		t.Errorf("after refused saves the saved syllables are %q", got)
	}

	// Reset brings back the server's defaults, for good.
	b.do(alice, chromedp.Click(css("#generator-options summary")), chromedp.WaitVisible(css("#gen-reset")),
		chromedp.Click(css("#gen-reset")))
	if got := run(b, alice, chromedp.Value(css("#gen-syllables-count"))); got != "5" {
		t.Errorf("after reset, syllables %q", got)
	}
	b.do(alice, chromedp.Reload(), chromedp.WaitVisible(css("[data-generate]")), chromedp.Click(css("[data-generate]")))
	if pw := run(b, alice, chromedp.Value(css("#payload"))); !five.MatchString(pw) {
		t.Errorf("after reset and reload, generated %q", pw)
	}
	if got := run(b, alice, chromedp.TextContent(css("#gen-source"))); got != "Using the server's defaults." {
		t.Errorf("source after reset: %q", got)
	}
	b.shot(alice, "create-generator")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestBrowserCounter: the payload's counter counts as the server does (a
// line break is sent as two characters), warns over the limit, tells screen
// readers politely, and the server still refuses what is over.
func TestBrowserCounter(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	p := b.person()
	b.do(p, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "abc"))
	if got := run(b, p, chromedp.Text(css("#payload-count"))); got != "3 of 1,048,576 characters" {
		t.Errorf("counter %q", got)
	}
	if live := run(b, p, chromedp.AttributeValue(css("#payload-count-live"), "aria-live")); live.Value != "polite" {
		t.Errorf("the counter's live region: aria-live=%q", live.Value)
	}
	if said := poll(b, p, `document.getElementById("payload-count-live").textContent`, "3 of 1,048,576 characters"); said != "3 of 1,048,576 characters" {
		t.Errorf("live region says %q", said)
	}
	setPayload := func(js string) {
		run(b, p, chromedp.Evaluate[bool](`(function(){var f=document.getElementById("payload");f.value=`+js+
			`;f.dispatchEvent(new Event("input",{bubbles:true}));return true})()`))
	}
	setPayload(`"x".repeat(1048577)`)
	if got := run(b, p, chromedp.Text(css("#payload-count"))); got != "1,048,577 of 1,048,576 characters: 1 too many" {
		t.Errorf("over the limit: %q", got)
	}
	if cls := run(b, p, chromedp.Evaluate[string](`document.getElementById("payload-count").className`)); !strings.Contains(cls, "over") {
		t.Errorf("over the limit, the counter's class is %q", cls)
	}
	if inv := run(b, p, chromedp.AttributeValue(css("#payload"), "aria-invalid")); inv.Value != "true" {
		t.Errorf("over the limit, aria-invalid=%q", inv.Value)
	}
	// Crossing the limit is said at once, not after the pause.
	if said := run(b, p, chromedp.TextContent(css("#payload-count-live"))); said != "1,048,577 of 1,048,576 characters: 1 too many" {
		t.Errorf("crossing the limit, the live region says %q", said)
	}
	b.shot(p, "create-over-limit")
	b.do(p, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css(".field-error")))
	if msg := run(b, p, chromedp.Text(css(".field-error"))); !strings.Contains(msg, "too long") {
		t.Errorf("the server's refusal: %q", msg)
	}
	setPayload(`"🔑\n"`)
	if got := run(b, p, chromedp.Text(css("#payload-count"))); got != "3 of 1,048,576 characters" {
		t.Errorf("a key and a line break: %q", got)
	}
	if inv := run(b, p, chromedp.AttributeValue(css("#payload"), "aria-invalid")); inv.Exists {
		t.Errorf("back under the limit, aria-invalid=%q", inv.Value)
	}

	// On the QR form the line break is what tips it over, as the server counts.
	b.do(p, chromedp.Navigate(h.url+"/?kind=qr"), chromedp.WaitVisible(css("#payload")))
	setPayload(`"a".repeat(1023) + "\n"`)
	if got := run(b, p, chromedp.Text(css("#payload-count"))); got != "1,025 of 1,024 characters: 1 too many" {
		t.Errorf("qr over the limit: %q", got)
	}
	b.do(p, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css(".field-error")))
	if msg := run(b, p, chromedp.Text(css(".field-error"))); !strings.Contains(msg, "too long") {
		t.Errorf("the server took the payload the counter called too long: %q", msg)
	}
	setPayload(`"a".repeat(1022) + "\n"`)
	if got := run(b, p, chromedp.Text(css("#payload-count"))); got != "1,024 of 1,024 characters" {
		t.Errorf("qr at the limit: %q", got)
	}
	b.do(p, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// shareMessageOf returns the preview's message, as text.
func shareMessageOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`<p class="share-message" id="share-message">([^<]*)</p>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no message on the preview:\n%s", body)
	}
	return html.UnescapeString(m[1])
}

// TestPreviewShareMessage: the preview offers a message to send with the
// link, composed by the server (so it is there without the script), right
// for one view or several, one day or several, a retrieval step and a
// passphrase, which it never contains.
func TestPreviewShareMessage(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	for _, tc := range []struct {
		f    fields
		want string
	}{
		{fields{"payload": "a", "expire_after_views": "1", "expire_after_days": "7", "retrieval_step": "false"},
			"I've shared a secret with you: LINK — it expires after 1 view or 7 days, whichever comes first."},
		{fields{"payload": "a", "expire_after_views": "5", "expire_after_days": "1", "retrieval_step": "false"},
			"I've shared a secret with you: LINK — it expires after 5 views or 1 day, whichever comes first."},
		{fields{"payload": "a", "expire_after_views": "2", "expire_after_days": "1", "retrieval_step": "true"},
			`I've shared a secret with you: LINK — it expires after 2 views or 1 day, whichever comes first. Open the link, then click "Reveal the secret" to see it.`},
		{fields{"payload": "a", "expire_after_views": "1", "expire_after_days": "3", "retrieval_step": "false", "passphrase": "blue whale"},
			"I've shared a secret with you: LINK — it expires after 1 view or 3 days, whichever comes first. You will also need the passphrase, which I'll send you separately."},
	} {
		tok := h.create(nil, tc.f)
		link := h.url + "/p/" + tok
		if tc.f["retrieval_step"] == "true" {
			link += "/r"
		}
		r := c.get("/p/" + tok + "/preview")
		r.expect(t, http.StatusOK)
		if got, want := shareMessageOf(t, r.body), strings.Replace(tc.want, "LINK", link, 1); got != want {
			t.Errorf("message\n%q\nwant\n%q", got, want)
		}
		r.has(t, `<p class="print-only card-url">`+link+`</p>`)
		r.lacks(t, "blue whale")
	}

	// A push of a quarter of an hour says so.
	code := 0
	kind := push.KindText
	cr, err := h.svc.Create(context.Background(), service.CreateInput{Request: &push.CreateRequest{Kind: &kind, Payload: "a",
		ExpireAfterDuration: &code}, Meta: push.Meta{IP: "192.0.2.9"}})
	if err != nil {
		t.Fatal(err)
	}
	r := c.get("/p/" + cr.Push.URLToken + "/preview")
	if got := shareMessageOf(t, r.body); !strings.Contains(got, "it expires after 5 views or 15 minutes, whichever comes first.") {
		t.Errorf("a sub-day push: %q", got)
	}
}

// TestBrowserShare: the copy buttons put the link and the message on the
// clipboard and say so through the page's live region; Print card prints;
// in print the card alone shows, with the QR code and the link.
func TestBrowserShare(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": "a", "expire_after_views": "1", "expire_after_days": "1", "retrieval_step": "true"})
	link := h.url + "/p/" + tok + "/r"
	p := b.person()
	for _, perm := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(p, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: perm}, Setting: cdpbrowser.PermissionSettingGranted,
			Origin: h.url, BrowserContextID: chromedp.FromContext(p).BrowserContextID}); err != nil {
			t.Fatalf("grant %s: %v", perm, err)
		}
	}
	b.do(p, chromedp.Navigate(h.url+"/p/"+tok+"/preview"), chromedp.WaitVisible(css("#share-message")))
	clipboard := func() string {
		return run(b, p, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	}
	want := `I've shared a secret with you: ` + link + ` — it expires after 1 view or 1 day, whichever comes first. Open the link, then click "Reveal the secret" to see it.`
	b.do(p, chromedp.Click(css(`[data-copy="share-message"]`)))
	if said := poll(b, p, liveRegion, "Message copied to the clipboard"); said != "Message copied to the clipboard" {
		t.Errorf("after Copy message the live region says %q", said)
	}
	if got := clipboard(); got != want {
		t.Errorf("clipboard after Copy message:\n%q\nwant\n%q", got, want)
	}
	b.do(p, chromedp.Click(css(`[data-copy="secret-url"]`)))
	if said := poll(b, p, liveRegion, "Link copied to the clipboard"); said != "Link copied to the clipboard" {
		t.Errorf("after Copy link the live region says %q", said)
	}
	if got := clipboard(); got != link {
		t.Errorf("clipboard after Copy link: %q, want %q", got, link)
	}
	if n := run(b, p, chromedp.Evaluate[int](`document.querySelectorAll("[role=status][aria-live=polite]").length`)); n != 1 {
		t.Errorf("%d live regions for the announcements, want the one", n)
	}

	// Print card prints (the dialog itself is the browser's).
	run(b, p, chromedp.Evaluate[bool](`window.printed = 0; window.print = function () { window.printed++ }; true`))
	b.do(p, chromedp.Click(css("[data-print]")))
	if n := run(b, p, chromedp.Evaluate[int](`window.printed`)); n != 1 {
		t.Errorf("Print card called print %d times", n)
	}

	// On screen the card's print-only parts are hidden; in print only the card shows.
	if visible(b, p, ".card-url") || !visible(b, p, "#share") {
		t.Error("on screen: the card's link shows, or the message does not")
	}
	if _, err := chromedp.Call(p, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"#print-card", "#print-card svg.qr", ".card-url", "#print-card h2"} {
		if !visible(b, p, sel) {
			t.Errorf("in print, %s is hidden", sel)
		}
	}
	for _, sel := range []string{"header.top", "footer", "main h1", ".secret-url", "#share", "#share-message", "main > .actions", "#print-card .screen-only"} {
		if visible(b, p, sel) {
			t.Errorf("in print, %s shows", sel)
		}
	}
	if got := run(b, p, chromedp.Text(css(".card-url"))); got != link {
		t.Errorf("the card's link: %q", got)
	}
	b.shot(p, "preview-print")
	if _, err := chromedp.Call(p, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: ""}); err != nil {
		t.Fatal(err)
	}
	if !visible(b, p, "header.top") {
		t.Error("back on screen, the header is hidden")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
