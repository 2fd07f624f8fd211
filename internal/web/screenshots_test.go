package web

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserScreenshotVariants takes the main pages — create, preview,
// the secret, the dashboard — on a phone and in the dark theme for the
// README, when HUSH_SCREENSHOTS names a directory (make screenshots). Each
// picture is a PNG at device scale 1 as wide as its screen.
func TestBrowserScreenshotVariants(t *testing.T) {
	dir := os.Getenv("HUSH_SCREENSHOTS")
	if dir == "" {
		t.Skip("takes screenshots only for make screenshots (HUSH_SCREENSHOTS)")
	}
	b := newBrowser(t)
	h := newHarness(t, nil)
	h.signUp("alice@example.com", "alice password")
	alice := h.user("alice@example.com")
	h.create(alice, fields{"payload": "x", "name": "VPN profile for the new laptop", "expire_after_views": "3"})
	h.create(alice, fields{"payload": "x", "name": "Database password, staging", "expire_after_views": "1"})
	tok := h.create(alice, fields{"payload": "correct horse battery staple", "name": "Wi-Fi for guests", "expire_after_views": "10"})

	p := b.person()
	b.do(p, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), "alice@example.com"), chromedp.SendKeys(css("#password"), "alice password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("nav.tabs")))
	pages := []struct{ name, path string }{
		{"create", "/"}, {"preview", "/p/" + tok + "/preview"}, {"secret", "/p/" + tok}, {"dashboard", "/dashboard"},
	}
	for _, pg := range pages {
		for _, v := range []axeVariant{{"mobile", false, true}, {"mobile-dark", true, true}, {"dark", true, false}} {
			if pg.name == "secret" && v.name == "dark" {
				continue // TestBrowserFlows takes secret-dark
			}
			if err := setVariant(p, v); err != nil {
				t.Fatal(err)
			}
			// Each view of the secret uses one; it has views enough.
			b.do(p, chromedp.Navigate(h.url+pg.path), chromedp.WaitReady(css("main")))
			width := 1280
			if v.mobile {
				width = 390
			}
			savePNG(t, b, p, dir, pg.name+"-"+v.name, width)
		}
	}
}

// TestBrowserScreenshotLanguages takes the secret page on a phone in
// German, Japanese and Arabic for the README's Languages section, when
// HUSH_SCREENSHOTS names a directory (make screenshots).
func TestBrowserScreenshotLanguages(t *testing.T) {
	dir := os.Getenv("HUSH_SCREENSHOTS")
	if dir == "" {
		t.Skip("takes screenshots only for make screenshots (HUSH_SCREENSHOTS)")
	}
	b := newBrowser(t)
	h := newHarness(t, nil)
	p := b.person()
	if err := setVariant(p, axeVariant{"phone", false, true}); err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"de", "ja", "ar"} {
		tok := h.create(nil, fields{"payload": "correct horse battery staple", "expire_after_views": "5",
			"deletable_by_viewer": "true", "push_locale": code})
		b.do(p, chromedp.Navigate(h.url+"/"+code+"/p/"+tok), chromedp.WaitVisible(css("#secret")))
		if lang := run(b, p, chromedp.Evaluate[string](`document.documentElement.lang`)); lang != code {
			t.Fatalf("%s: page in %q", code, lang)
		}
		savePNG(t, b, p, dir, "secret-"+code, 390)
	}
}

// savePNG saves a full-page screenshot of ctx as dir/name.png, and fails
// unless it is a PNG width pixels wide (device scale 1).
func savePNG(t *testing.T, b *browser, ctx context.Context, dir, name string, width int) {
	t.Helper()
	png := run(b, ctx, chromedp.FullScreenshot(100)) // quality 100 gives PNG
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 24 || binary.BigEndian.Uint32(png[16:20]) != uint32(width) {
		t.Fatalf("%s: not a PNG %d pixels wide", name, width)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
