package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hush/internal/api"
	"hush/internal/blob"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

type harness struct {
	t     *testing.T
	url   string
	dbURL string // the database, for tests that reach around the service
	svc   *service.Service
	web   *Server
	clock *testclock.Clock
}

// newHarness serves the pages and the API, as the hush command mounts them,
// over a real SQLite file with a fixed clock. configure may change the
// options and settings before the server starts.
func newHarness(t *testing.T, configure func(*Options, *push.Settings)) *harness {
	t.Helper()
	ctx := context.Background()
	dbURL := testdb.URL(t)
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	key, _ := secure.GenerateKey()
	keys, err := secure.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	clk := testclock.New(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC))
	settings := push.DefaultSettings()
	opts := Options{}
	if configure != nil {
		configure(&opts, &settings)
	}
	svc := service.New(st, keys, secure.NewArgon(1, 64, 1, 4), settings, clk.Now)
	if svc.Files, err = blob.NewDisk(filepath.Join(t.TempDir(), "files")); err != nil {
		t.Fatal(err)
	}
	opts.Service = svc
	w := New(opts)
	apiServer := &api.Server{Service: svc, MaxBody: 2 << 20, Version: "test"}
	mux := http.NewServeMux()
	mux.Handle("/api/", apiServer.Handler())
	mux.Handle("/", w.Handler())
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return &harness{t: t, url: ts.URL, dbURL: dbURL, svc: svc, web: w, clock: clk}
}

// client is a browser-like client with its own cookies that does not
// follow redirects.
type client struct {
	h *harness
	c *http.Client
}

func (h *harness) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{h: h, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type resp struct {
	status int
	header http.Header
	body   string
}

func (c *client) do(req *http.Request) resp {
	c.h.t.Helper()
	res, err := c.c.Do(req)
	if err != nil {
		c.h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, header: res.Header, body: string(b)}
}

func (c *client) get(path string) resp {
	c.h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.h.url+path, nil)
	return c.do(req)
}

// post sends a form; hdr are extra header name/value pairs.
func (c *client) post(path string, form url.Values, hdr ...string) resp {
	c.h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.h.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return c.do(req)
}

// create makes a push through the service; u may be nil.
func (h *harness) create(u *push.User, params push.Params) string {
	h.t.Helper()
	c, err := h.svc.Create(context.Background(), u, params, service.FileSet{}, service.Meta{IP: "192.0.2.9"})
	if err != nil {
		h.t.Fatalf("create %v: %v", params, err)
	}
	return c.Push.URLToken
}

// has fails unless every want is in the body.
func (r resp) has(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(r.body, w) {
			t.Errorf("body lacks %q:\n%s", w, r.body)
		}
	}
}

// lacks fails if any of the strings is in the body.
func (r resp) lacks(t *testing.T, not ...string) {
	t.Helper()
	for _, n := range not {
		if strings.Contains(r.body, n) {
			t.Errorf("body has %q", n)
		}
	}
}

// expect checks the status and the headers every page carries.
func (r resp) expect(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d; body:\n%s", r.status, status, r.body)
	}
	checkSecurityHeaders(t, r.header)
}

func checkSecurityHeaders(t *testing.T, h http.Header) {
	t.Helper()
	for k, v := range map[string]string{
		"Content-Security-Policy": CSP,
		"Cache-Control":           "no-store",
		"Referrer-Policy":         "no-referrer",
		"X-Robots-Tag":            "noindex, nofollow",
	} {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}
