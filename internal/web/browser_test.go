package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium, or HUSH_CHROMIUM. Without it the
// browser tests skip, unless HUSH_REQUIRE_ALL=1 makes that a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("HUSH_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		msg := "browser tests need Chromium at " + p + " (apt-get install chromium, or set HUSH_CHROMIUM)"
		if os.Getenv("HUSH_REQUIRE_ALL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// browser is one headless Chromium process; each person gets a fresh
// browser context (own cookies) in it. Console errors of every page are
// collected.
type browser struct {
	t     *testing.T
	alloc context.Context
	mu    sync.Mutex
	errs  []string
}

func newBrowser(t *testing.T) *browser { return newBrowserFor(t, 90*time.Second) }

// newBrowserFor is newBrowser for a test that may take up to d; extra
// adds command-line options.
func newBrowserFor(t *testing.T, d time.Duration, extra ...chromedp.ExecAllocatorOption) *browser {
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 800),
	}, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	// The first context owns the browser process.
	root, cancelRoot := chromedp.NewContext(alloc)
	t.Cleanup(cancelRoot)
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, alloc: root}
}

// person opens a fresh browser context: no cookies shared with anyone else.
func (b *browser) person() context.Context {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(b.alloc, chromedp.WithNewBrowserContext())
	b.t.Cleanup(cancel)
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			// Answers such as 401 for a wrong passphrase are logged by the
			// network source; they are expected. Everything else is not.
			if (m.Type == chromedp.ConsoleError || m.IsException()) && m.Source != "network" {
				b.mu.Lock()
				b.errs = append(b.errs, m.String())
				b.mu.Unlock()
			}
		}
	}()
	b.do(ctx, chromedp.EmulateViewport(1000, 800))
	return ctx
}

func (b *browser) do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// signUp signs a new account up through the form in the browser of ctx
// and waits for its dashboard.
func (b *browser) signUp(ctx context.Context, base, email, password string) {
	b.t.Helper()
	b.do(ctx, chromedp.Navigate(base+"/users/sign_up"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), email),
		chromedp.SendKeys(css("#password"), password),
		chromedp.SendKeys(css("#password_confirmation"), password),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("nav.tabs")))
}

func run[T any](b *browser, ctx context.Context, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// consoleErrors waits a moment for late messages and returns them.
func (b *browser) consoleErrors() []string {
	time.Sleep(200 * time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// shot saves a screenshot when HUSH_SCREENSHOTS names a directory.
func (b *browser) shot(ctx context.Context, name string) {
	b.t.Helper()
	dir := os.Getenv("HUSH_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := run(b, ctx, chromedp.FullScreenshot(100)) // quality 100 gives PNG
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

func TestBrowserFlows(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)

	// A person with only the installation URL signs up and gets a token.
	alice := b.person()
	b.do(alice, chromedp.Navigate(h.url+"/users/sign_up"), chromedp.WaitVisible(css("#email")))
	b.shot(alice, "sign-up")
	b.do(alice,
		chromedp.SendKeys(css("#email"), "alice@example.com"),
		chromedp.SendKeys(css("#password"), "alice password"),
		chromedp.SendKeys(css("#password_confirmation"), "alice password"),
		chromedp.Click(css("main button[type=submit]")),
		chromedp.WaitVisible(css("nav.tabs")),
		chromedp.Navigate(h.url+"/users/token"), chromedp.WaitVisible(css("#create-token")),
		chromedp.Click(css("#create-token")), chromedp.WaitVisible(css("#token")))
	token := run(b, alice, chromedp.Value(css("#token")))
	req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v2/pushes/active", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if r := h.client().do(req); r.status != http.StatusOK {
		t.Fatalf("token from the page against the API: %d", r.status)
	}

	// Alice creates a one-view text push with a generated password.
	b.do(alice, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.Click(css("[data-generate]")))
	secret := run(b, alice, chromedp.Value(css("#payload")))
	if !defaultGenerated.MatchString(secret) {
		t.Fatalf("generated password %q, want three syllables as the default settings say", secret)
	}
	b.do(alice, chromedp.SetValue(css("#expire_after_views"), "1"),
		chromedp.SendKeys(css("#name"), "browser push"))
	b.shot(alice, "create")
	b.do(alice, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	link := run(b, alice, chromedp.Value(css("#secret-url")))
	if !strings.HasPrefix(link, h.url+"/p/") || !strings.HasSuffix(link, "/r") {
		t.Fatalf("secret link %q", link)
	}
	b.shot(alice, "preview")

	// Bob has only the link.
	bob := b.person()
	b.do(bob, chromedp.Navigate(link), chromedp.WaitVisible(css("#reveal")))
	b.shot(bob, "retrieval-step")
	b.do(bob, chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#secret")))
	if got := run(b, bob, chromedp.TextContent(css("#secret"))); got != secret {
		t.Fatalf("bob reads %q, want %q", got, secret)
	}
	if cls := run(b, bob, chromedp.Evaluate[string](`document.getElementById("secret").className`)); !strings.Contains(cls, "blurred") {
		t.Errorf("secret not blurred at first: %q", cls)
	}
	b.do(bob, chromedp.Click(css("[data-reveal]")))
	if cls := run(b, bob, chromedp.Evaluate[string](`document.getElementById("secret").className`)); strings.Contains(cls, "blurred") {
		t.Errorf("secret still blurred after Show: %q", cls)
	}
	b.shot(bob, "secret")
	// The copy button's outcome is said to screen readers too, through a
	// polite live region (the clipboard may be refused to a headless
	// browser: then the failure is what is said).
	b.do(bob, chromedp.Click(css("[data-copy]")))
	said := ""
	for range 100 {
		said = run(b, bob, chromedp.Evaluate[string](`(document.querySelector("[role=status][aria-live=polite]") || {}).textContent || ""`))
		if said != "" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if said != "Copied to the clipboard" && !strings.HasPrefix(said, "Copy failed") {
		t.Errorf("after Copy the live region says %q", said)
	}
	if _, err := chromedp.Call(bob, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	b.shot(bob, "secret-dark")
	b.do(bob, chromedp.Reload(), chromedp.WaitVisible(css("h1")))
	if h1 := run(b, bob, chromedp.Text(css("h1"))); h1 != "This secret link has expired" {
		t.Errorf("after the last view: %q", h1)
	}
	b.shot(bob, "expired")

	// The passphrase flow.
	b.do(alice, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "door code 4711"),
		chromedp.SendKeys(css("#passphrase"), "blue whale"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	link = run(b, alice, chromedp.Value(css("#secret-url")))
	carol := b.person()
	b.do(carol, chromedp.Navigate(link), chromedp.WaitVisible(css("#reveal")),
		chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#passphrase")))
	b.shot(carol, "passphrase")
	b.do(carol, chromedp.SendKeys(css("#passphrase"), "red whale"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css(".alert")))
	if msg := run(b, carol, chromedp.Text(css(".alert"))); !strings.Contains(msg, "incorrect") {
		t.Errorf("wrong passphrase message %q", msg)
	}
	b.do(carol, chromedp.SendKeys(css("#passphrase"), "blue whale"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret")))
	if got := run(b, carol, chromedp.TextContent(css("#secret"))); got != "door code 4711" {
		t.Errorf("carol reads %q", got)
	}

	// A file push: Alice attaches a file in the form; Dave, with only the
	// link, passes the retrieval step, sees the file and downloads it.
	fileData := []byte("line one\nline two\n\x00\x01binary tail")
	filePath := filepath.Join(t.TempDir(), "vpn-config.ovpn")
	if err := os.WriteFile(filePath, fileData, 0o600); err != nil {
		t.Fatal(err)
	}
	b.do(alice, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("nav.tabs")),
		chromedp.Click(css(`nav.tabs a[href="/?kind=file"]`)), chromedp.WaitVisible(css("#files")),
		chromedp.SetUploadFiles(css("#files"), []string{filePath}),
		chromedp.SendKeys(css("#payload"), "the VPN profile, as promised"))
	b.shot(alice, "create-file")
	b.do(alice, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	link = run(b, alice, chromedp.Value(css("#secret-url")))
	if !strings.HasSuffix(link, "/r") {
		t.Fatalf("file push link %q", link)
	}
	dave := b.person()
	b.do(dave, chromedp.Navigate(link), chromedp.WaitVisible(css("#reveal")),
		chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("ul.files a")))
	if got := run(b, dave, chromedp.TextContent(css("#secret"))); got != "the VPN profile, as promised" {
		t.Errorf("dave reads the message %q", got)
	}
	if li := run(b, dave, chromedp.Text(css("ul.files li"))); li != "vpn-config.ovpn ("+humanSize(int64(len(fileData)))+")" {
		t.Errorf("file listed as %q", li)
	}
	b.shot(dave, "secret-files")
	href := run(b, dave, chromedp.AttributeValue(css("ul.files a"), "href"))
	if !strings.HasPrefix(href.Value, h.url+"/api/v2/files/") {
		t.Fatalf("download link %q", href.Value)
	}
	res, err := http.Get(href.Value)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Equal(got, fileData) {
		t.Errorf("download: %d %q, want %q", res.StatusCode, got, fileData)
	}

	// The dashboard lists Alice's pushes; the audit log shows Bob's view.
	b.do(alice, chromedp.Navigate(h.url+"/dashboard?tab=expired"), chromedp.WaitVisible(css("table")))
	if txt := run(b, alice, chromedp.Text(css("main"))); !strings.Contains(txt, "browser push") {
		t.Errorf("expired tab lacks the push:\n%s", txt)
	}
	b.do(alice, chromedp.Navigate(h.url+"/dashboard"), chromedp.WaitVisible(css("table")))
	b.shot(alice, "dashboard")
	b.do(alice, chromedp.Navigate(h.url+"/dashboard?tab=expired"), chromedp.WaitVisible(css("table")),
		chromedp.Click(css("td a")), chromedp.WaitVisible(css("h2")))
	if txt := run(b, alice, chromedp.Text(css("main"))); !strings.Contains(txt, "Viewed") || !strings.Contains(txt, "Opened after it had expired") {
		t.Errorf("audit page:\n%s", txt)
	}
	b.shot(alice, "audit")

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserSeesCSPViolations proves that the console check above would
// catch a CSP violation: an inline script is refused and reported.
func TestBrowserSeesCSPViolations(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	p := b.person()
	b.do(p, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")))
	run(b, p, chromedp.Evaluate[bool](`(function(){var s=document.createElement("script");s.textContent="window.x=1";document.body.appendChild(s);return true})()`))
	if errs := b.consoleErrors(); len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), "Content Security Policy") {
		t.Errorf("an inline script ran or was not reported: %v", errs)
	}
}

// TestBrowserSubDayDuration: in a browser, a push that lasts 15 minutes is
// chosen on the form and its preview, open to anyone with the link, says so.
func TestBrowserSubDayDuration(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	carol := b.person()
	b.do(carol, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "for a quarter of an hour"),
		chromedp.SetValue(css("#expire_after_duration"), "0"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	if txt := run(b, carol, chromedp.Text(css("main"))); !strings.Contains(txt, "expires after 15 minutes") {
		t.Errorf("preview: %s", txt)
	}
	link := run(b, carol, chromedp.Value(css("#secret-url")))
	tok := strings.TrimSuffix(strings.TrimPrefix(link, h.url+"/p/"), "/r")
	if p, err := h.svc.Lookup(context.Background(), tok); err != nil || p.ExpireAfter != 15*time.Minute {
		t.Errorf("stored: %+v, %v; want 15 minutes", p, err)
	}
	dave := b.person()
	b.do(dave, chromedp.Navigate(strings.TrimSuffix(link, "/r")+"/preview"), chromedp.WaitVisible(css("svg.qr")))
	if got := run(b, dave, chromedp.Value(css("#secret-url"))); got != link {
		t.Errorf("another visitor's preview shows %q, want %q", got, link)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestBrowserPlainHTTPForms: reached over plain HTTP by a name other than
// localhost — where a browser sends no Sec-Fetch-Site — the forms work
// (create, reveal, sign-up), and a form another site posts to the pages
// is still refused (docs/decisions.md, D57).
func TestBrowserPlainHTTPForms(t *testing.T) {
	b := newBrowserFor(t, 90*time.Second,
		chromedp.Flag("host-resolver-rules", "MAP hush.test 127.0.0.1, MAP other.test 127.0.0.1"))
	h := newHarness(t, nil)
	u, err := url.Parse(h.url)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://hush.test:" + u.Port()

	alice := b.person()
	b.do(alice, chromedp.Navigate(base+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "plain http secret"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	link := run(b, alice, chromedp.Value(css("#secret-url")))
	if !strings.HasPrefix(link, base+"/p/") {
		t.Fatalf("secret link %q", link)
	}
	bob := b.person()
	b.do(bob, chromedp.Navigate(link), chromedp.WaitVisible(css("#reveal")),
		chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#secret")))
	if got := run(b, bob, chromedp.TextContent(css("#secret"))); got != "plain http secret" {
		t.Fatalf("bob reads %q", got)
	}
	carol := b.person()
	b.signUp(carol, base, "carol@example.com", "carol password")

	// Another site's page posts the create form to Hush.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/"><input name="payload" value="planted"></form><script>document.getElementById("f").submit()</script>`, base)
	}))
	t.Cleanup(other.Close)
	ou, _ := url.Parse(other.URL)
	mallory := b.person()
	b.do(mallory, chromedp.Navigate("http://other.test:"+ou.Port()+"/"), chromedp.WaitVisible(css("main")))
	if body := run(b, mallory, chromedp.TextContent(css("main"))); !strings.Contains(body, "sent from another site") {
		t.Errorf("a form posted from another site was not refused: %q", body)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
