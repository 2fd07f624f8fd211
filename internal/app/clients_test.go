package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"hush/internal/client"
	"hush/internal/push"
)

// These tests drive the whole program the way Password Pusher's real
// clients do — the pwpush CLI, the MCP client, browser pages calling the
// API, the official browser extension, operators' probes and old links —
// one test per behaviour a client would see.

// TestClientLargestPayload: a payload of the maximum length in its worst
// JSON encoding (every character outside the Basic Multilingual Plane,
// escaped as a \uXXXX surrogate pair, 12 bytes each) fits the default body
// limit, and comes back whole.
func TestClientLargestPayload(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	var body bytes.Buffer
	body.WriteString(`{"push":{"expire_after_views":1,"payload":"`)
	body.WriteString(strings.Repeat(`\ud83d\udd11`, push.MaxTextPayload))
	body.WriteString(`"}}`)
	if body.Len() <= 12<<20 {
		t.Fatalf("the body is %d bytes, not the worst case", body.Len())
	}
	c := &client.Client{Base: srv.url}
	res, err := c.Do(context.Background(), "POST", "/api/v2/pushes", &body, http.Header{"Content-Type": {"application/json"}})
	if err != nil || res.Status != http.StatusCreated {
		t.Fatalf("create: %v %v %.200s", err, res.Status, res.Body)
	}
	var created client.Push
	if err := json.Unmarshal(res.Body, &created); err != nil {
		t.Fatal(err)
	}
	p, err := c.Retrieve(context.Background(), created.URLToken, "")
	if err != nil || p.Payload == nil || *p.Payload != strings.Repeat("🔑", push.MaxTextPayload) {
		t.Fatalf("retrieve: %v, payload of %d bytes", err, len(deref(p.Payload)))
	}
	// One character more is refused as too long, not as too large a body.
	body.Reset()
	body.WriteString(`{"push":{"payload":"` + strings.Repeat(`\ud83d\udd11`, push.MaxTextPayload+1) + `"}}`)
	res, err = c.Do(context.Background(), "POST", "/api/v2/pushes", &body, http.Header{"Content-Type": {"application/json"}})
	if err != nil || res.Status != http.StatusUnprocessableEntity || !strings.Contains(string(res.Body), "payload is too large") {
		t.Fatalf("one character more: %v %d %.200s", err, res.Status, res.Body)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// send makes one request with header pairs and returns the answer.
func send(t *testing.T, method, url, body string, hdr ...string) *client.Response {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	res, err := (&client.Client{}).Do(context.Background(), method, url, rd, h)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return res
}

// preflight is what a browser sends before a cross-origin create.
func preflight(t *testing.T, url, origin string) *client.Response {
	return send(t, "OPTIONS", url, "", "Origin", origin, "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type,x-user-email,x-user-token")
}

// TestClientCORS: a page of another site may call the JSON API (v2 and
// v1) from a browser — preflights are answered and every API answer, a 429
// included, carries Access-Control-Allow-Origin — without credentials; the
// pages, which authenticate by cookie, never get CORS headers.
func TestClientCORS(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	const origin = "https://tool.example"
	tok := (&peer{t: t, base: srv.url, c: http.DefaultClient}).createPush(map[string]any{"payload": "x", "retrieval_step": false})
	for _, path := range []string{"/api/v2/pushes", "/api/v2/pushes.json", "/p.json", "/api/v2/pushes/" + tok, "/p/" + tok + ".json",
		"/api/v2/pushes/active", "/api/v2/version"} {
		res := preflight(t, srv.url+path, origin)
		if res.Status != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("preflight %s: %d, Allow-Origin %q", path, res.Status, res.Header.Get("Access-Control-Allow-Origin"))
		}
		methods, headers := res.Header.Get("Access-Control-Allow-Methods"), res.Header.Get("Access-Control-Allow-Headers")
		for _, m := range []string{"GET", "POST", "DELETE"} {
			if !strings.Contains(methods, m) {
				t.Errorf("preflight %s: Allow-Methods %q lacks %s", path, methods, m)
			}
		}
		for _, hd := range []string{"Authorization", "Content-Type", "X-User-Email", "X-User-Token"} {
			if !strings.Contains(headers, hd) {
				t.Errorf("preflight %s: Allow-Headers %q lacks %s", path, headers, hd)
			}
		}
		if c := res.Header.Get("Access-Control-Allow-Credentials"); c != "" {
			t.Errorf("preflight %s: Allow-Credentials %q", path, c)
		}
	}
	// The calls themselves: creates on both APIs, a retrieve, an error.
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/p.json", `{"password":{"payload":"from a page"}}`},
		{"POST", "/api/v2/pushes", `{"push":{"payload":"from a page"}}`},
		{"GET", "/api/v2/pushes/" + tok + "/preview", ""},
		{"GET", "/api/v2/pushes/nope", ""},
	} {
		res := send(t, c.method, srv.url+c.path, c.body, "Origin", origin, "Content-Type", "application/json")
		if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Status >= 500 {
			t.Errorf("%s %s: %d, Allow-Origin %q", c.method, c.path, res.Status, res.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	// Pages never: not the form, not the secret's pages, not the help.
	for _, c := range []struct{ method, path string }{
		{"GET", "/"}, {"OPTIONS", "/"}, {"POST", "/"}, {"GET", "/p/" + tok}, {"OPTIONS", "/p/" + tok},
		{"GET", "/users/sign_in"}, {"OPTIONS", "/users/sign_in"}, {"GET", "/help/api"}, {"GET", "/dashboard"},
	} {
		res := send(t, c.method, srv.url+c.path, "", "Origin", origin, "Access-Control-Request-Method", "POST")
		if h := res.Header.Get("Access-Control-Allow-Origin"); h != "" || res.Status == http.StatusNoContent {
			t.Errorf("page %s %s: %d, Allow-Origin %q", c.method, c.path, res.Status, h)
		}
	}

	// A 429 of the request limit carries the header too, or a page could
	// not tell it from a network error.
	limited := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "PWP__THROTTLING__MINUTE": "2"})
	var last *client.Response
	for range 4 {
		last = send(t, "GET", limited.url+"/api/v2/version", "", "Origin", origin)
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("429: %d, Allow-Origin %q", last.Status, last.Header.Get("Access-Control-Allow-Origin"))
	}
}

// TestClientCORSConfigured: HUSH_CORS_ORIGINS names the origins allowed
// (echoed, with Vary: Origin), or turns CORS off.
func TestClientCORSConfigured(t *testing.T) {
	listed := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_CORS_ORIGINS": "https://tool.example, http://localhost:3000"})
	res := preflight(t, listed.url+"/api/v2/pushes", "https://tool.example")
	if res.Status != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "https://tool.example" ||
		!strings.Contains(res.Header.Get("Vary"), "Origin") {
		t.Errorf("listed origin: %d %v", res.Status, res.Header)
	}
	res = send(t, "POST", listed.url+"/api/v2/pushes", `{"push":{"payload":"x"}}`, "Origin", "http://localhost:3000", "Content-Type", "application/json")
	if res.Status != http.StatusCreated || res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("listed origin, create: %d %q", res.Status, res.Header.Get("Access-Control-Allow-Origin"))
	}
	res = preflight(t, listed.url+"/api/v2/pushes", "https://other.example")
	if res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("an origin not listed: %v", res.Header)
	}

	off := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_CORS_ORIGINS": "none"})
	res = preflight(t, off.url+"/api/v2/pushes", "https://tool.example")
	if res.Status != http.StatusMethodNotAllowed || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS off, preflight: %d %v", res.Status, res.Header)
	}
	res = send(t, "POST", off.url+"/p.json", `{"password":{"payload":"x"}}`, "Origin", "https://tool.example", "Content-Type", "application/json")
	if res.Status != http.StatusCreated || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS off, create: %d %q", res.Status, res.Header.Get("Access-Control-Allow-Origin"))
	}
}

// noRedirect sends one request and returns its answer without following
// a redirect.
func noRedirect(t *testing.T, method, url string) *client.Response {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := (&client.Client{HTTP: hc}).Do(context.Background(), method, url, nil, nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return res
}

// TestClientOldAddresses: the addresses an operator's probes, links and
// bookmarks use with Password Pusher work — /up, the /f/ and /r/ pages,
// locale-prefixed links, /api_tokens — and so does any route with a
// trailing slash or a double slash, served at once rather than redirected;
// no token of them reaches the log.
func TestClientOldAddresses(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	up, healthz := noRedirect(t, "GET", srv.url+"/up"), noRedirect(t, "GET", srv.url+"/healthz")
	if up.Status != 200 || string(up.Body) != string(healthz.Body) || up.Header.Get("Content-Type") != healthz.Header.Get("Content-Type") {
		t.Errorf("/up: %d %q, /healthz: %d %q", up.Status, up.Body, healthz.Status, healthz.Body)
	}
	c := &client.Client{Base: srv.url}
	p, err := c.Create(context.Background(), map[string]any{"payload": "old links", "expire_after_views": 10})
	if err != nil {
		t.Fatal(err)
	}
	tok := p.URLToken
	for from, to := range map[string]string{
		"/f/" + tok:                 "/p/" + tok,
		"/f/" + tok + "/r":          "/p/" + tok + "/r",
		"/r/" + tok:                 "/p/" + tok,
		"/r/" + tok + "/r":          "/p/" + tok + "/r",
		"/f/" + tok + "/passphrase": "/p/" + tok + "/passphrase",
		"/en/p/" + tok:              "/p/" + tok,
		"/pt-BR/p/" + tok + "/r":    "/p/" + tok + "/r",
		"/de/f/" + tok + "/r":       "/p/" + tok + "/r",
		"/fr/r/" + tok:              "/p/" + tok,
		"/api_tokens":               "/users/token",
		"/en/p/" + tok + "/r/":      "/p/" + tok + "/r",
	} {
		res := noRedirect(t, "GET", srv.url+from)
		if res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != to {
			t.Errorf("GET %s: %d → %q, want 301 → %s", from, res.Status, res.Header.Get("Location"), to)
		}
	}
	// Followed, an old /r link lands on the retrieval step, which uses no view.
	if res := send(t, "GET", srv.url+"/f/"+tok+"/r", ""); res.Status != 200 || !strings.Contains(string(res.Body), "Reveal the secret") {
		t.Errorf("following /f/<token>/r: %d", res.Status)
	}

	// A trailing slash, or a double slash, on every kind of route.
	for _, c := range []struct {
		method, path, body string
		status             int
		has                string
	}{
		{"POST", "/api/v2/pushes/", `{"push":{"payload":"slash"}}`, 201, `"url_token"`},
		{"POST", "/p.json/", `{"password":{"payload":"slash"}}`, 201, `"url_token"`},
		{"GET", "/api/v2/version/", "", 200, `"api_version"`},
		{"GET", "/api/v2/pushes/" + tok + "/preview/", "", 200, `"url":`},
		{"GET", "/p/" + tok + "/preview.json/", "", 200, `"url":`},
		{"GET", "/p/" + tok + "/r/", "", 200, "Reveal the secret"},
		{"GET", "/users/sign_in/", "", 200, "Sign in"},
		{"GET", "/healthz/", "", 200, "ok"},
		{"GET", "/up/", "", 200, "ok"},
		{"GET", "//p/" + tok + "/r", "", 200, "Reveal the secret"},
		{"GET", "/p//" + tok + "//r", "", 200, "Reveal the secret"},
		{"GET", "//api/v2/pushes/" + tok + "/preview", "", 200, `"url":`},
		{"GET", "/api/v2//pushes//" + tok + "/preview", "", 200, `"url":`},
		{"GET", "//p/" + tok + "/preview.json", "", 200, `"url":`},
	} {
		res := send(t, c.method, srv.url+c.path, c.body, "Content-Type", "application/json")
		if res.Status != c.status || !strings.Contains(string(res.Body), c.has) {
			t.Errorf("%s %s: %d %.120s", c.method, c.path, res.Status, res.Body)
		}
		if loc := res.Header.Get("Location"); loc != "" {
			t.Errorf("%s %s: redirected to %s", c.method, c.path, loc)
		}
	}
	for _, path := range []string{"//p/" + tok, "/p/" + tok + "/", "//api/v2/pushes/" + tok} {
		if res := noRedirect(t, "GET", srv.url+path); res.Status != 200 || res.Header.Get("Location") != "" {
			t.Errorf("GET %s: %d, Location %q; want it served", path, res.Status, res.Header.Get("Location"))
		}
	}
	// None of this used a view but the three GETs of the secret itself
	// (served, not redirected), and this retrieve.
	if q, err := c.Retrieve(context.Background(), tok, ""); err != nil || q.ViewsRemaining != 6 || deref(q.Payload) != "old links" {
		t.Errorf("retrieve after: %+v %v, want 6 views left", q, err)
	}
	srv.stop(t)
	log := srv.log.String()
	if strings.Contains(log, tok) {
		t.Errorf("a url_token reached the log:\n%s", log)
	}
	for _, want := range []string{"/en/p/:token", "/f/:token/r", `route="GET /{locale}/p/{token}/r"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
}

// TestClientPublicPreviewPage: the HTML preview of a push is open to
// whoever has the link — the browser extension reads it after creating a
// push through the API — with the link and its QR code as inline SVG, and
// it uses no view.
func TestClientPublicPreviewPage(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	c := &client.Client{Base: srv.url}
	p, err := c.Create(context.Background(), map[string]any{"payload": "shown nowhere", "expire_after_views": 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		res := send(t, "GET", srv.url+"/p/"+p.URLToken+"/preview", "")
		page := string(res.Body)
		if res.Status != 200 || !strings.Contains(page, `value="`+p.HTMLURL+`"`) || !strings.Contains(page, `<svg xmlns="http://www.w3.org/2000/svg" class="qr"`) {
			t.Fatalf("preview: %d %.300s", res.Status, page)
		}
		if strings.Contains(page, "shown nowhere") || res.Header.Get("Set-Cookie") != "" {
			t.Errorf("the preview shows the payload or sets a cookie")
		}
	}
	if q, err := c.Retrieve(context.Background(), p.URLToken, ""); err != nil || q.ViewsRemaining != 1 {
		t.Errorf("after three previews and a retrieve: %+v %v, want 1 view left", q, err)
	}
	if res := send(t, "GET", srv.url+"/p/nosuchtoken/preview", ""); res.Status != 200 || !strings.Contains(string(res.Body), "This secret link has expired") {
		t.Errorf("unknown link: %d", res.Status)
	}
}
