package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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
		"/pt-PT/p/" + tok + "/r":    "/p/" + tok + "/r",
		"/de/f/" + tok + "/r":       "/de/p/" + tok + "/r",
		"/ko/r/" + tok:              "/p/" + tok,
		// A shipped language's prefix before an old one.
		"/de/de/p/" + tok:            "/de/p/" + tok,
		"/ja/ab-CDE/f/" + tok + "/r": "/ja/p/" + tok + "/r",
		"/api_tokens":                "/users/token",
	} {
		res := noRedirect(t, "GET", srv.url+from)
		if res.Status != http.StatusMovedPermanently || res.Header.Get("Location") != to {
			t.Errorf("GET %s: %d → %q, want 301 → %s", from, res.Status, res.Header.Get("Location"), to)
		}
	}
	// A shipped language's prefix is served as it is, in that language
	// (docs/decisions.md, D53); a language Hush does not speak (pt-PT, ko
	// above) is Password Pusher's old link, redirected.
	for path, want := range map[string]string{"/en/p/" + tok + "/r": "Reveal the secret", "/de/p/" + tok + "/r/": "Geheimnis anzeigen",
		"/pt-BR/p/" + tok + "/r": "Revelar o segredo"} {
		if res := noRedirect(t, "GET", srv.url+path); res.Status != 200 || !strings.Contains(string(res.Body), want) {
			t.Errorf("GET %s: %d, want it served with %q", path, res.Status, want)
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

// storedLimits returns, for every push in the database in the order they
// were made, how long after its creation it expires, as the database keeps
// it (expires_at).
func storedLimits(t *testing.T, env map[string]string) []time.Duration {
	t.Helper()
	rows, err := rawDB(t, withDB(t, env)).Query(`SELECT expires_at - created_at FROM pushes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []time.Duration
	for rows.Next() {
		var ms int64
		if err := rows.Scan(&ms); err != nil {
			t.Fatal(err)
		}
		out = append(out, time.Duration(ms)*time.Millisecond)
	}
	return out
}

// TestClientSubDayDurations: expire_after_duration 0..5, which Password
// Pusher's paid editions and its MCP client send on every create (as JSON,
// or as the CLI's form fields), makes a push that expires exactly that
// long after its creation, reported as one day; unknown codes get the
// default; an operator can hide the short ones.
func TestClientSubDayDurations(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	srv := startServe(t, env)
	c := &client.Client{Base: srv.url}
	want := []time.Duration{15 * time.Minute, 30 * time.Minute, 45 * time.Minute, time.Hour, 6 * time.Hour, 12 * time.Hour}
	for code := range want {
		p, err := c.Create(context.Background(), map[string]any{"payload": "brief", "expire_after_duration": code})
		if err != nil || p.ExpireAfterDays != 1 || p.DaysRemaining != 1 || p.Expired {
			t.Fatalf("code %d: %+v %v", code, p, err)
		}
	}
	p, err := c.CreateWithFiles(context.Background(), map[string]string{"payload": "cli", "expire_after_duration": "3"})
	if err != nil || p.ExpireAfterDays != 1 {
		t.Fatalf("form field: %+v %v", p, err)
	}
	want = append(want, time.Hour)
	for _, code := range []any{42, "soon", -1} {
		if p, err := c.Create(context.Background(), map[string]any{"payload": "x", "expire_after_duration": code}); err != nil || p.ExpireAfterDays != 7 {
			t.Fatalf("unknown code %v: %+v %v", code, p, err)
		}
		want = append(want, 7*24*time.Hour)
	}
	srv.stop(t)
	if got := storedLimits(t, env); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored time limits %v, want %v", got, want)
	}

	hidden := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_SUBDAY_DURATIONS": "false"}
	srv = startServe(t, hidden)
	if p, err := (&client.Client{Base: srv.url}).Create(context.Background(), map[string]any{"payload": "x", "expire_after_duration": 0}); err != nil || p.ExpireAfterDays != 1 {
		t.Fatalf("hidden: %+v %v", p, err)
	}
	srv.stop(t)
	if got := storedLimits(t, hidden); len(got) != 1 || got[0] != 24*time.Hour {
		t.Errorf("hidden: stored %v, want one day", got)
	}
}

// TestClientLimitsBroughtIntoRange: days and views out of range, or as
// floats, are applied at the nearest bound and reported, as scripts
// written against Password Pusher (pwpush push --days 120) expect a 201;
// only what is not a number is 422.
func TestClientLimitsBroughtIntoRange(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	c := &client.Client{Base: srv.url}
	p, err := c.CreateWithFiles(context.Background(), map[string]string{"payload": "cli", "expire_after_days": "120", "expire_after_views": "0"})
	if err != nil || p.ExpireAfterDays != 90 || p.ExpireAfterViews != 1 || p.DaysRemaining != 90 {
		t.Errorf("--days 120 --views 0: %+v %v", p, err)
	}
	for _, c2 := range []struct {
		fields      map[string]any
		days, views int
	}{
		{map[string]any{"expire_after_days": 3.0, "expire_after_views": 1e2}, 3, 100},
		{map[string]any{"expire_after_days": "1e2", "expire_after_views": "2.9"}, 90, 2},
		{map[string]any{"expire_after_days": -4, "expire_after_views": 1e300}, 1, 100},
	} {
		c2.fields["payload"] = "x"
		p, err := c.Create(context.Background(), c2.fields)
		if err != nil || p.ExpireAfterDays != c2.days || p.ExpireAfterViews != c2.views {
			t.Errorf("%v: %+v %v, want %d days, %d views", c2.fields, p, err, c2.days, c2.views)
		}
	}
	_, err = c.Create(context.Background(), map[string]any{"payload": "x", "expire_after_days": "a week"})
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 422 || strings.TrimSpace(string(e.Body)) != `{"expire_after_days":["is not a number"]}` {
		t.Errorf("not a number: %v", err)
	}
}

// TestClientLenientFields: what Password Pusher takes and Hush refused —
// blank notification fields, a number or boolean as the payload, name or
// note — creates the push; a non-blank notification field is still 422
// while Hush sends no e-mail.
func TestClientLenientFields(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	token := apiToken(t, env, "lenient@example.com", "lenient password")
	srv := startServe(t, env)
	c := &client.Client{Base: srv.url, Token: token}
	if _, err := c.Create(context.Background(), map[string]any{"payload": "x", "notify_emails_to": "", "notify_emails_to_locale": " "}); err != nil {
		t.Errorf("blank notify fields: %v", err)
	}
	if _, err := c.CreateWithFiles(context.Background(), map[string]string{"payload": "x", "notify_emails_to": ""}); err != nil {
		t.Errorf("blank notify field in a form: %v", err)
	}
	var e *client.Error
	if _, err := c.Create(context.Background(), map[string]any{"payload": "x", "notify_emails_to": "a@example.com"}); !errors.As(err, &e) || e.Status != 422 {
		t.Errorf("notify_emails_to given: %v, want 422", err)
	}
	p, err := c.Create(context.Background(), map[string]any{"payload": 123456, "name": 42, "note": true})
	if err != nil || p.Name != "42" || p.Note != "true" {
		t.Fatalf("scalars: %+v %v", p, err)
	}
	anon := &client.Client{Base: srv.url}
	if q, err := anon.Retrieve(context.Background(), p.URLToken, ""); err != nil || deref(q.Payload) != "123456" {
		t.Errorf("retrieve: %+v %v", q, err)
	}
	if _, err := c.Create(context.Background(), map[string]any{"payload": map[string]any{"a": 1}}); !errors.As(err, &e) || e.Status != 422 {
		t.Errorf("an object payload: %v, want 422", err)
	}
}

// TestClientPageZero: page 0 and below are page 1, as Password Pusher
// clamps them; above 200 and words stay 400.
func TestClientPageZero(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	token := apiToken(t, env, "pages@example.com", "pages password")
	srv := startServe(t, env)
	c := &client.Client{Base: srv.url, Token: token}
	p, err := c.Create(context.Background(), map[string]any{"payload": "listed"})
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []int{0, -1, -200} {
		l, err := c.List(context.Background(), false, page)
		if err != nil || len(l) != 1 || l[0].URLToken != p.URLToken {
			t.Errorf("active page %d: %v %v", page, l, err)
		}
		if logs, err := c.Audit(context.Background(), p.URLToken, page); err != nil || len(logs) != 1 || logs[0].Kind != "creation" {
			t.Errorf("audit page %d: %v %v", page, logs, err)
		}
	}
	for _, q := range []string{"201", "one", "1.5"} {
		res := send(t, "GET", srv.url+"/api/v2/pushes/active?page="+q, "", "Authorization", "Bearer "+token)
		if res.Status != 400 || strings.TrimSpace(string(res.Body)) != `{"error":"Invalid page parameter"}` {
			t.Errorf("page=%s: %d %s", q, res.Status, res.Body)
		}
	}
}

// TestClientLoneUserToken: an X-User-Token without its X-User-Email
// authenticates nobody and is refused, as in Password Pusher — even with
// a valid token, on public endpoints too.
func TestClientLoneUserToken(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	token := apiToken(t, env, "pair@example.com", "pair password")
	srv := startServe(t, env)
	for _, path := range []string{"/api/v2/pushes/active", "/p/active.json", "/api/v2/pushes/nosuchtoken/preview"} {
		res := send(t, "GET", srv.url+path, "", "X-User-Token", token)
		if res.Status != 401 {
			t.Errorf("%s with X-User-Token alone: %d %s", path, res.Status, res.Body)
		}
	}
	res := send(t, "POST", srv.url+"/api/v2/pushes", `{"push":{"payload":"x"}}`, "X-User-Token", token, "Content-Type", "application/json")
	if res.Status != 401 {
		t.Errorf("create with X-User-Token alone: %d", res.Status)
	}
	if res := send(t, "GET", srv.url+"/api/v2/pushes/active", "", "X-User-Token", token, "X-User-Email", "pair@example.com"); res.Status != 200 {
		t.Errorf("the pair: %d", res.Status)
	}
}

// TestClientViewKeepsUpdatedAt: a view leaves updated_at as it was (as
// Password Pusher); the expiry sets it.
func TestClientViewKeepsUpdatedAt(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	c := &client.Client{Base: srv.url}
	p, err := c.Create(context.Background(), map[string]any{"payload": "x", "expire_after_views": 2, "deletable_by_viewer": true})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	q, err := c.Retrieve(context.Background(), p.URLToken, "")
	if err != nil || q.UpdatedAt != p.UpdatedAt || q.UpdatedAt != p.CreatedAt {
		t.Errorf("after a view: updated_at %s, created %s / %s", q.UpdatedAt, p.CreatedAt, p.UpdatedAt)
	}
	time.Sleep(5 * time.Millisecond)
	q, err = c.Retrieve(context.Background(), p.URLToken, "") // the last view expires it
	if err != nil || q.UpdatedAt == p.UpdatedAt {
		t.Errorf("after the last view: updated_at %s, want the expiry's", q.UpdatedAt)
	}
	r, err := c.Retrieve(context.Background(), p.URLToken, "")
	if err != nil || !r.Expired || r.UpdatedAt != q.UpdatedAt || r.ExpiredOn == nil || *r.ExpiredOn != r.UpdatedAt {
		t.Errorf("expired: %+v %v", r, err)
	}
}
