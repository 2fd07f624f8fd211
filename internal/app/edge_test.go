package app

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// get sends a GET with extra headers and returns the response with its body read.
func get(t *testing.T, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(b)
}

func TestRateLimitPerClientIP(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "PWP__THROTTLING__MINUTE": "5", "PWP__THROTTLING__SECOND": "0"}
	srv := startServe(t, env)
	// An untrusted peer cannot buy fresh allowances with X-Forwarded-For.
	codes := map[int]int{}
	var limited *http.Response
	var body string
	for i := range 8 {
		res, b := get(t, srv.url+"/api/v2/version", "X-Forwarded-For", "198.51.100."+string(rune('1'+i)))
		codes[res.StatusCode]++
		if res.StatusCode == 429 {
			limited, body = res, b
		}
	}
	if codes[200] != 5 || codes[429] != 3 {
		t.Fatalf("statuses %v, want 5×200 then 3×429", codes)
	}
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 12 || !strings.HasPrefix(limited.Header.Get("Content-Type"), "application/json") {
		t.Errorf("429 headers: %v", limited.Header)
	}
	var e map[string]string
	if json.Unmarshal([]byte(body), &e) != nil || e["error"] != "Too many requests. Please retry later." {
		t.Errorf("429 body: %q", body)
	}
	// Web routes get a plain page; health checks are never limited.
	res, b := get(t, srv.url+"/users/sign_in")
	if res.StatusCode != 429 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || res.Header.Get("Retry-After") == "" || !strings.Contains(b, "Too many requests") {
		t.Errorf("web 429: %d %v %q", res.StatusCode, res.Header, b)
	}
	checkEdgeHeaders(t, "429", res.Header)
	if res, _ := get(t, srv.url+"/healthz"); res.StatusCode != 200 {
		t.Errorf("healthz limited: %d", res.StatusCode)
	}
}

func TestRateLimitBehindTrustedProxy(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "PWP__THROTTLING__MINUTE": "3", "PWP__THROTTLING__SECOND": "0",
		"HUSH_TRUSTED_PROXIES": "127.0.0.1"}
	srv := startServe(t, env)
	status := func(client string) int {
		res, _ := get(t, srv.url+"/api/v2/version", "X-Forwarded-For", client)
		return res.StatusCode
	}
	for i := range 3 {
		if s := status("203.0.113.1"); s != 200 {
			t.Fatalf("client 1 request %d: %d", i, s)
		}
	}
	if s := status("203.0.113.1"); s != 429 {
		t.Errorf("client 1 over its limit: %d", s)
	}
	// Another client behind the same proxy has its own allowance, and a
	// spoofed left-most hop does not reset the first client's.
	if s := status("203.0.113.2"); s != 200 {
		t.Errorf("client 2 refused: %d", s)
	}
	if s := status("6.6.6.6, 203.0.113.1"); s != 429 {
		t.Errorf("spoofed hop reset the limit: %d", s)
	}
	if !strings.Contains(srv.log.String(), "client_ip=203.0.113.2") {
		t.Errorf("the request log lacks the forwarded client IP:\n%s", srv.log.String())
	}
}

func TestRateLimitDisabled(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()}) // startServe sets 0/0
	for i := range 200 {
		if res, _ := get(t, srv.url+"/api/v2/version"); res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
	}
}

// checkEdgeHeaders checks the headers every response carries.
func checkEdgeHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	for k, v := range map[string]string{
		"Referrer-Policy":        "strict-origin",
		"X-Robots-Tag":           "noindex, nofollow",
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options":        "DENY",
	} {
		if h.Get(k) != v {
			t.Errorf("%s: %s = %q, want %q", what, k, h.Get(k), v)
		}
	}
	if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("%s: CSP %q", what, h.Get("Content-Security-Policy"))
	}
	if h.Get("Server") != "" || h.Get("X-Powered-By") != "" {
		t.Errorf("%s: a server banner: %q %q", what, h.Get("Server"), h.Get("X-Powered-By"))
	}
}

func TestSecurityHeadersEverywhere(t *testing.T) {
	for _, base := range []string{"", "https://secrets.example.com"} {
		env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
		if base != "" {
			env["HUSH_BASE_URL"] = base
		}
		srv := startServe(t, env)
		_, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x"}})
		tok := obj.(map[string]any)["url_token"].(string)
		for _, path := range []string{"/healthz", "/readyz", "/api/v2/version", "/api/v2/pushes/" + tok + "/preview",
			"/api/v2/nope", "/", "/p/" + tok + "/r", "/p/unknown", "/users/sign_in", "/static/style.css", "/no/such/page"} {
			res, _ := get(t, srv.url+path)
			checkEdgeHeaders(t, base+path, res.Header)
			hsts := res.Header.Get("Strict-Transport-Security")
			if (base != "") != (hsts != "") || (hsts != "" && !strings.Contains(hsts, "max-age=31536000")) {
				t.Errorf("%s%s: Strict-Transport-Security %q", base, path, hsts)
			}
			if path != "/static/style.css" && res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: Cache-Control %q", path, res.Header.Get("Cache-Control"))
			}
		}
		if res, _ := get(t, srv.url+"/"); res.Header.Get("Content-Security-Policy") != "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'" {
			t.Errorf("web CSP replaced: %q", res.Header.Get("Content-Security-Policy"))
		}
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestPprofOnMetricsListener(t *testing.T) {
	maddr := freeAddr(t)
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_METRICS_ADDR": maddr, "HUSH_PPROF": "1"})
	if res, _ := get(t, srv.url+"/debug/pprof/"); res.StatusCode == 200 {
		t.Error("profiles are served on the public port")
	}
	res, text := get(t, "http://"+maddr+"/debug/pprof/heap?debug=1")
	if res.StatusCode != 200 || !strings.Contains(text, "heap profile") {
		t.Errorf("heap profile: %d %.80q", res.StatusCode, text)
	}
}

func TestMetricsListener(t *testing.T) {
	maddr := freeAddr(t)
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_METRICS_ADDR": maddr,
		"PWP__THROTTLING__SECOND": "0", "PWP__THROTTLING__MINUTE": "2"}
	srv := startServe(t, env)
	_, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "m", "expire_after_views": 1}})
	tok := obj.(map[string]any)["url_token"].(string)
	call(t, "GET", srv.url+"/api/v2/pushes/"+tok, nil)
	call(t, "GET", srv.url+"/api/v2/pushes/"+tok, nil) // limited
	if res, _ := get(t, srv.url+"/metrics"); res.StatusCode == 200 {
		t.Error("/metrics is served on the public port")
	}
	// The first sweep runs at start, beside these requests: wait for it to
	// be counted (the series exist from the start, at zero).
	var text string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var res *http.Response
		res, text = get(t, "http://"+maddr+"/metrics")
		if res.StatusCode != 200 {
			t.Fatalf("metrics: %d", res.StatusCode)
		}
		if strings.Contains(text, `hush_sweeper_runs_total{result="ok"} 1`) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		`hush_http_requests_total{route="POST /api/v2/pushes",status="201"} 1`,
		`hush_http_requests_total{route="GET /api/v2/pushes/{token}",status="200"} 1`,
		`hush_http_request_duration_seconds_count{route="POST /api/v2/pushes"} 1`,
		`hush_push_events_total{event="created"} 1`,
		`hush_push_events_total{event="viewed"} 1`,
		`hush_rate_limited_total 2`,
		`hush_sweeper_runs_total{result="ok"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, tok) {
		t.Error("a url_token appears in the metrics")
	}
	if res, _ := get(t, "http://"+maddr+"/debug/pprof/"); res.StatusCode != 404 {
		t.Errorf("profiles served without HUSH_PPROF: %d", res.StatusCode)
	}
	logs := srv.log.String()
	if !strings.Contains(logs, `route="GET /api/v2/pushes/{token}"`) || !strings.Contains(logs, "client_ip=127.0.0.1") || strings.Contains(logs, tok) {
		t.Errorf("request log:\n%s", logs)
	}
}

// TestLanguageRootsThroughTheEdge: a shipped language's create page is
// served through the whole server, whose edge takes the trailing slash off
// every path (so /de/ reaches the web server as /de), at /<code>/ and
// /<code>, without a redirect; a two-letter probe such as /up/ stays what
// it was.
func TestLanguageRootsThroughTheEdge(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "PWP__THROTTLING__MINUTE": "0", "PWP__THROTTLING__SECOND": "0"})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, code := range []string{"de", "pt-BR", "ar"} {
		for _, p := range []string{"/" + code + "/", "/" + code} {
			res, err := noFollow.Get(srv.url + p)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `<html lang="`+code+`"`) {
				t.Errorf("GET %s: %d, Location %q; want the create page in %s", p, res.StatusCode, res.Header.Get("Location"), code)
			}
		}
	}
	for _, p := range []string{"/up/", "/up"} {
		if res, _ := get(t, srv.url+p); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d, want the health probe's 200", p, res.StatusCode)
		}
	}
	// A prefix no language has is left to the other routes, as before.
	if res, _ := get(t, srv.url+"/xx/"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /xx/: %d, want 404", res.StatusCode)
	}
}
