package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hush/internal/api"
	"hush/internal/httpx"
	"hush/internal/mail"
	"hush/internal/push"
	"hush/internal/service"
)

// axeScript is the text of axe-core's axe.min.js, named by HUSH_AXE_JS
// (.ci/run installs a pinned axe-core and sets it). Without it the check
// skips, unless HUSH_REQUIRE_ALL=1 makes that a failure.
func axeScript(t *testing.T) string {
	t.Helper()
	p := os.Getenv("HUSH_AXE_JS")
	msg := "the accessibility check needs axe-core: set HUSH_AXE_JS to its axe.min.js (.ci/run installs it with npm)"
	if p != "" {
		b, err := os.ReadFile(p)
		if err == nil {
			return string(b)
		}
		msg += ": " + err.Error()
	}
	if os.Getenv("HUSH_REQUIRE_ALL") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// queuedMail is the mailer of the accessibility check: the mail pages
// need a server that sends email, and this test never delivers the
// outbox, so Send is never called.
type queuedMail struct{}

func (queuedMail) Send(context.Context, mail.Message) error {
	return fmt.Errorf("this test sends no email")
}

// axeVariant is one way a page is seen: light or dark, desktop or phone.
type axeVariant struct {
	name   string
	dark   bool
	mobile bool
}

var axeVariants = []axeVariant{
	{"light desktop", false, false}, {"dark desktop", true, false},
	{"light mobile", false, true}, {"dark mobile", true, true},
}

// axeViolation is what axe.run reports of one rule.
type axeViolation struct {
	ID    string   `json:"id"`
	Help  string   `json:"help"`
	Nodes []string `json:"nodes"`
}

// axeRun runs axe-core's WCAG 2 A and AA rules on the page and returns the
// violations, each with the selectors and summaries of its nodes.
const axeRun = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}, resultTypes: ["violations"]})
.then(function(r){return r.violations.map(function(v){return {id: v.id, help: v.help,
nodes: v.nodes.map(function(n){return n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " ")})}})})`

// pageState is what a page sees of its variant, and the elements that
// stick out past the right edge of the screen (or the left, in Arabic) (outside a table's
// scrolling region, which may scroll).
type pageState struct {
	Dark     bool     `json:"dark"`
	Width    int      `json:"width"`
	Overflow []string `json:"overflow"`
}

const pageStateJS = `(function(){var w=document.documentElement.clientWidth,out=[];
document.querySelectorAll("body *").forEach(function(e){if(e.closest(".table-wrap")&&!e.closest(".row-actions"))return;
var r=e.getBoundingClientRect();if(r.width>0&&(r.right>w+1||r.left<-1))out.push(e.tagName.toLowerCase()+(e.id?"#"+e.id:"")+(e.className&&e.className.baseVal===undefined?"."+String(e.className).split(" ").join("."):"")+" spans "+Math.round(r.left)+" to "+Math.round(r.right)+"px of "+w)});
return {dark:matchMedia("(prefers-color-scheme: dark)").matches,width:innerWidth,overflow:out.slice(0,5)}})()`

// setVariant sets the viewport (a desktop window or a phone) and the
// colour scheme of a tab.
func setVariant(ctx context.Context, v axeVariant) error {
	vp := chromedp.EmulateViewport(1280, 800)
	if v.mobile {
		vp = chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	if err := chromedp.Do(ctx, vp); err != nil {
		return err
	}
	scheme := "light"
	if v.dark {
		scheme = "dark"
	}
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	return err
}

// TestBrowserAxe renders every page in light and dark, on a desktop and a
// phone, and runs axe-core's WCAG 2 A/AA rules on each: any violation
// fails, listed with its rule and nodes. axe is evaluated through the
// DevTools protocol, which the pages' CSP (no inline or foreign script)
// does not govern; TestBrowserAxeBypassesCSP shows that.
func TestBrowserAxe(t *testing.T) {
	axe := axeScript(t)
	start := time.Now()
	b := newBrowserFor(t, 4*time.Minute) // 31 pages × 4 variants: about 30 s on two busy cores
	h := newHarnessMail(t, func(_ *Options, l *service.Limits) { l.Accounts.ConfirmEmail = false }, queuedMail{})
	// The pages and /help/api, mounted as the hush command mounts them.
	mux := http.NewServeMux()
	apiServer := api.New(api.Options{Service: h.svc, MaxBody: 2 << 20, Version: "test"})
	mux.Handle("GET /help/api", apiServer.HelpHandler())
	mux.Handle("/api/", apiServer.Handler())
	mux.Handle("/", h.web.Handler())
	ts := httptest.NewServer(httpx.Baseline(mux, false))
	t.Cleanup(ts.Close)
	base := ts.URL

	// An admin with a long address, and pushes with long values.
	email := "a.rather.long.mailbox.name.for.wrapping@an-exceptionally-long-subdomain.example.com"
	h.signUp(email, "admin password")
	ada := h.promote(email)
	h.signUp("bob@example.com", "bob password one")
	bob := h.user("bob@example.com")
	longName := strings.Repeat("production-database-credentials-", 7)
	text := h.create(ada, fields{"payload": "hunter2 hunter2", "name": longName, "expire_after_views": "20",
		"note": "for the on-call engineer", "retrieval_step": "false"})
	longUA := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) " + strings.Repeat("SomeVeryLongBrowserExtensionToken/1.2.3.4.5.6.7.8.9 ", 4)
	if _, err := h.svc.Retrieve(context.Background(), text, "", nil, push.Meta{IP: "2001:db8::1234:5678:9abc", UserAgent: longUA,
		Referrer: "https://mail.example.com/" + strings.Repeat("very/long/path/", 10)}); err != nil {
		t.Fatal(err)
	}
	step := h.create(ada, fields{"payload": "behind a step", "retrieval_step": "true", "expire_after_views": "20"})
	guarded := h.create(ada, fields{"payload": "behind a door", "passphrase": "open sesame", "expire_after_views": "20"})
	qr := h.create(ada, fields{"kind": "qr", "payload": "WIFI:S:office;T:WPA;P:correct horse;;", "expire_after_views": "20"})
	gone := h.create(ada, fields{"payload": "gone", "expire_after_views": "1"})
	h.client().get("/p/" + gone)

	// The visitor's pages.
	type target struct {
		path  string
		setup func(ctx context.Context) // after navigating, before the check
	}
	visitor := []target{
		{"/", nil}, {"/?kind=url", nil}, {"/?kind=qr", nil},
		{"/p/" + text + "/preview", nil}, {"/p/" + step + "/r", nil}, {"/p/" + guarded + "/passphrase", nil},
		{"/p/" + text, nil}, {"/p/" + qr, nil}, {"/p/" + gone, nil},
		{"/users/sign_in", nil}, {"/users/sign_up", nil}, {"/users/password/new", nil}, {"/help/api", nil},
		// The recipient's pages right to left.
		{"/ar/p/" + step + "/r", nil}, {"/ar/p/" + guarded + "/passphrase", nil}, {"/ar/p/" + text, nil}, {"/ar/p/" + gone, nil},
		{"/p/" + step + "/r", func(ctx context.Context) { // the stale page after a reload
			b.do(ctx, chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#secret")), chromedp.Reload(), chromedp.WaitVisible(css("#view-again")))
		}},
		{"/?kind=qr", func(ctx context.Context) { // a form with an error
			run(b, ctx, chromedp.Evaluate[bool](`(function(){document.getElementById("payload").value="x".repeat(1100);return true})()`))
			submitUnchecked(b, ctx)
		}},
	}
	admin := []target{
		{"/dashboard", nil}, {"/dashboard?tab=expired", nil}, {"/p/" + text + "/audit", nil}, {"/?kind=file", nil},
		{"/users/edit", nil}, {"/users/token", nil}, {"/users/two_factor", nil},
		{"/users/two_factor", func(ctx context.Context) {
			b.do(ctx, chromedp.Click(css(`form[action="/users/two_factor/setup"] button`)), chromedp.WaitVisible(css("#code")))
		}},
		{"/admin", nil}, {"/admin/users", nil}, {fmt.Sprintf("/admin/users/%d", bob.ID), nil}, {"/admin/log", nil},
	}

	var failures []string
	check := func(ctx context.Context, tg target) {
		t.Helper()
		b.do(ctx, chromedp.Navigate(base+tg.path), chromedp.WaitReady(css("main")))
		if tg.setup != nil {
			tg.setup(ctx)
		}
		run(b, ctx, chromedp.Evaluate[bool](axe+";true"))
		for _, v := range axeVariants {
			if err := setVariant(ctx, v); err != nil {
				t.Fatal(err)
			}
			state := run(b, ctx, chromedp.Evaluate[pageState](pageStateJS))
			if state.Dark != v.dark || (state.Width == 390) != v.mobile {
				t.Fatalf("%s (%s): the page sees %+v", tg.path, v.name, state)
			}
			for _, o := range state.Overflow {
				failures = append(failures, fmt.Sprintf("%s (%s): wider than the screen: %s", tg.path, v.name, o))
			}
			out := run(b, ctx, chromedp.Evaluate[json.RawMessage](axeRun, chromedp.EvalAwaitPromise))
			var vs []axeViolation
			if err := json.Unmarshal(out, &vs); err != nil {
				t.Fatalf("%s: axe said %s: %v", tg.path, out, err)
			}
			for _, x := range vs {
				failures = append(failures, fmt.Sprintf("%s (%s): %s — %s\n    %s", tg.path, v.name, x.ID, x.Help, strings.Join(x.Nodes, "\n    ")))
			}
		}
	}
	p := b.person()
	for _, tg := range visitor {
		check(p, tg)
	}
	a := b.person()
	b.do(a, chromedp.Navigate(base+"/users/sign_in"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), email), chromedp.SendKeys(css("#password"), "admin password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("nav.tabs")))
	for _, tg := range admin {
		check(a, tg)
	}
	if len(failures) > 0 {
		t.Errorf("%d accessibility violations:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	t.Logf("%d pages × %d variants checked in %s", len(visitor)+len(admin), len(axeVariants), time.Since(start).Round(time.Millisecond))
}

// TestBrowserAxeBypassesCSP: the pages' CSP forbids inline script, yet a
// script evaluated through the DevTools protocol runs — which is how the
// accessibility check injects axe-core.
func TestBrowserAxeBypassesCSP(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	p := b.person()
	b.do(p, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")))
	if got := run(b, p, chromedp.Evaluate[string](`window.hushProbe = "ran"; window.hushProbe`)); got != "ran" {
		t.Errorf("protocol evaluation under the CSP: %q", got)
	}
	// The same script as an inline <script> is refused.
	run(b, p, chromedp.Evaluate[bool](`(function(){var s=document.createElement("script");s.textContent="window.hushInline=1";document.body.appendChild(s);return true})()`))
	if got := run(b, p, chromedp.Evaluate[bool](`window.hushInline === 1`)); got {
		t.Error("an inline script ran: the CSP is not in force, so this proves nothing")
	}
}
