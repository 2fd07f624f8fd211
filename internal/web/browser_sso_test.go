package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hush/internal/service"
)

// TestBrowserSSO drives single sign-on in Chromium against the real
// provider (internal/oidctest): the sign-in page's button, the provider's
// own login page, back to the dashboard; a push made and listed there;
// signing out.
func TestBrowserSSO(t *testing.T) {
	b := newBrowser(t)
	h := startSSO(t, service.SSORules{CreateUsers: true})

	alice := b.person()
	b.do(alice, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css("#sso")))
	b.shot(alice, "sso-sign-in")
	if label := run(b, alice, chromedp.Text(css("#sso"))); label != "Sign in with Corp ID" {
		t.Fatalf("the button says %q", label)
	}
	// The provider's login page, on the provider's origin.
	b.do(alice, chromedp.Click(css("#sso")), chromedp.WaitVisible(css("#username")))
	if loc := run(b, alice, chromedp.Location()); !strings.HasPrefix(loc, ssoIssuerOf(h)) {
		t.Fatalf("the login page is at %q, not the provider", loc)
	}
	b.do(alice, chromedp.SendKeys(css("#username"), ssoAlice.Username),
		chromedp.SendKeys(css("#password"), ssoAlice.Password),
		chromedp.Click(css("button[type=submit]")), chromedp.WaitVisible(css("nav.tabs")))
	if loc := run(b, alice, chromedp.Location()); loc != h.url+"/dashboard" {
		t.Fatalf("after the provider: %q", loc)
	}

	b.do(alice, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "a secret made after SSO"),
		chromedp.SendKeys(css("#name"), "sso push"),
		chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	b.do(alice, chromedp.Navigate(h.url+"/dashboard"), chromedp.WaitVisible(css("nav.tabs")))
	if txt := run(b, alice, chromedp.Text(css("main"))); !strings.Contains(txt, "sso push") {
		t.Fatalf("the dashboard does not list the push:\n%s", txt)
	}
	b.shot(alice, "sso-dashboard")

	// Signing out ends the session: the dashboard asks to sign in again.
	b.do(alice, chromedp.Click(css("header form button")), chromedp.WaitVisible(css("#payload")),
		chromedp.Navigate(h.url+"/dashboard"), chromedp.WaitVisible(css("#sso")))
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Fatalf("console errors: %q", errs)
	}
}
