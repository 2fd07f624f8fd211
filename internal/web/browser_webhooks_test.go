package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hush/internal/webhook/webhooktest"
)

// TestBrowserWebhooks: in Chromium, an account adds an endpoint on its
// page, copies the secret shown once, a push created through the form
// reaches the receiver signed with it, and the endpoint's page lists the
// delivery. With axe-core at hand (HUSH_AXE_JS), both pages pass its
// WCAG rules in the four variants of TestBrowserAxe, with nothing wider
// than the screen.
func TestBrowserWebhooks(t *testing.T) {
	b := newBrowser(t)
	h := newHookHarness(t)
	r := webhooktest.Start(t, h.clock.Now)

	p := b.person()
	b.signUp(p, h.url, "hooks@example.com", "hooks password")

	b.do(p, chromedp.Navigate(h.url+"/users/edit"), chromedp.Click(css(`a[href="/users/webhooks"]`)),
		chromedp.WaitVisible(css("#add-webhook")),
		chromedp.SendKeys(css("#url"), r.URL()+"/in"),
		chromedp.Click(css(`input[value="push.created"]`)),
		chromedp.Click(css("#add-webhook button[type=submit]")), chromedp.WaitVisible(css("#new-secret")))
	secret := run(b, p, chromedp.Value(css("#secret")))
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the secret shown: %q", secret)
	}
	r.SetSecret(secret)

	b.do(p, chromedp.Navigate(h.url+"/"), chromedp.WaitVisible(css("#payload")),
		chromedp.SendKeys(css("#payload"), "BROWSER-HOOK-SECRET"),
		chromedp.Click(css("main form button[type=submit].primary")), chromedp.WaitVisible(css("#secret-url")))
	if err := h.svc.DeliverOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Types(), " "); got != "push.created" || r.Forged() != 0 {
		t.Fatalf("the receiver got %q, %d forged", got, r.Forged())
	}
	for _, d := range r.Deliveries() {
		if strings.Contains(string(d.Body), "BROWSER-HOOK-SECRET") {
			t.Errorf("a delivery carries the payload: %s", d.Body)
		}
	}

	b.do(p, chromedp.Navigate(h.url+"/users/webhooks"), chromedp.WaitVisible(css("#webhooks")),
		chromedp.Click(css("#webhooks a")), chromedp.WaitVisible(css("#deliveries")))
	log := run(b, p, chromedp.Text(css("#deliveries")))
	if !strings.Contains(log, "push.created") || !strings.Contains(log, "204") {
		t.Errorf("the delivery log: %q", log)
	}
	detail := run(b, p, chromedp.Location())

	if os.Getenv("HUSH_AXE_JS") == "" {
		t.Log("HUSH_AXE_JS unset: the webhook pages' accessibility is checked where axe-core is installed")
		return
	}
	axe := axeScript(t)
	for _, page := range []string{h.url + "/users/webhooks", detail} {
		b.do(p, chromedp.Navigate(page), chromedp.WaitReady(css("main")))
		run(b, p, chromedp.Evaluate[bool](axe+";true"))
		for _, v := range axeVariants {
			if err := setVariant(p, v); err != nil {
				t.Fatal(err)
			}
			state := run(b, p, chromedp.Evaluate[pageState](pageStateJS))
			for _, o := range state.Overflow {
				t.Errorf("%s (%s): wider than the screen: %s", page, v.name, o)
			}
			out := run(b, p, chromedp.Evaluate[json.RawMessage](axeRun, chromedp.EvalAwaitPromise))
			var vs []axeViolation
			if err := json.Unmarshal(out, &vs); err != nil {
				t.Fatal(err)
			}
			for _, x := range vs {
				t.Errorf("%s (%s): %s", page, v.name, fmt.Sprint(x.ID, ": ", x.Help, " ", x.Nodes))
			}
		}
	}
}
