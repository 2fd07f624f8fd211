package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCreateFormPushLocale: the create form's language select stores
// push_locale, the preview's link carries its prefix, the emailed link and
// message are in that language, and an unknown language is refused on
// the form.
func TestCreateFormPushLocale(t *testing.T) {
	h, mp, deliver := newMailHarness(t)
	anon := h.client()
	anon.get("/").has(t, `<select id="push_locale" name="push_locale">`, `<option value="de" lang="de">Deutsch</option>`)

	r := anon.post("/", url.Values{"kind": {"text"}, "payload": {"x"}, "push_locale": {"de"}, "retrieval_step": {"on"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %.300s", r.status, r.body)
	}
	preview := anon.get(r.header.Get("Location"))
	m := regexp.MustCompile(`https?://[^"<]*/de/p/([^"</]+)/r`).FindStringSubmatch(preview.body)
	if m == nil {
		t.Fatalf("no German link on the preview:\n%s", preview.body)
	}
	if p, err := h.svc.Lookup(t.Context(), m[1]); err != nil || p.Locale != "de" {
		t.Fatalf("stored: %v %v", p, err)
	}
	anon.get(strings.TrimPrefix(m[0], h.url)).has(t, "<h1>Ihnen wurde ein Geheimnis geschickt</h1>")

	bad := anon.post("/", url.Values{"kind": {"text"}, "payload": {"kept"}, "push_locale": {"xx"}})
	if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.body, "is not a supported language") {
		t.Errorf("unknown language: %d %.300s", bad.status, bad.body)
	}
	bad.has(t, "kept")

	// The emailed link and message are in the push's language.
	c := h.signUp("sender@example.com", "sender password")
	r = c.post("/", url.Values{"kind": {"text"}, "payload": {"y"}, "push_locale": {"de"}, "notify_emails_to": {"empf@example.org"},
		"expire_after_days": {"3"}, "expire_after_views": {"1"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("create with email: %d %.300s", r.status, r.body)
	}
	deliver()
	msgs := mp.Wait(t, "empf@example.org", 1, 5*time.Second)
	msg := mp.Get(t, msgs[0].ID)
	if msg.Subject != "sender@example.com hat ein Geheimnis mit Ihnen geteilt" {
		t.Errorf("subject %q", msg.Subject)
	}
	for _, want := range []string{"/de/p/", "Der Link gilt für 3 Tage oder 1 Aufruf; danach ist das Geheimnis weg.", "Hier öffnen:"} {
		if !strings.Contains(msg.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, msg.Text)
		}
	}
	if !strings.Contains(msg.HTML, `<html lang="de" dir="ltr">`) || !strings.Contains(msg.HTML, "Geheimnis öffnen") {
		t.Errorf("HTML:\n%s", msg.HTML)
	}
}
