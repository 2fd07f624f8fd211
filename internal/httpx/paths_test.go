package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCleanPath(t *testing.T) {
	var seen string
	h := CleanPath(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r.URL.Path }))
	for in, want := range map[string]string{
		"/":                      "/",
		"/p/tok":                 "/p/tok",
		"/p/tok/":                "/p/tok",
		"/p/tok//":               "/p/tok",
		"//p/tok":                "/p/tok",
		"/p//tok/r/":             "/p/tok/r",
		"/api/v2/pushes/":        "/api/v2/pushes",
		"/api/v2//pushes/tok":    "/api/v2/pushes/tok",
		"/x/../dashboard/":       "/dashboard",
		"/api/":                  "/api/",
		"/static/":               "/static/",
		"/static/app.js/":        "/static/app.js",
		"/p/a%2Fb/":              "/p/a/b/", // escaped: left to the router
		"/p.json/":               "/p.json",
		"/api/v2/pushes.json//":  "/api/v2/pushes.json",
		"/users/sign_in/?next=x": "/users/sign_in",
	} {
		seen = ""
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "http://h"+in, nil))
		if seen != want {
			t.Errorf("%q served as %q, want %q", in, seen, want)
		}
	}
}

func TestLegacyPage(t *testing.T) {
	for _, c := range []struct{ in, to, route string }{
		{"/f/tok", "/p/tok", "GET /f/{token}"},
		{"/f/tok/r", "/p/tok/r", "GET /f/{token}/r"},
		{"/r/tok/passphrase", "/p/tok/passphrase", "GET /r/{token}/passphrase"},
		{"/r/tok/preview", "/p/tok/preview", "GET /r/{token}/preview"},
		{"/en/p/tok", "/p/tok", "GET /{locale}/p/{token}"},
		{"/pt-BR/p/tok/r", "/p/tok/r", "GET /{locale}/p/{token}/r"},
		{"/fr/f/tok/r", "/p/tok/r", "GET /{locale}/f/{token}/r"},
		{"/zh-CN/r/tok", "/p/tok", "GET /{locale}/r/{token}"},
	} {
		to, route, ok := LegacyPage(c.in)
		if !ok || to != c.to || route != c.route {
			t.Errorf("LegacyPage(%q) = %q, %q, %v; want %q, %q", c.in, to, route, ok, c.to, c.route)
		}
	}
	for _, in := range []string{"/", "/p/tok", "/p/tok/r", "/f", "/f/", "/f/tok/x", "/f/tok/r/x", "/f/tok.json",
		"/english/p/tok", "/en/p", "/en/d/active", "/en/x/tok", "/en/p/tok/more/more", "/dashboard", "/api/v2/pushes/tok"} {
		if to, _, ok := LegacyPage(in); ok {
			t.Errorf("LegacyPage(%q) = %q, want no redirect", in, to)
		}
	}
}

func TestIsLocale(t *testing.T) {
	for s, want := range map[string]bool{"en": true, "pt-BR": true, "sr-Latn": true, "zh-CN": true,
		"e": false, "eng": false, "e1": false, "en-": false, "en-B": false, "en-ABCDE": false, "": false, "p": false} {
		if IsLocale(s) != want {
			t.Errorf("IsLocale(%q) = %v", s, !want)
		}
	}
}
