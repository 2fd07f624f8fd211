package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"hush/internal/service"
	"hush/internal/testenv"
	"hush/internal/webhook"
	"hush/internal/webhook/webhooktest"
)

// newHookHarness is newHarness for a service that delivers webhooks to
// loopback receivers.
func newHookHarness(t *testing.T) *harness {
	t.Helper()
	env := testenv.NewWithDeps(t, nil, func(d *service.Deps) {
		d.Webhooks, d.WebhookAllowPrivate = webhook.New(webhook.Options{AllowPrivate: true}), true
	})
	return serveHarness(t, env, Options{})
}

var hookLink = regexp.MustCompile(`href="(/(?:users|admin)/webhooks/\d+)"`)

// An account adds an endpoint on its pages (the secret shown once), its
// pushes' events reach it from the web pages too, the delivery log shows
// each attempt and sends one again, and deleting asks first. Another
// account cannot reach it; the instance's endpoints are an admin's.
func TestWebhookPages(t *testing.T) {
	h := newHookHarness(t)
	owner := h.signUp("owner@example.com", "a long password")
	r := webhooktest.Start(t, h.clock.Now)

	owner.get("/users/edit").has(t, `href="/users/webhooks"`)
	bad := owner.post("/users/webhooks", url.Values{"url": {"ftp://x.example"}, "events": {"push.created"}})
	bad.expect(t, http.StatusUnprocessableEntity)
	bad.has(t, "The URL must be an https URL")
	add := owner.post("/users/webhooks", url.Values{"url": {r.URL() + "/in"}, "events": {"push.created", "push.viewed"}})
	add.expect(t, http.StatusOK)
	secret := regexp.MustCompile(`value="(whsec_[^"]+)"`).FindStringSubmatch(add.body)
	if secret == nil {
		t.Fatalf("no secret shown:\n%s", add.body)
	}
	r.SetSecret(strings.ReplaceAll(secret[1], "&#43;", "+"))
	list := owner.get("/users/webhooks")
	list.lacks(t, "whsec_")
	m := hookLink.FindStringSubmatch(list.body)
	if m == nil {
		t.Fatalf("no endpoint link:\n%s", list.body)
	}
	page := m[1]

	tok := h.create(h.user("owner@example.com"), fields{"payload": "WEB-SECRET-77", "name": "web push"})
	h.client().get("/p/"+tok).expect(t, http.StatusOK) // a view through the web page
	if err := h.svc.DeliverOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Types(), " "); got != "push.created push.viewed" || r.Forged() != 0 {
		t.Fatalf("delivered %q, %d forged", got, r.Forged())
	}
	detail := owner.get(page)
	detail.expect(t, http.StatusOK)
	detail.has(t, "push.viewed", "204", r.Deliveries()[0].ID, `data-confirm-title="Delete this endpoint?"`)

	msg := regexp.MustCompile(`name="message" value="(\d+)"`).FindStringSubmatch(detail.body)
	owner.post(page+"/redeliver", url.Values{"message": {msg[1]}}).expect(t, http.StatusSeeOther)
	h.svc.DeliverOutbox(context.Background())
	if n := len(r.Deliveries()); n != 3 {
		t.Errorf("%d deliveries after a redelivery, want 3", n)
	}

	// Turn off push.viewed: a view sends nothing more.
	owner.post(page+"/update", url.Values{"events": {"push.created"}, "enabled": {"on"}}).expect(t, http.StatusSeeOther)
	h.client().get("/p/" + tok)
	h.svc.DeliverOutbox(context.Background())
	if n := len(r.Deliveries()); n != 3 {
		t.Errorf("%d deliveries after push.viewed was turned off, want 3", n)
	}

	// Another account, and a non-admin on the admin pages.
	other := h.signUp("other@example.com", "a long password")
	other.get(page).expect(t, http.StatusNotFound)
	other.post(page+"/delete", url.Values{"confirm": {"yes"}}).expect(t, http.StatusNotFound)
	other.get("/admin/webhooks").expect(t, http.StatusForbidden)
	h.client().get("/users/webhooks").expect(t, http.StatusSeeOther)

	// The admin's instance endpoints live under /admin only.
	h.promote("other@example.com")
	other.post("/admin/webhooks", url.Values{"url": {r.URL() + "/all"}, "events": {"push.created"}}).expect(t, http.StatusOK)
	adminPage := hookLink.FindStringSubmatch(other.get("/admin/webhooks").body)
	if adminPage == nil || !strings.HasPrefix(adminPage[1], "/admin/webhooks/") {
		t.Fatalf("no instance endpoint listed: %v", adminPage)
	}
	other.get(strings.Replace(adminPage[1], "/admin/", "/users/", 1)).expect(t, http.StatusNotFound)
	other.get(strings.Replace(page, "/users/", "/admin/", 1)).expect(t, http.StatusNotFound)

	// Delete asks first, then deletes.
	ask := owner.post(page+"/delete", nil)
	ask.expect(t, http.StatusOK)
	ask.has(t, "Delete this endpoint?")
	owner.get(page).expect(t, http.StatusOK)
	owner.post(page+"/delete", url.Values{"confirm": {"yes"}}).expect(t, http.StatusSeeOther)
	owner.get(page).expect(t, http.StatusNotFound)
}

// TestWebhookURLShownAsWritten: the webhook forms, an account's and the
// admin's, refuse an endpoint URL whose host holds a formatting character
// (a right-to-left override shows it as another host), with the reason at
// the URL field in the page's language, and add nothing.
func TestWebhookURLShownAsWritten(t *testing.T) {
	h := newHookHarness(t)
	owner := h.signUp("owner@example.com", "a long password")
	h.promote("owner@example.com")
	for _, u := range []string{"https://hooks.example\u202e.com/in", "https://a%E2%80%AEb.example/", "https://a\u200bb.example/"} {
		for _, c := range []struct{ path, want string }{
			{"/users/webhooks", "The URL must not hold control or formatting characters"},
			{"/admin/webhooks", "The URL must not hold control or formatting characters"},
			{"/de/users/webhooks", "Die URL darf keine Steuer- oder Formatierungszeichen enthalten"},
		} {
			r := owner.post(c.path, url.Values{"url": {u}, "events": {"push.created"}})
			r.expect(t, http.StatusUnprocessableEntity)
			r.has(t, c.want)
		}
	}
	for _, page := range []string{"/users/webhooks", "/admin/webhooks"} {
		if m := hookLink.FindStringSubmatch(owner.get(page).body); m != nil {
			t.Errorf("%s lists an endpoint: %s", page, m[1])
		}
	}
}

// Without webhooks the pages do not exist.
func TestWebhookPagesOff(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("o@example.com", "a long password")
	c.get("/users/webhooks").expect(t, http.StatusNotFound)
	c.get("/users/edit").lacks(t, "/users/webhooks")
}
