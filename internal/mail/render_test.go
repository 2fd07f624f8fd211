package mail_test

import (
	"strings"
	"testing"

	"hush/internal/mail"
)

// TestRender: every message renders in plain text and HTML; values are
// escaped in the HTML and the subject has no line break.
func TestRender(t *testing.T) {
	evil := `<script>alert(1)</script>"&`
	m, err := mail.Render(mail.TemplateReceipt, mail.ReceiptData{Event: "view", Label: "\u201c" + evil + "\r\nBcc: x\u201d",
		At: "2026-01-01 01:00 UTC", Created: "2025-12-31 01:00 UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.HTML, "<script>") || !strings.Contains(m.HTML, "&lt;script&gt;") {
		t.Errorf("HTML not escaped:\n%s", m.HTML)
	}
	if strings.ContainsAny(m.Subject, "\r\n") || !strings.Contains(m.Subject, "was viewed") {
		t.Errorf("subject %q", m.Subject)
	}
	if !strings.Contains(m.Text, evil) {
		t.Errorf("text %q lacks the label as it is", m.Text)
	}
	for name, data := range map[string]any{
		mail.TemplateReset:   mail.ResetData{Origin: "https://h.example", Email: "a@b.example", Link: "https://h.example/x?t=1&u=2", Valid: "1 hour"},
		mail.TemplateConfirm: mail.ResetData{Origin: "https://h.example", Email: "a@b.example", Link: "https://h.example/c", Valid: "1 day"},
		mail.TemplateNotify:  mail.NotifyData{Origin: "https://h.example", From: "a@b.example", Link: "https://h.example/p/t", Limits: "7 days or 5 views"},
		mail.TemplateTaken:   mail.TakenData{Origin: "https://h.example", Email: "a@b.example", SignIn: "https://h.example/users/sign_in", Reset: "https://h.example/users/password/new"},
	} {
		m, err := mail.Render(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Subject == "" || m.Text == "" || !strings.Contains(m.HTML, "</html>") {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if m, _ := mail.Render(mail.TemplateReset, mail.ResetData{Link: "https://h.example/x?t=1&u=2"}); !strings.Contains(m.HTML, `href="https://h.example/x?t=1&amp;u=2"`) {
		t.Errorf("link in HTML:\n%s", m.HTML)
	}
}

// TestRenderIn: the notify message in German, with its values escaped in
// the HTML; a language that is not shipped gives English.
func TestRenderIn(t *testing.T) {
	data := mail.NotifyData{Origin: "https://h.example", From: `<b>a@b.example</b>`, Link: "https://h.example/de/p/t", Limits: "7 Tage oder 5 Aufrufe", Passphrase: true}
	m, err := mail.RenderIn("de", mail.TemplateNotify, data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "<b>a@b.example</b> hat ein Geheimnis mit Ihnen geteilt" {
		t.Errorf("subject %q", m.Subject)
	}
	for _, want := range []string{"über Hush unter https://h.example ein Geheimnis", "Der Link gilt für 7 Tage oder 5 Aufrufe;",
		"Es ist durch eine Passphrase geschützt", "Gesendet von Hush"} {
		if !strings.Contains(m.Text+m.HTML, want) {
			t.Errorf("lacks %q:\n%s\n%s", want, m.Text, m.HTML)
		}
	}
	if strings.Contains(m.HTML, "<b>a@b") || !strings.Contains(m.HTML, `<html lang="de" dir="ltr">`) {
		t.Errorf("HTML:\n%s", m.HTML)
	}
	en, err := mail.RenderIn("xx", mail.TemplateNotify, data)
	if err != nil || !strings.Contains(en.Text, "shared a secret with you through Hush at https://h.example.") ||
		!strings.Contains(en.HTML, `<html lang="en" dir="ltr">`) {
		t.Errorf("fallback: %v\n%s", err, en.Text)
	}
}
