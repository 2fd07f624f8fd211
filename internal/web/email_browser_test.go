package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hush/internal/mail/smtp"
	"hush/internal/mailtest"
	"hush/internal/service"
)

// newMailHarness is a harness whose service sends email to a fresh
// Mailpit; deliver sends what the outbox holds.
func newMailHarness(t *testing.T) (*harness, *mailtest.Server, func()) {
	t.Helper()
	return newMailHarnessWith(t, nil)
}

// mailpitSender sends through Mailpit mp.
func mailpitSender(t *testing.T, mp *mailtest.Server) *smtp.Sender {
	t.Helper()
	sender, err := smtp.NewSender(smtp.Config{Host: mp.Host, Port: mp.Port, From: "hush@example.com",
		OpenTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return sender
}

// newMailHarnessWith is newMailHarness with configure, which may change the
// options and limits before the server starts.
func newMailHarnessWith(t *testing.T, configure func(*Options, *service.Limits)) (*harness, *mailtest.Server, func()) {
	t.Helper()
	mp := mailtest.Start(t, mailtest.Options{})
	h := newHarnessMail(t, configure, mailpitSender(t, mp))
	deliver := func() {
		t.Helper()
		if err := h.svc.DeliverOutbox(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return h, mp, deliver
}

// TestBrowserEmail: in Chromium, with the strict CSP, a person emails a
// push's link and asks for a receipt on the create form, sets the default
// on the account page, and resets a forgotten password from the sign-in
// page through the emailed link.
func TestBrowserEmail(t *testing.T) {
	b := newBrowser(t)
	h, mp, deliver := newMailHarness(t)

	carol := b.person()
	b.signUp(carol, h.url, "carol@example.com", "carol password")

	// The default receipts, on the account page.
	b.do(carol, chromedp.Navigate(h.url+"/users/edit"), chromedp.WaitVisible(css(`input[name="receipt_on_expire"]`)),
		chromedp.Click(css(`input[name="receipt_on_expire"]`)))
	b.shot(carol, "account-email")
	b.do(carol, chromedp.Submit(css(`input[name="receipt_on_expire"]`)), chromedp.WaitVisible(css(".notice")))

	// The create form: the recipients and the receipts, the default ticked.
	b.do(carol, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#notify_emails_to")))
	if on := run(b, carol, chromedp.Evaluate[bool](`document.querySelector('input[name="receipt_on_expire"]').checked`)); !on {
		t.Error("the account's default receipt is not ticked on the form")
	}
	b.do(carol, chromedp.SendKeys(css("#payload"), "for dave's eyes"),
		chromedp.SendKeys(css("#notify_emails_to"), "dave@example.org"),
		chromedp.Click(css(`input[name="receipt_on_view"]`)))
	b.shot(carol, "create-email")
	b.do(carol, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css("#secret-url")))
	link := run(b, carol, chromedp.Value(css("#secret-url")))
	deliver()
	msg := mp.Wait(t, "dave@example.org", 1, 5*time.Second)[0]
	if !strings.Contains(msg.Text, link) || strings.Contains(msg.Text, "for dave's eyes") {
		t.Errorf("dave's message (link %s):\n%s", link, msg.Text)
	}

	// Dave opens it: Carol hears of the view (4 views are left: no expiry).
	dave := b.person()
	b.do(dave, chromedp.Navigate(link), chromedp.WaitVisible(css("#reveal")),
		chromedp.Click(css("#reveal")), chromedp.WaitVisible(css("#secret")))
	deliver()
	if got := mp.Wait(t, "carol@example.com", 1, 5*time.Second)[0].Subject; !strings.Contains(got, "was viewed") {
		t.Errorf("receipt subject %q", got)
	}

	// Forgot the password: from the sign-in page to a new password.
	erin := b.person()
	b.do(erin, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css(`a[href="/users/password/new"]`)),
		chromedp.Click(css(`a[href="/users/password/new"]`)), chromedp.WaitVisible(css("#email")))
	b.shot(erin, "password-forgot")
	b.do(erin, chromedp.SendKeys(css("#email"), "carol@example.com"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css(".notice")))
	deliver()
	var resetLink string
	for _, m := range mp.Wait(t, "carol@example.com", 2, 5*time.Second) {
		if m.Subject == "Reset your Hush password" {
			for _, f := range strings.Fields(m.Text) {
				if strings.Contains(f, "/users/password/edit?") {
					resetLink = f
				}
			}
		}
	}
	u, err := url.Parse(resetLink)
	if err != nil || resetLink == "" {
		t.Fatalf("no reset link: %q", resetLink)
	}
	b.do(erin, chromedp.Navigate(h.url+u.RequestURI()), chromedp.WaitVisible(css("#password")))
	b.shot(erin, "password-reset")
	b.do(erin, chromedp.SendKeys(css("#password"), "carol new password"),
		chromedp.SendKeys(css("#password_confirmation"), "carol new password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitNotPresent(css("#password_confirmation")))
	if h1 := run(b, erin, chromedp.Text(css("h1"))); h1 != "Your password has been changed" {
		t.Errorf("after the reset: %q", h1)
	}
	// Carol's own session ended with the reset.
	b.do(carol, chromedp.Navigate(h.url+"/users/edit"), chromedp.WaitVisible(css("h1")))
	if h1 := run(b, carol, chromedp.Text(css("h1"))); h1 == "Your account" {
		t.Error("carol's session survived the reset")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors (CSP?): %v", errs)
	}
}

// TestBrowserConfirmAccount: where new accounts confirm their address, a
// person signs up in Chromium, is told to confirm, cannot sign in yet,
// opens the emailed link, is refused with another password and signed in
// with theirs (docs/decisions.md, D68), and signs in again later.
func TestBrowserConfirmAccount(t *testing.T) {
	b := newBrowser(t)
	mp := mailtest.Start(t, mailtest.Options{})
	sender, err := smtp.NewSender(smtp.Config{Host: mp.Host, Port: mp.Port, From: "hush@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessMail(t, func(_ *Options, l *service.Limits) { l.Accounts.ConfirmEmail = true }, sender)
	fay := b.person()
	b.do(fay, chromedp.Navigate(h.url+"/users/sign_up"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), "fay@example.com"),
		chromedp.SendKeys(css("#password"), "fay password"),
		chromedp.SendKeys(css("#password_confirmation"), "fay password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitNotPresent(css("#password_confirmation")))
	if h1 := run(b, fay, chromedp.Text(css("h1"))); h1 != "Confirm your email address" {
		t.Fatalf("after sign-up: %q", h1)
	}
	b.shot(fay, "sign-up-confirm")
	signIn := func() string {
		b.do(fay, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css("#email")),
			chromedp.SendKeys(css("#email"), "fay@example.com"), chromedp.SendKeys(css("#password"), "fay password"),
			chromedp.Click(css("main button[type=submit]")), chromedp.WaitNotPresent(css("#password")))
		return run(b, fay, chromedp.Text(css("body")))
	}
	b.do(fay, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css(`a[href="/users/confirmation/new"]`)),
		chromedp.SendKeys(css("#email"), "fay@example.com"), chromedp.SendKeys(css("#password"), "fay password"),
		chromedp.Click(css("main button[type=submit]")), chromedp.WaitVisible(css(".alert")))
	if msg := run(b, fay, chromedp.Text(css(".alert"))); !strings.Contains(msg, "confirm your email address") {
		t.Errorf("sign in before confirming: %q", msg)
	}
	if err := h.svc.DeliverOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	var link string
	for _, f := range strings.Fields(mp.Wait(t, "fay@example.com", 1, 5*time.Second)[0].Text) {
		if strings.Contains(f, "/users/confirmation?") {
			link = f
		}
	}
	u, err := url.Parse(link)
	if err != nil || link == "" {
		t.Fatalf("no confirmation link: %q", link)
	}
	b.do(fay, chromedp.Navigate(h.url+u.RequestURI()), chromedp.WaitVisible(css("#confirm-address")),
		chromedp.SendKeys(css("#password"), "not fay's password"),
		chromedp.Click(css("#confirm-address")), chromedp.WaitVisible(css(".alert")))
	if msg := run(b, fay, chromedp.Text(css(".alert"))); !strings.Contains(msg, "not the password this account was created with") {
		t.Errorf("confirming with another password: %q", msg)
	}
	b.do(fay, chromedp.SendKeys(css("#password"), "fay password"),
		chromedp.Click(css("#confirm-address")), chromedp.WaitNotPresent(css("#confirm-address")), chromedp.WaitVisible(css("h1")))
	if body := run(b, fay, chromedp.Text(css("body"))); !strings.Contains(body, "Dashboard") || !strings.Contains(body, "Your email address is confirmed") {
		t.Errorf("after confirming: %.300s", body)
	}
	b.shot(fay, "confirmed")
	b.do(fay, chromedp.Click(css(`form[action$="/users/sign_out"] button`)), chromedp.WaitNotPresent(css(`form[action$="/users/sign_out"]`)))
	if body := signIn(); !strings.Contains(body, "Dashboard") {
		t.Errorf("sign in after confirming: %.300s", body)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors (CSP?): %v", errs)
	}
}
