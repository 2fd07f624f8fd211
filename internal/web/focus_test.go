package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// focusState is what a screen reader user meets on a page after an error:
// the focused field, whether it is marked invalid, and the text of what
// describes it.
type focusState struct {
	ID          string `json:"id"`
	Invalid     string `json:"invalid"`
	Description string `json:"description"`
}

const focusJS = `(function(){var e=document.activeElement||{};var d=(e.getAttribute&&e.getAttribute("aria-describedby"))||"";
return {id:e.id||"",invalid:(e.getAttribute&&e.getAttribute("aria-invalid"))||"",
description:d.split(" ").filter(Boolean).map(function(i){var n=document.getElementById(i);return n?n.textContent:"(missing #"+i+")"}).join(" | ")}})()`

// submitUnchecked sends the page's main form without the browser's own
// checks, as an old browser or a tampered page would, so that the server's
// errors show.
func submitUnchecked(b *browser, ctx context.Context) {
	b.t.Helper()
	run(b, ctx, chromedp.Evaluate[bool](`(function(){var f=document.querySelector("main form");f.noValidate=true;return true})()`))
	b.do(ctx, chromedp.Click(css("main form button[type=submit]")), chromedp.WaitVisible(css(".alert")))
}

// TestBrowserFocusAfterError: after a form error the focus is on the field
// to fix — not the first field — which is marked invalid and described by
// the message: the create form (views that are not a number, an over-long QR text), sign
// up, sign in, and the account page's password form (a wrong current password, a
// new one too short).
func TestBrowserFocusAfterError(t *testing.T) {
	b := newBrowser(t)
	h := newHarness(t, nil)
	p := b.person()
	check := func(what, id, msg string) {
		t.Helper()
		got := run(b, p, chromedp.Evaluate[focusState](focusJS))
		if got.ID != id || got.Invalid != "true" || !strings.Contains(got.Description, msg) {
			t.Errorf("%s: focus %+v; want #%s, invalid, described by %q", what, got, id, msg)
		}
	}

	b.do(p, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "a secret"))
	run(b, p, chromedp.Evaluate[bool](`(function(){var e=document.getElementById("expire_after_views");e.type="text";e.value="two";return true})()`))
	submitUnchecked(b, p)
	check("create, views not a number", "expire_after_views", "whole number")
	if v := run(b, p, chromedp.Value(css("#payload"))); v != "a secret" {
		t.Errorf("the payload was not kept: %q", v)
	}
	b.shot(p, "create-error")

	b.do(p, chromedp.Navigate(h.url+"/?kind=qr"), chromedp.WaitVisible(css("#payload")))
	run(b, p, chromedp.Evaluate[bool](`(function(){document.getElementById("payload").value="x".repeat(1100);return true})()`))
	submitUnchecked(b, p)
	check("create, QR text too long", "payload", "1,024")

	b.do(p, chromedp.Navigate(h.url+"/users/sign_up"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), "erin@example.com"),
		chromedp.SendKeys(css("#password"), "short"),
		chromedp.SendKeys(css("#password_confirmation"), "short"))
	submitUnchecked(b, p)
	check("sign up, short password", "password", "8 characters")
	if got := run(b, p, chromedp.Evaluate[string](`document.getElementById("email").hasAttribute("autofocus")?"yes":"no"`)); got != "no" {
		t.Error("sign up: the email field still asks for the focus")
	}

	b.do(p, chromedp.Navigate(h.url+"/users/sign_in"), chromedp.WaitVisible(css("#email")),
		chromedp.SendKeys(css("#email"), "nobody@example.com"),
		chromedp.SendKeys(css("#password"), "wrong password"))
	submitUnchecked(b, p)
	check("sign in, wrong password", "password", "")
	if msg := run(b, p, chromedp.Text(css("#form-error"))); msg == "" {
		t.Error("sign in: the message has no id to be named by")
	}

	// The account page's password form: a wrong current password, then a
	// new one too short.
	b.signUp(p, h.url, "fay@example.com", "fay password one")
	b.do(p, chromedp.Navigate(h.url+"/users/edit"), chromedp.WaitVisible(css("#current_password")),
		chromedp.SendKeys(css("#current_password"), "not my password"),
		chromedp.SendKeys(css("#password"), "fay password two"),
		chromedp.SendKeys(css("#password_confirmation"), "fay password two"))
	submitUnchecked(b, p)
	check("account, wrong current password", "current_password", "not correct")
	b.do(p, chromedp.Navigate(h.url+"/users/edit"), chromedp.WaitVisible(css("#current_password")),
		chromedp.SendKeys(css("#current_password"), "fay password one"),
		chromedp.SendKeys(css("#password"), "short"),
		chromedp.SendKeys(css("#password_confirmation"), "short"))
	submitUnchecked(b, p)
	check("account, new password too short", "password", "8 characters")

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
