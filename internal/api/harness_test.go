package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sort"
	"strings"
	"testing"

	"hush/internal/client"
	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
	"hush/internal/testclock"
	"hush/internal/testdb"
	"hush/internal/testenv"
)

func TestMain(m *testing.M) { testdb.Main(m) }

type harness struct {
	t     *testing.T
	url   string
	env   *testenv.Env
	store *store.Store
	clock *testclock.Clock
	srv   *Server
	// client checks every exchange against api/openapi.yaml.
	client *http.Client

	filesDir string
	dbPath   string
}

// newHarness serves the API over a real database with a fixed clock
// (testenv). configure may change the server's options and the service's
// limits before they are built.
func newHarness(t *testing.T, configure func(*Options, *service.Limits)) *harness {
	t.Helper()
	return newHarnessMail(t, configure, nil)
}

// newHarnessMail is newHarness for a service that sends email through
// mailer (nil: none).
func newHarnessMail(t *testing.T, configure func(*Options, *service.Limits), mailer service.Mailer) *harness {
	t.Helper()
	opts := Options{MaxBody: 2 << 20, Version: "9.8.7", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.9.9.9/32")}}
	env := testenv.NewWithMail(t, func(l *service.Limits) {
		if configure != nil {
			configure(&opts, l)
		}
	}, mailer)
	opts.Service = env.Service
	s := New(opts)
	// Mounted as app/serve.go does, behind the edge's baseline headers.
	mux := http.NewServeMux()
	mux.Handle("/api/", s.Handler())
	mux.Handle("GET /help/api", s.HelpHandler())
	ts := httptest.NewServer(httpx.Baseline(s.Legacy(mux), false))
	t.Cleanup(ts.Close)
	return &harness{t: t, url: ts.URL, env: env, store: env.Store, clock: env.Clock, srv: s, filesDir: env.FilesDir,
		dbPath: env.DBURL, client: newCheckingClient(t)}
}

// user creates an account with an API token and returns the token.
func (h *harness) user(email string) string {
	h.t.Helper()
	_, tok := h.env.User(h.t, email)
	return tok
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

// obj decodes the body as a JSON object.
func (r resp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// list decodes the body as a JSON array of objects.
func (r resp) list(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("body is not a JSON array: %v: %s", err, r.body)
	}
	return l
}

// do sends a request. hdr holds header pairs: "Authorization", "Bearer x", …
func (h *harness) do(method, path string, body any, hdr ...string) resp {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	header := http.Header{}
	if body != nil {
		header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		header.Set(hdr[i], hdr[i+1])
	}
	res, err := (&client.Client{Base: h.url, HTTP: h.client}).Do(context.Background(), method, path, rd, header)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp{status: res.Status, header: res.Header, body: res.Body}
}

// create makes a push and returns its url_token.
func (h *harness) create(fields map[string]any, hdr ...string) string {
	h.t.Helper()
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": fields}, hdr...)
	if r.status != http.StatusCreated {
		h.t.Fatalf("create: status %d: %s", r.status, r.body)
	}
	return r.obj(h.t)["url_token"].(string)
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

func keysOf(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func wantKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := keysOf(m); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s keys:\n got  %v\n want %v", what, got, want)
	}
}

func wantStatus(t *testing.T, what string, r resp, status int) {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: status %d, want %d (body %s)", what, r.status, status, r.body)
	}
}

func wantBody(t *testing.T, what string, r resp, body string) {
	t.Helper()
	if got := strings.TrimSpace(string(r.body)); got != body {
		t.Errorf("%s: body\n got  %s\n want %s", what, got, body)
	}
}

// baseKeys are Password Pusher's 15 push keys plus kind (docs/decisions.md, D11).
var baseKeys = []string{"expire_after_views", "expired", "url_token", "deletable_by_viewer", "retrieval_step",
	"expired_on", "passphrase", "created_at", "updated_at", "expire_after_days", "days_remaining",
	"views_remaining", "deleted", "json_url", "html_url", "kind"}

func plus(extra ...string) []string { return append(append([]string{}, baseKeys...), extra...) }

func jsonDecode(res *http.Response, v any) error { return json.NewDecoder(res.Body).Decode(v) }

func mustPush(t *testing.T, h *harness, tok string) *push.Push {
	t.Helper()
	p, err := h.store.PushByKey(t.Context(), secure.TokenKey(tok))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// routeCase is a request a router must answer: status (0: not claimed by
// this handler at all) and, for 405, the Allow header it names.
type routeCase struct {
	method, path string
	status       int
	allow        string
}

// checkRoutes sends each case once and checks its status, its Allow header
// and that every answer it claims is a JSON error (HEAD has no body).
func (h *harness) checkRoutes(t *testing.T, cases []routeCase) {
	t.Helper()
	for _, c := range cases {
		what := c.method + " " + c.path
		r := h.doRaw(c.method, c.path, "")
		if c.status == 0 {
			if strings.Contains(r.header.Get("Content-Type"), "json") {
				t.Errorf("%s was claimed by the API", what)
			}
			continue
		}
		wantStatus(t, what, r, c.status)
		if c.method != "HEAD" {
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("%s: Content-Type %q", what, ct)
			}
			if !strings.HasPrefix(r.String(), `{"error":`) {
				t.Errorf("%s: body %s", what, r.body)
			}
		}
		if got := r.header.Get("Allow"); got != c.allow {
			t.Errorf("%s: Allow %q, want %q", what, got, c.allow)
		}
	}
}
