package httpx

import (
	"strings"
	"testing"
)

func TestRedactPath(t *testing.T) {
	const tok = "AZrJ7w3mQ9kPzT4uVb8xLc2nDe5fGh"
	cases := []struct{ in, want string }{
		{"/api/v2/pushes/abc/audit", "/api/v2/pushes/:token/audit"},
		{"/p/abc.json", "/p/:token"},
		{"/p/abc/r.json", "/p/:token/r.json"},
		{"/f/abc/preview.json", "/f/:token/preview.json"},
		{"/r/abc.json", "/r/:token"},
		{"/p/active.json", "/p/active.json"},
		{"/f/expired.json", "/f/expired.json"},
		{"/p.json", "/p.json"},
		{"/api/v2/version", "/api/v2/version"},
		{"/api/v2/files/AVi15tExrIXE/na%C3%AFve.txt", "/api/v2/files/:token"},
		// Shapes the router redirects to their canonical form.
		{"//p/" + tok, "/p/:token"},
		{"/api/v2//pushes/" + tok, "/api/v2/pushes/:token"},
		{"/api/v2/pushes//" + tok + "/preview", "/api/v2/pushes/:token/preview"},
		{"/x/../p/" + tok, "/p/:token"},
		{"/p/./" + tok + "/r", "/p/:token/r"},
		{"///p///" + tok + "//passphrase", "/p/:token/passphrase"},
		{"/p/" + tok + "/", "/p/:token/"},
		{"//api/v2/files/" + tok + "/a.txt", "/api/v2/files/:token"},
		// Password Pusher's locale-prefixed links (LegacyPage).
		{"/en/p/" + tok, "/en/p/:token"},
		{"/pt-BR/f/" + tok + "/r", "/pt-BR/f/:token/r"},
		{"//de//r/" + tok + "/", "/de/r/:token/"},
		{"/en/d/active.json", "/en/d/active.json"},
		// A shipped language's prefix before Password Pusher's: the web
		// strips the first and redirects the rest to the link's page.
		{"/de/de/p/" + tok, "/de/de/p/:token"},
		{"/de/xx/p/" + tok + "/preview", "/de/xx/p/:token/preview"},
		{"/ja/ab-CDE/f/" + tok + "/r", "/ja/ab-CDE/f/:token/r"},
		{"/EN/de/r/" + tok, "/EN/de/r/:token"},
		{"/en/de/p/" + tok + "/passphrase", "/en/de/p/:token/passphrase"},
		{"/de/api/v2/pushes/" + tok, "/de/api/v2/pushes/:token"},
		{"/de/en", "/de/en"},
		{"/de/en/", "/de/en/"},
	}
	for _, c := range cases {
		got := RedactPath(c.in)
		if got != c.want {
			t.Errorf("RedactPath(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(got, tok) {
			t.Errorf("RedactPath(%q) = %q keeps the token", c.in, got)
		}
	}
}

func TestRedactUnmatched(t *testing.T) {
	for in, want := range map[string]string{
		"/":                     "/",
		"/nothing":              "/nothing",
		"/P/secret-token":       "/P/…",
		"//q//secret/more":      "/q/…",
		"/API/v2/pushes/secret": "/API/…",
	} {
		if got := RedactUnmatched(in); got != want {
			t.Errorf("RedactUnmatched(%q) = %q, want %q", in, got, want)
		}
	}
}
