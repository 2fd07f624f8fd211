package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"hush/internal/api"
	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
	"hush/internal/testclock"
	"hush/internal/testdb"
	"hush/internal/testenv"
)

func TestMain(m *testing.M) { testdb.Main(m) }

type harness struct {
	t     *testing.T
	url   string
	env   *testenv.Env
	dbURL string // the database, for tests that reach around the service
	svc   *service.Service
	web   *Server
	clock *testclock.Clock
}

// newHarness serves the pages and the API, as the hush command mounts them
// (behind the edge's baseline headers), over a real database with a fixed
// clock (testenv). configure may change the options and settings before the
// server starts.
func newHarness(t *testing.T, configure func(*Options, *push.Settings)) *harness {
	return newHarnessLimits(t, func(o *Options, l *service.Limits) {
		if configure != nil {
			configure(o, &l.Settings)
		}
	})
}

// newHarnessLimits is newHarness for tests that change the size limits.
func newHarnessLimits(t *testing.T, configure func(*Options, *service.Limits)) *harness {
	t.Helper()
	return newHarnessMail(t, configure, nil)
}

// newHarnessMail is newHarnessLimits for a service that sends email
// through mailer (nil: none).
func newHarnessMail(t *testing.T, configure func(*Options, *service.Limits), mailer service.Mailer) *harness {
	t.Helper()
	opts := Options{}
	env := testenv.NewWithMail(t, func(l *service.Limits) {
		if configure != nil {
			configure(&opts, l)
		}
	}, mailer)
	return serveHarness(t, env, opts)
}

// serveHarness serves the pages with opts, and the API, over env's service.
func serveHarness(t *testing.T, env *testenv.Env, opts Options) *harness {
	t.Helper()
	opts.Service = env.Service
	w := New(opts)
	apiServer := api.New(api.Options{Service: env.Service, MaxBody: 2 << 20, Version: "test"})
	mux := http.NewServeMux()
	mux.Handle("/api/", apiServer.Handler())
	mux.Handle("/", w.Handler())
	ts := httptest.NewServer(httpx.Baseline(mux, false))
	t.Cleanup(ts.Close)
	return &harness{t: t, url: ts.URL, env: env, dbURL: env.DBURL, svc: env.Service, web: w, clock: env.Clock}
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

// fields are the fields of a push made for a test, as a form would send
// them: kind, payload, note, name, passphrase, expire_after_days,
// expire_after_views, deletable_by_viewer, retrieval_step, push_locale.
type fields map[string]string

// create makes a push through the service; u may be nil.
func (h *harness) create(u *push.User, f fields) string {
	h.t.Helper()
	req := &push.CreateRequest{Payload: f["payload"], Note: f["note"], Name: f["name"], Passphrase: f["passphrase"],
		PushLocale: f["push_locale"]}
	if k, ok := f["kind"]; ok {
		kind := push.Kind(k)
		req.Kind = &kind
	}
	num := func(key string) *int {
		v, ok := f[key]
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			h.t.Fatalf("%s: %v", key, err)
		}
		return &n
	}
	flag := func(key string) *bool {
		v, ok := f[key]
		if !ok {
			return nil
		}
		b := v == "true"
		return &b
	}
	req.ExpireAfterDays, req.ExpireAfterViews = num("expire_after_days"), num("expire_after_views")
	req.DeletableByViewer, req.RetrievalStep = flag("deletable_by_viewer"), flag("retrieval_step")
	c, err := h.svc.Create(context.Background(), service.CreateInput{User: u, Request: req, Meta: push.Meta{IP: "192.0.2.9"}})
	if err != nil {
		h.t.Fatalf("create %v: %v", f, err)
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
		"Referrer-Policy":         "strict-origin",
		"X-Robots-Tag":            "noindex, nofollow",
	} {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}
