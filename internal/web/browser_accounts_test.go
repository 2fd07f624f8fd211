package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hush/internal/push"
)

// TestBrowserAccounts drives the account pages in Chromium: the second
// factor (set-up by QR code and secret, recovery codes, sign-in with a
// code), the token page with its confirmation dialog, the admin pages, and
// the confirmation page a browser without JavaScript gets.
func TestBrowserAccounts(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, func(o *Options, _ *push.Settings) {
		o.Version = "1.0.0"
		o.Settings = []Setting{{"HUSH_DATABASE_URL", "SQLite /var/lib/hush/hush.db"}, {"HUSH_MASTER_KEY", "set, from /run/secrets/hush-key"},
			{"PWP__REQUIRE_MFA", "false"}, {"PWP__DISABLE_SIGNUPS", "false"}}
	})
	ctx := context.Background()

	alice := b.person()
	b.signUp(alice, h.url, "alice@example.com", "alice password")

	// Set up the second factor.
	b.do(alice, chromedp.Navigate(h.url+"/users/edit"), chromedp.WaitVisible(css("#two-factor")),
		chromedp.Click(css("#two-factor")), chromedp.WaitVisible(css("#setup")),
		chromedp.Click(css("#setup")), chromedp.WaitVisible(css("svg.qr")))
	b.shot(alice, "two-factor-setup")
	secret := run(b, alice, chromedp.Text(css("#totp-secret")))
	b.do(alice, chromedp.SendKeys(css("#current_password"), "alice password"),
		chromedp.SendKeys(css("#code"), h.totpCode(secret)),
		chromedp.Click(css("form[action='/users/two_factor/enable'] button")), chromedp.WaitVisible(css("#recovery-codes")))
	codes := strings.Fields(run(b, alice, chromedp.Text(css("#recovery-codes"))))
	if len(codes) != 10 {
		t.Fatalf("recovery codes on the page: %q", codes)
	}
	b.shot(alice, "two-factor-codes")

	// Sign out and in again: password, then the code.
	h.clock.Advance(30 * time.Second)
	b.do(alice, chromedp.Click(css("header form button")), chromedp.WaitVisible(css("#payload")),
		chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), "alice@example.com"),
		chromedp.SendKeys(css("#password"), "alice password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("#code")))
	b.shot(alice, "sign-in-code")
	b.do(alice, chromedp.SendKeys(css("#code"), h.totpCode(secret)),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css("nav.tabs")))

	// The token page: Create, then Replace asks in a dialog; Cancel keeps
	// the token, the dialog's button replaces it.
	b.do(alice, chromedp.Navigate(h.url+"/users/token"), chromedp.WaitVisible(css("#create-token")))
	b.shot(alice, "token-none")
	b.do(alice, chromedp.Click(css("#create-token")), chromedp.WaitVisible(css("#token")))
	first := run(b, alice, chromedp.Value(css("#token")))
	b.do(alice, chromedp.Navigate(h.url+"/users/token"), chromedp.WaitVisible(css("form[data-confirm] button")),
		chromedp.Click(css("form[data-confirm] button")), chromedp.WaitVisible(css("dialog.confirm")))
	if txt := run(b, alice, chromedp.Text(css("dialog.confirm"))); !strings.Contains(txt, "stops working at once") {
		t.Errorf("dialog: %q", txt)
	}
	b.shot(alice, "token-replace-dialog")
	b.do(alice, chromedp.Click(css("#confirm-cancel")), chromedp.WaitNotPresent(css("dialog.confirm")))
	if u, err := h.svc.UserByToken(ctx, first); err != nil || u.Email != "alice@example.com" {
		t.Fatalf("the token after Cancel: %v", err)
	}
	b.do(alice, chromedp.Click(css("form[data-confirm] button")), chromedp.WaitVisible(css("#confirm-ok")),
		chromedp.Click(css("#confirm-ok")), chromedp.WaitVisible(css("#token")))
	if second := run(b, alice, chromedp.Value(css("#token"))); second == first {
		t.Fatal("the token was not replaced")
	}
	if _, err := h.svc.UserByToken(ctx, first); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("the replaced token: %v", err)
	}

	// Admin pages.
	h.promote("alice@example.com")
	bob := b.person()
	b.signUp(bob, h.url, "bob@example.com", "bob password")
	h.create(h.user("bob@example.com"), fields{"payload": "bob's", "name": "bob's push"})
	b.do(alice, chromedp.Navigate(h.url+"/dashboard"), chromedp.WaitVisible(css(`header a[href="/admin"]`)),
		chromedp.Click(css(`header a[href="/admin"]`)), chromedp.WaitVisible(css("dl.facts")))
	b.shot(alice, "admin")
	b.do(alice, chromedp.Navigate(h.url+"/admin/users"), chromedp.WaitVisible(css("#q")),
		chromedp.SendKeys(css("#q"), "bob"), chromedp.Click(css("form.search button")),
		// The list before the search has a table too: wait for the search's page.
		chromedp.WaitVisible(css(`#q[value="bob"]`)), chromedp.WaitVisible(css("table")))
	b.shot(alice, "admin-users")
	b.do(alice, chromedp.Click(css("td a")), chromedp.WaitVisible(css("form.admin-action")))
	b.shot(alice, "admin-user")
	b.do(alice, chromedp.Click(css(`button[data-action="disable"]`)), chromedp.WaitVisible(css("#confirm-ok")))
	b.shot(alice, "admin-confirm-dialog")
	b.do(alice, chromedp.Click(css("#confirm-ok")), chromedp.WaitVisible(css(".notice")))
	if txt := run(b, alice, chromedp.Text(css(".notice"))); !strings.Contains(txt, "bob@example.com: disabled") {
		t.Errorf("after disabling: %q", txt)
	}
	// Bob's open page is signed out at once.
	b.do(bob, chromedp.Navigate(h.url+"/dashboard"), chromedp.WaitVisible(css("#email")))
	b.do(alice, chromedp.Navigate(h.url+"/admin/log"), chromedp.WaitVisible(css("table")))
	if txt := run(b, alice, chromedp.Text(css("table"))); !strings.Contains(txt, "Disabled") || !strings.Contains(txt, "bob@example.com") {
		t.Errorf("admin log: %s", txt)
	}
	b.shot(alice, "admin-log")

	// Without JavaScript, "Expire now" leads to a confirmation page.
	carol := b.person()
	if _, err := chromedp.Call(carol, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	b.signUp(carol, h.url, "carol@example.com", "carol password")
	tok := h.create(h.user("carol@example.com"), fields{"payload": "carol's", "name": "carol's push"})
	b.do(carol, chromedp.Navigate(h.url+"/dashboard"), chromedp.WaitVisible(css("td form button")),
		chromedp.Click(css("td form button")), chromedp.WaitVisible(css("#confirm")))
	b.shot(carol, "confirm-page")
	if p, _ := h.svc.Lookup(ctx, tok); p.Expired {
		t.Fatal("expired before the confirmation")
	}
	b.do(carol, chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("h2")))
	if p, _ := h.svc.Lookup(ctx, tok); !p.Expired {
		t.Fatal("not expired after the confirmation")
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
