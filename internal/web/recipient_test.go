package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestRetrievalStepUsesNoView(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": "s3cret-value", "expire_after_views": "1"})
	c := h.client()
	for range 3 {
		r := c.get("/p/" + tok + "/r")
		r.expect(t, http.StatusOK)
		r.has(t, "<title>You have been sent a secret · Hush</title>", `action="/p/`+tok+`/r"`, "Reveal the secret")
		r.lacks(t, "s3cret-value")
	}
	r := c.post("/p/"+tok+"/r", url.Values{"stamp": {formStamp(t, c.get("/p/"+tok+"/r"))}})
	r.expect(t, http.StatusOK)
	r.has(t, "s3cret-value", `class="secret blurred"`, "Copy to clipboard",
		"This was the last view: the secret has now been deleted. Copy what you need now")
	// Nothing is said of a time or views left: there are none.
	r.lacks(t, "expires in", "more view")
	// No views remain, so there is nothing left to delete.
	r.lacks(t, "<script>", "style=", "Delete this secret now")
	// The last view is used up: the link is expired now, on both pages.
	exp := c.get("/p/" + tok)
	exp.expect(t, http.StatusOK)
	exp.has(t, "This secret link has expired")
	exp.lacks(t, "s3cret-value")
	step := c.get("/p/" + tok + "/r")
	step.has(t, "This secret link has expired")
}

func TestExpiredAndUnknownAreIdentical(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": "x", "expire_after_views": "1"})
	c := h.client()
	c.get("/p/" + tok)
	for _, path := range []string{"/p/" + tok, "/p/" + tok + "/r", "/p/" + tok + "/passphrase"} {
		expired := c.get(path)
		unknown := c.get(strings.Replace(path, tok, "no-such-token", 1))
		expired.expect(t, http.StatusOK)
		unknown.expect(t, http.StatusOK)
		// The language switch links the page's own address, so the token
		// shows in both; nothing else may differ.
		if strings.ReplaceAll(expired.body, tok, "no-such-token") != unknown.body {
			t.Errorf("%s: expired and unknown pages differ:\n%s\n---\n%s", path, expired.body, unknown.body)
		}
		expired.has(t, "<h1>This secret link has expired</h1>")
	}
	// Expiry by days too.
	tok2 := h.create(nil, fields{"payload": "x", "expire_after_days": "1"})
	h.clock.Advance(25 * time.Hour)
	c.get("/p/"+tok2+"/r").has(t, "This secret link has expired")
	c.get("/p/"+tok2).has(t, "This secret link has expired")
}

func TestShowKinds(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()

	u := h.create(nil, fields{"kind": "url", "payload": "https://example.com/next?a=1"})
	r := c.get("/p/" + u)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "https://example.com/next?a=1" {
		t.Errorf("url push: %d to %q", r.status, r.header.Get("Location"))
	}
	// The redirect to the target sends no Referer at all (D57); the rest
	// of the headers are every page's.
	if rp := r.header.Get("Referrer-Policy"); rp != "no-referrer" {
		t.Errorf("url push redirect: Referrer-Policy %q, want no-referrer", rp)
	}
	hdr := r.header.Clone()
	hdr.Set("Referrer-Policy", "strict-origin")
	checkSecurityHeaders(t, hdr)
	// A URL Go's parser refuses (a lone %) is one Password Pusher takes; the
	// redirect names it as it was given, non-ASCII escaped (docs/decisions.md,
	// D60). Go's client cannot parse such a Location, so the transport is asked.
	for payload, loc := range map[string]string{
		"https://example.com/sale-100%": "https://example.com/sale-100%",
		"https://example.com/#100%":     "https://example.com/#100%",
		"https://example.com/ü%":        "https://example.com/%c3%bc%",
	} {
		req, _ := http.NewRequest(http.MethodGet, h.url+"/p/"+h.create(nil, fields{"kind": "url", "payload": payload}), nil)
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != loc {
			t.Errorf("url push %q: %d to %q, want 303 to %q", payload, res.StatusCode, res.Header.Get("Location"), loc)
		}
	}

	q := h.create(nil, fields{"kind": "qr", "payload": "WIFI:S:home;T:WPA;P:pw;;", "deletable_by_viewer": "false"})
	r = c.get("/p/" + q)
	r.expect(t, http.StatusOK)
	r.has(t, `<svg xmlns="http://www.w3.org/2000/svg" class="qr"`, `<rect x=`, "Scan this QR code")
	r.lacks(t, "WIFI:S:home", "Delete this secret now")

	txt := h.create(nil, fields{"payload": "<b>not bold</b>", "retrieval_step": "false"})
	r = c.get("/p/" + txt)
	r.has(t, "&lt;b&gt;not bold&lt;/b&gt;", "or 4 more views", "Delete this secret now")

	if r := c.do(mustReq(t, http.MethodHead, h.url+"/p/"+txt)); r.status != http.StatusMethodNotAllowed {
		t.Errorf("HEAD: %d", r.status)
	}
	if r := c.get("/p/" + txt); !strings.Contains(r.body, "or 3 more views") {
		t.Errorf("HEAD counted a view, or the count is wrong:\n%s", r.body)
	}
}

// A browser's prefetch or prerender of the plain link spends no view: it is
// refused with 503, which makes the browser load the page again when the
// person opens it (D66), and the push keeps its views and its audit log.
func TestSpeculativeLoadsSpendNothing(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	txt := h.create(nil, fields{"payload": "speculated", "retrieval_step": "false", "expire_after_views": "2"})
	for _, hdr := range [][2]string{
		{"Sec-Purpose", "prefetch"}, {"Sec-Purpose", "prefetch;prerender"}, {"Sec-Purpose", "prefetch;anonymous-client-ip"},
		{"Purpose", "prefetch"}, {"X-Purpose", "preview"}, {"X-Moz", "prefetch"},
	} {
		req := mustReq(t, http.MethodGet, h.url+"/p/"+txt)
		req.Header.Set(hdr[0], hdr[1])
		r := c.do(req)
		if r.status != http.StatusServiceUnavailable || strings.Contains(r.body, "speculated") || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %s: %d %q %q", hdr[0], hdr[1], r.status, r.header.Get("Cache-Control"), r.body)
		}
	}
	r := c.get("/p/" + txt)
	r.expect(t, http.StatusOK)
	r.has(t, "speculated", "or 1 more view")
	r = c.get("/p/" + txt)
	r.has(t, "speculated")
	if r := c.get("/p/" + txt); strings.Contains(r.body, "speculated") {
		t.Errorf("a third view of a two-view push:\n%s", r.body)
	}
}

func mustReq(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestDeleteByViewer(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "bye"})
	// Unconfirmed, it asks; Cancel leads away from the secret (reloading
	// it would use a view).
	r := c.post("/p/"+tok+"/expire", nil)
	r.expect(t, http.StatusOK)
	r.has(t, "Delete this secret now?", `action="/p/`+tok+`/expire"`, `name="confirm" value="yes"`, `href="/"`)
	if p, err := h.svc.Lookup(context.Background(), tok); err != nil || p.Expired {
		t.Fatalf("an unconfirmed delete: %+v, %v", p, err)
	}
	r = c.post("/p/"+tok+"/expire", url.Values{"confirm": {"yes"}})
	r.expect(t, http.StatusOK)
	r.has(t, "The secret has been deleted")
	c.get("/p/"+tok).has(t, "This secret link has expired")

	keep := h.create(nil, fields{"payload": "stay", "deletable_by_viewer": "false"})
	r = c.post("/p/"+keep+"/expire", nil)
	r.expect(t, http.StatusForbidden)
	r.lacks(t, "confirm")
	c.post("/p/"+keep+"/expire", url.Values{"confirm": {"yes"}}).expect(t, http.StatusForbidden)
	c.get("/p/"+keep).has(t, "stay")
}

func TestCrossOriginPostRefused(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "keep me"})
	for _, hdr := range [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Origin", "https://evil.example"},
	} {
		r := c.post("/p/"+tok+"/expire", url.Values{"confirm": {"yes"}}, hdr...)
		r.expect(t, http.StatusForbidden)
		r.has(t, "sent from another site")
	}
	// Same-origin browser requests pass.
	r := c.post("/p/"+tok+"/expire", url.Values{"confirm": {"yes"}}, "Sec-Fetch-Site", "same-origin", "Origin", h.url)
	r.has(t, "The secret has been deleted")
}

func TestPassphraseFlow(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "behind a door", "passphrase": "open sesame", "retrieval_step": "false"})
	r := c.get("/p/" + tok)
	if r.status != http.StatusFound || r.header.Get("Location") != "/p/"+tok+"/passphrase" {
		t.Fatalf("show of a protected push: %d %q", r.status, r.header.Get("Location"))
	}
	form := c.get("/p/" + tok + "/passphrase")
	form.expect(t, http.StatusOK)
	form.has(t, `<label for="passphrase">Passphrase</label>`, `action="/p/`+tok+`/passphrase"`)

	wrong := c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"guess"}})
	wrong.expect(t, http.StatusUnauthorized)
	wrong.has(t, "That passphrase is incorrect")
	wrong.lacks(t, "behind a door")
	empty := c.post("/p/"+tok+"/passphrase", url.Values{})
	empty.expect(t, http.StatusUnprocessableEntity)

	right := c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"open sesame"}})
	right.expect(t, http.StatusOK)
	right.has(t, "behind a door", "or 4 more views")
	for _, ck := range right.header.Values("Set-Cookie") {
		if strings.Contains(ck, "sesame") {
			t.Errorf("passphrase in a cookie: %s", ck)
		}
	}
}

func TestPassphraseGuessLimit(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	tok := h.create(nil, fields{"payload": "p", "passphrase": "right"})
	for i := range 5 {
		if r := c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"wrong"}}); r.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, r.status)
		}
	}
	r := c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"right"}})
	r.expect(t, http.StatusTooManyRequests)
	r.has(t, "Too many passphrase attempts")
	if r.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	r.lacks(t, ">p</pre>")
	h.clock.Advance(time.Minute)
	c.post("/p/"+tok+"/passphrase", url.Values{"passphrase": {"right"}}).expect(t, http.StatusOK)
}

func TestStaticAndNotFound(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	for path, ctype := range map[string]string{
		"/static/style.css": "text/css", "/static/app.js": "text/javascript", "/static/icon.svg": "image/svg+xml",
	} {
		r := c.get(path)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), ctype) {
			t.Errorf("%s: %d %q", path, r.status, r.header.Get("Content-Type"))
		}
		if r.header.Get("Content-Security-Policy") != CSP {
			t.Errorf("%s: no CSP", path)
		}
	}
	r := c.get("/no/such/page")
	r.expect(t, http.StatusNotFound)
	r.has(t, "Page not found")
	// The API keeps its own JSON answers.
	if r := c.get("/api/v2/nothing"); !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Errorf("API 404 is not JSON: %q", r.header.Get("Content-Type"))
	}
}

// A chat's or mail service's link preview of the plain link gets the
// retrieval step's page, which spends no view (D66); a browser gets the
// secret.
func TestLinkPreviewersGetTheRetrievalStep(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	txt := h.create(nil, fields{"payload": "previewed", "retrieval_step": "false", "expire_after_views": "1"})
	for _, ua := range []string{
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
		"facebookexternalhit/1.1 Facebot Twitterbot/1.0",
		"TelegramBot (like TwitterBot)",
		"WhatsApp/2.23.20.0 A",
		"Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5",
		"LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
	} {
		req := mustReq(t, http.MethodGet, h.url+"/p/"+txt)
		req.Header.Set("User-Agent", ua)
		r := c.do(req)
		r.expect(t, http.StatusOK)
		r.has(t, "<title>You have been sent a secret · Hush</title>", `action="/p/`+txt+`/r"`)
		r.lacks(t, "previewed")
	}
	req := mustReq(t, http.MethodGet, h.url+"/p/"+txt)
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36")
	r := c.do(req)
	r.expect(t, http.StatusOK)
	r.has(t, "previewed")
	if r := c.get("/p/" + txt); strings.Contains(r.body, "previewed") {
		t.Errorf("a second view of a one-view push:\n%s", r.body)
	}
}
