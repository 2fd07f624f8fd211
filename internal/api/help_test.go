package api

import (
	"encoding/json"
	"html"
	"strings"
	"testing"

	"hush/internal/service"
)

// TestHelpPageCoversTheDocument checks that /help/api names every method and
// path of the OpenAPI document, is plain HTML without script, and shows the
// instance's limits.
func TestHelpPageCoversTheDocument(t *testing.T) {
	h := newHarness(t, func(o *Options, l *service.Limits) {
		o.MaxBody = 12345
		l.Settings.AllowAnonymous = false
		l.Settings.SubDayDurations = false
	})
	r := h.do("GET", "/help/api", nil)
	wantStatus(t, "help", r, 200)
	if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "style-src 'self'") ||
		strings.Contains(csp, "script-src") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	// Styled like the pages, with their header.
	if body := r.String(); !strings.Contains(body, `<link rel="stylesheet" href="/static/style.css">`) || !strings.Contains(body, `<a class="brand" href="/">Hush</a>`) {
		t.Error("the page does not use the site's stylesheet and header")
	}
	page := html.UnescapeString(r.String())
	for _, bad := range []string{"<script", " on" + "click=", "style=", "javascript:"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths {
		for method := range item {
			if method == "parameters" {
				continue
			}
			n++
			if want := strings.ToUpper(method) + " " + path; !strings.Contains(page, want) {
				t.Errorf("the page does not document %s", want)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d operations in the document", n)
	}
	for _, want := range []string{"12345 bytes", "anonymous access is off", "curl ", "Authorization: Bearer", "POST /p.json",
		"/api/v2/openapi.json", "429", "1..200", "0 and below", "expire_after_duration", "15 minutes",
		"hidden here", "brought into"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not mention %q", want)
		}
	}
	wantStatus(t, "POST /help/api", h.doRaw("POST", "/help/api", ""), 405)
}
