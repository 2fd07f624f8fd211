package mail

import (
	"regexp"
	"strings"
	"testing"

	"hush/internal/i18n"
)

// TestMessagesTranslated renders every message in every shipped language
// and fails on a line of its subject, text or HTML left as it is in
// English (the values filled in aside).
func TestMessagesTranslated(t *testing.T) {
	reset := ResetData{Origin: "https://hush.example", Email: "owner@example.com", Link: "https://hush.example/l?t=abc", Valid: "1"}
	cases := []struct {
		name string
		data any
	}{
		{TemplateReset, reset},
		{TemplateConfirm, reset},
		{TemplateNotify, NotifyData{Origin: "https://hush.example", From: "owner@example.com", Link: "https://hush.example/p/abc", Limits: "7", Passphrase: true}},
		{TemplateHookOff, HookOffData{Origin: "https://hush.example", URL: "https://hooks.example/in", Since: "2030", Page: "https://hush.example/users/webhooks"}},
		{TemplateHookOff, HookOffData{URL: "https://hooks.example/in", Since: "2030"}},
		{TemplateTaken, TakenData{Origin: "https://hush.example", Email: "owner@example.com", SignIn: "https://hush.example/users/sign_in",
			Reset: "https://hush.example/users/password/new"}},
	}
	for _, ev := range []string{"view", "failed_passphrase", "expire"} {
		cases = append(cases, struct {
			name string
			data any
		}{TemplateReceipt, ReceiptData{Origin: "https://hush.example", Event: ev, Label: "abc123", At: "2030", Created: "2029", Quiet: "15"}})
	}
	tag := regexp.MustCompile(`<[^>]*>`)
	lines := func(m Message) []string {
		var out []string
		for _, s := range append([]string{m.Subject}, append(strings.Split(m.Text, "\n"), tag.Split(m.HTML, -1)...)...) {
			s = strings.TrimSpace(s)
			if strings.ContainsAny(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz") && s != "Hush" && !strings.HasPrefix(s, "https://") &&
				!strings.Contains(s, "@example.com") && s != "abc123" {
				out = append(out, s)
			}
		}
		return out
	}
	for _, c := range cases {
		en, err := RenderIn("en", c.name, c.data)
		if err != nil {
			t.Fatal(err)
		}
		enLines := lines(en)
		if len(enLines) < 3 {
			t.Fatalf("%s: too little English: %q", c.name, enLines)
		}
		for _, l := range i18n.Languages() {
			if l.Code == i18n.Default {
				continue
			}
			m, err := RenderIn(l.Code, c.name, c.data)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(m.HTML, `lang="`+l.Code+`"`) {
				t.Errorf("%s in %s: no lang attribute", c.name, l.Code)
			}
			for _, s := range lines(m) {
				for _, e := range enLines {
					if s == e {
						t.Errorf("%s in %s: %q is left in English", c.name, l.Code, s)
					}
				}
			}
		}
	}
}
