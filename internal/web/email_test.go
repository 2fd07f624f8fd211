package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestCreateFormEmail: the create form's email fields are for signed-in
// people where the server sends email; bad recipients are shown on the
// form (422), nothing is queued, and a visitor cannot smuggle the fields
// in.
func TestCreateFormEmail(t *testing.T) {
	h, mp, deliver := newMailHarness(t)
	anon := h.client()
	form := anon.get("/")
	form.lacks(t, `name="notify_emails_to"`, `name="receipt_on_view"`)
	r := anon.post("/", url.Values{"kind": {"text"}, "payload": {"x"}, "notify_emails_to": {"a@example.org"}, "receipt_on_view": {"on"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("anonymous create with the fields: %d %.300s", r.status, r.body)
	}
	c := h.signUp("former@example.com", "former password")
	c.get("/").has(t, `name="notify_emails_to"`, `name="receipt_on_view"`, `name="receipt_on_failed_passphrase"`, `name="receipt_on_expire"`)
	for _, bad := range []string{"a@example.org\r\nBcc: evil@example.net", "a@x.org,b@x.org,c@x.org,d@x.org,e@x.org,f@x.org",
		"not an address", strings.Repeat("a@x.org,", 20000)} {
		r := c.post("/", url.Values{"kind": {"text"}, "payload": {"kept on the form"}, "notify_emails_to": {bad}})
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `class="field-error"`) {
			t.Errorf("recipients %.40q: %d %.300s", bad, r.status, r.body)
		}
	}
	r = c.post("/", url.Values{"kind": {"text"}, "payload": {"y"}, "notify_emails_to": {"Ok@Example.org"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %.300s", r.status, r.body)
	}
	deliver()
	mp.Wait(t, "ok@example.org", 1, 5*time.Second)
	if n := mp.Count(t); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}
