package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"hush/internal/mail/smtp"
	"hush/internal/mailtest"
)

// newNotifyHarness is a harness whose service sends email to a fresh
// Mailpit.
func newNotifyHarness(t *testing.T) (*harness, *mailtest.Server) {
	t.Helper()
	mp := mailtest.Start(t, mailtest.Options{})
	sender, err := smtp.NewSender(smtp.Config{Host: mp.Host, Port: mp.Port, From: "hush@example.com",
		OpenTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessMail(t, nil, sender), mp
}

// TestNotifyEmailsContract: create with recipients and receipts, and
// notify_emails with each of the reference's statuses, every exchange
// checked against api/openapi.yaml; then the messages arrive.
func TestNotifyEmailsContract(t *testing.T) {
	h, mp := newNotifyHarness(t)
	owner, other := bearer(h.user("owner@example.com")), bearer(h.user("other@example.com"))
	v := h.do("GET", "/api/v2/version", nil).obj(t)
	if v["features"].(map[string]any)["pushes"].(map[string]any)["email_auto_dispatch"] != true {
		t.Fatalf("version: %v", v)
	}
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "p",
		"notify_emails_to": "a@example.org", "receipt_on_view": "true", "receipt_on_expire": false}}, owner...)
	wantStatus(t, "create with a recipient", r, http.StatusCreated)
	created := r.obj(t)
	if created["notify_emails_to"] != "a@example.org" || created["notify_emails_to_locale"] != nil {
		t.Errorf("create echoes %v", created)
	}
	tok := created["url_token"].(string)
	if p := mustPush(t, h, tok); p.Receipts != 1 || p.NotifyCount != 1 {
		t.Errorf("stored receipts %d, recipients %d", p.Receipts, p.NotifyCount)
	}
	// As the pwpush CLI's --notify sends it: a Rails-style form.
	r = h.do("POST", "/api/v2/pushes", "push%5Bpayload%5D=cli&push%5Bnotify_emails_to%5D=cli%40example.org&push%5Bnotify_emails_to_locale%5D=en",
		append(owner, "Content-Type", "application/x-www-form-urlencoded")...)
	wantStatus(t, "form create with a recipient", r, http.StatusCreated)
	if m := r.obj(t); m["notify_emails_to"] != "cli@example.org" || m["notify_emails_to_locale"] != "en" {
		t.Errorf("form create echoes %v", m)
	}
	// A push made without the fields echoes none of them.
	if m := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "p"}}, owner...).obj(t); m["notify_emails_to"] != nil {
		t.Errorf("create without recipients: %v", m)
	}
	path := "/api/v2/pushes/" + tok + "/notify_emails"
	wantStatus(t, "anonymous", h.do("POST", path, map[string]any{"notify_emails_to": "b@example.org"}), http.StatusUnauthorized)
	wantStatus(t, "unknown push", h.do("POST", "/api/v2/pushes/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/notify_emails",
		map[string]any{"notify_emails_to": "b@example.org"}, owner...), http.StatusNotFound)
	wantStatus(t, "another user", h.do("POST", path, map[string]any{"notify_emails_to": "b@example.org"}, other...), http.StatusForbidden)
	wantBody(t, "notify", h.do("POST", path, map[string]any{"notify_emails_to": "b@example.org", "notify_emails_to_locale": "pt-BR"}, owner...),
		`{"message":"Recipient(s) are added to the queue to be sent."}`)
	r = h.do("POST", path, "notify_emails_to=c%40example.org", append(owner, "Content-Type", "application/x-www-form-urlencoded")...)
	wantStatus(t, "form body", r, http.StatusCreated)
	r = h.do("POST", path, map[string]any{"notify_emails_to": "d@example.org", "notify_emails_to_locale": "../../etc"}, owner...)
	wantStatus(t, "bad locale", r, http.StatusUnprocessableEntity)
	if !strings.Contains(string(r.body), "notify_emails_to_locale") {
		t.Errorf("bad locale: %s", r.body)
	}
	wantStatus(t, "not JSON", h.do("POST", path, "{", owner...), http.StatusBadRequest)
	wantStatus(t, "blank", h.do("POST", path, map[string]any{"notify_emails_to": " "}, owner...), http.StatusUnprocessableEntity)
	wantStatus(t, "fifth request", h.do("POST", path, map[string]any{"notify_emails_to": "e@example.org"}, owner...), http.StatusCreated)
	r = h.do("POST", path, map[string]any{"notify_emails_to": "f@example.org"}, owner...)
	wantStatus(t, "sixth request", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}

	// The outbox is delivered by the worker; here, at once.
	if err := h.env.Service.DeliverOutbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"a@example.org", "b@example.org", "c@example.org", "e@example.org", "cli@example.org"} {
		mp.Wait(t, to, 1, 5*time.Second)
	}
	if n := mp.Count(t); n != 5 {
		t.Errorf("%d messages, want 5", n)
	}
	audit := h.do("GET", "/api/v2/pushes/"+tok+"/audit", nil, owner...)
	if n := strings.Count(string(audit.body), `"creation_email_send"`); n != 4 {
		t.Errorf("%d creation_email_send entries: %s", n, audit.body)
	}
}

// TestNotifyEmailsWithoutMail: where the instance sends no email, the
// route is 404, the flag false, and the fields of a create 422 (D16).
func TestNotifyEmailsWithoutMail(t *testing.T) {
	h := newHarness(t, nil)
	owner := bearer(h.user("owner@example.com"))
	tok := h.create(map[string]any{"payload": "p"}, owner...)
	wantStatus(t, "notify", h.do("POST", "/api/v2/pushes/"+tok+"/notify_emails", map[string]any{"notify_emails_to": "a@example.org"}, owner...),
		http.StatusNotFound)
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "p", "notify_emails_to": "a@example.org",
		"receipt_on_view": true}}, owner...)
	wantStatus(t, "create", r, http.StatusUnprocessableEntity)
	for _, want := range []string{`"notify_emails_to":["are not available"]`, `"receipt_on_view":["is not available"]`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("create: %s lacks %s", r.body, want)
		}
	}
}
