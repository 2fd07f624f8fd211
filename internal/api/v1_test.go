package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"hush/internal/service"
)

func TestV1Version(t *testing.T) {
	h := newHarness(t, nil)
	for _, path := range []string{"/api/v1/version", "/api/v1/version.json"} {
		r := h.do("GET", path, nil, "Authorization", "Bearer not-a-token")
		wantStatus(t, path, r, 200)
		wantBody(t, path, r, `{"application_version":"9.8.7","api_version":"1.5","edition":"oss"}`)
	}
}

// v1create posts a v1 create body and returns the decoded push.
func (h *harness) v1create(path string, body any, hdr ...string) map[string]any {
	h.t.Helper()
	r := h.do("POST", path, body, hdr...)
	if r.status != http.StatusCreated {
		h.t.Fatalf("POST %s: status %d: %s", path, r.status, r.body)
	}
	return r.obj(h.t)
}

// pathOf strips the harness origin from a URL the API handed out.
func (h *harness) pathOf(u string) string {
	h.t.Helper()
	p, ok := strings.CutPrefix(u, h.url)
	if !ok {
		h.t.Fatalf("URL %q is not on %s", u, h.url)
	}
	return p
}

func TestV1CreateAndJSONURL(t *testing.T) {
	h := newHarness(t, nil)
	m := h.v1create("/p.json", map[string]any{"password": map[string]any{"payload": "s3cret", "expire_after_views": "4", "note": "n"}})
	wantKeys(t, "v1 create", m, plus("note", "name")...)
	tok := m["url_token"].(string)
	if m["kind"] != "text" || m["expire_after_views"] != 4.0 || m["note"] != "n" {
		t.Errorf("v1 create: %v", m)
	}
	// json_url is /p/<token>/r.json (docs/decisions.md, D13) and it resolves to the v1 retrieve.
	ju := m["json_url"].(string)
	if !strings.HasSuffix(ju, "/p/"+tok+"/r.json") {
		t.Fatalf("json_url %q", ju)
	}
	for i, path := range []string{h.pathOf(ju), "/p/" + tok + ".json", "/f/" + tok + ".json", "/r/" + tok + "/r.json"} {
		r := h.do("GET", path, nil)
		wantStatus(t, path, r, 200)
		got := r.obj(t)
		wantKeys(t, path, got, plus("payload", "files")...)
		if got["payload"] != "s3cret" || got["views_remaining"] != float64(3-i) {
			t.Errorf("%s: payload %v views_remaining %v", path, got["payload"], got["views_remaining"])
		}
		if cc := r.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q", path, cc)
		}
	}
	// Four views were allowed: the fifth retrieve sees an expired push.
	if got := h.do("GET", "/p/"+tok+".json", nil).obj(t); got["expired"] != true || got["payload"] != nil {
		t.Errorf("after the last view: %v", got)
	}
	wantBody(t, "unknown token", h.do("GET", "/p/nope.json", nil), `{"error":"not-found"}`)
}

func TestV1CreateBodies(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	cases := []struct {
		name, path, body string
		auth             bool
		status           int
		want             string            // exact body, or ""
		check            map[string]any    // fields of a created push
		form             map[string]string // urlencoded instead of JSON
	}{
		{name: "password wrapper", path: "/p.json", body: `{"password":{"payload":"x","kind":"qr"}}`, status: 201,
			check: map[string]any{"kind": "qr"}},
		{name: "v2 wrapper refused", path: "/p.json", body: `{"push":{"payload":"x"}}`, status: 400,
			want: `{"error":"param is missing or the value is empty or invalid: password"}`},
		{name: "unwrapped refused", path: "/p.json", body: `{"payload":"x"}`, status: 400,
			want: `{"error":"param is missing or the value is empty or invalid: password"}`},
		{name: "empty wrapper", path: "/p.json", body: `{"password":{}}`, status: 400,
			want: `{"error":"param is missing or the value is empty or invalid: password"}`},
		{name: "malformed", path: "/p.json", body: `{"password":`, status: 400},
		{name: "unknown kind", path: "/p.json", body: `{"password":{"payload":"x","kind":"nope"}}`, status: 422,
			want: `{"kind":["is not included in the list"]}`},
		{name: "notify and duration are not permitted in v1", path: "/p.json",
			body: `{"password":{"payload":"x","notify_emails_to":"a@b.c","expire_after_duration":6}}`, status: 201,
			check: map[string]any{"expire_after_days": 7.0}},
		{name: "files key needs a token", path: "/p.json", body: `{"password":{"payload":"x","files":[]}}`, status: 401,
			want: `{"error":"You need to sign in or sign up before continuing."}`},
		{name: "file_push forces kind file", path: "/f.json", auth: true, body: `{"file_push":{"payload":"m","kind":"text"}}`,
			status: 201, check: map[string]any{"kind": "file"}},
		{name: "f needs a token", path: "/f.json", body: `{"file_push":{"payload":"m"}}`, status: 401},
		{name: "f wrapper", path: "/f.json", auth: true, body: `{"password":{"payload":"m"}}`, status: 400,
			want: `{"error":"param is missing or the value is empty or invalid: file_push"}`},
		{name: "url forces kind url", path: "/r.json", auth: true,
			body:   `{"url":{"payload":"https://example.com","kind":"text","deletable_by_viewer":true}}`,
			status: 201, check: map[string]any{"kind": "url", "deletable_by_viewer": nil}},
		{name: "url validated", path: "/r.json", auth: true, body: `{"url":{"payload":"ftp://x"}}`, status: 422,
			want: `{"payload":["must be a valid HTTP or HTTPS URL."]}`},
		{name: "r needs a token", path: "/r.json", body: `{"url":{"payload":"https://example.com"}}`, status: 401},
		{name: "form body", path: "/p.json", form: map[string]string{"password[payload]": "x", "password[retrieval_step]": "False"},
			status: 201, check: map[string]any{"retrieval_step": false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hdr := []string{"Content-Type", "application/json"}
			body := c.body
			if c.form != nil {
				hdr[1] = "application/x-www-form-urlencoded"
				vals := make([]string, 0, len(c.form))
				for k, v := range c.form {
					vals = append(vals, k+"="+v)
				}
				body = strings.Join(vals, "&")
			}
			if c.auth {
				hdr = append(hdr, bearer(owner)...)
			}
			r := h.doRaw("POST", c.path, body, hdr...)
			wantStatus(t, c.name, r, c.status)
			if c.want != "" {
				wantBody(t, c.name, r, c.want)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			m := map[string]any{}
			json.Unmarshal(r.body, &m)
			for k, v := range c.check {
				if m[k] != v {
					t.Errorf("%s = %#v, want %#v", k, m[k], v)
				}
			}
		})
	}
}

func TestV1FileUpload(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("file_push[payload]", "the keys")
	mw.WriteField("file_push[expire_after_views]", "2")
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="file_push[files][]"; filename="id.txt"`}})
	part.Write([]byte("hello file"))
	mw.Close()
	r := h.doRaw("POST", "/f.json", buf.String(), append([]string{"Content-Type", mw.FormDataContentType()}, bearer(owner)...)...)
	wantStatus(t, "v1 file create", r, 201)
	tok := r.obj(t)["url_token"].(string)
	got := h.do("GET", "/f/"+tok+".json", nil).obj(t)
	files, _ := got["files"].([]any)
	if got["kind"] != "file" || got["payload"] != "the keys" || len(files) != 1 {
		t.Fatalf("retrieve: %v", got)
	}
	f := files[0].(map[string]any)
	if f["filename"] != "id.txt" || f["content_type"] != "text/plain; charset=utf-8" && f["content_type"] != "text/plain" {
		t.Errorf("file %v", f)
	}
	if dl := h.get(f["url"].(string)); dl.status != 200 || string(dl.body) != "hello file" {
		t.Errorf("download: %d %q", dl.status, dl.body)
	}
}

func TestV1ManageAndLists(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	other := h.user("x@example.com")
	tok := h.v1create("/p.json", map[string]any{"password": map[string]any{"payload": "x", "deletable_by_viewer": false}}, bearer(owner)...)["url_token"].(string)
	h.do("GET", "/p/"+tok+".json", nil, "User-Agent", "viewer-agent")

	r := h.do("GET", "/p/"+tok+"/preview.json", nil)
	wantStatus(t, "preview", r, 200)
	wantBody(t, "preview", r, fmt.Sprintf(`{"url":"%s/p/%s/r"}`, h.url, tok))

	r = h.do("GET", "/p/"+tok+"/audit.json", nil, bearer(owner)...)
	wantStatus(t, "audit", r, 200)
	var audit struct{ Views []json.RawMessage }
	if err := json.Unmarshal(r.body, &audit); err != nil || len(audit.Views) != 2 {
		t.Fatalf("audit body %s (%v)", r.body, err)
	}
	if !strings.HasPrefix(string(audit.Views[0]), `{"created_at":"2026-01-01T01:00:00.000Z","ip":"127.0.0.1","kind":"creation","referrer":"",`) ||
		!strings.Contains(string(audit.Views[1]), `"kind":"view"`) || !strings.Contains(string(audit.Views[1]), `"user_agent":"viewer-agent"`) {
		t.Errorf("audit entries %s", r.body)
	}
	wantStatus(t, "audit anonymous", h.do("GET", "/p/"+tok+"/audit.json", nil), 401)
	wantStatus(t, "audit by another user", h.do("GET", "/p/"+tok+"/audit.json", nil, bearer(other)...), 403)
	wantStatus(t, "audit bad page", h.do("GET", "/p/"+tok+"/audit.json?page=201", nil, bearer(owner)...), 400)
	wantStatus(t, "audit page 0 is page 1", h.do("GET", "/p/"+tok+"/audit.json?page=0", nil, bearer(owner)...), 200)

	for _, path := range []string{"/p/active.json", "/f/active.json", "/r/active.json", "/en/d/active.json", "/pt-BR/d/active.json"} {
		r := h.do("GET", path, nil, bearer(owner)...)
		wantStatus(t, path, r, 200)
		if l := r.list(t); len(l) != 1 || l[0]["url_token"] != tok {
			t.Errorf("%s: %s", path, r.body)
		}
		wantStatus(t, path+" anonymous", h.do("GET", path, nil), 401)
	}
	wantBody(t, "expired list", h.do("GET", "/p/expired.json", nil, bearer(owner)...), `[]`)

	r = h.do("DELETE", "/p/"+tok+".json", nil)
	wantStatus(t, "anonymous delete of a non-deletable push", r, 401)
	wantBody(t, "anonymous delete", r, `{"error":"That push is not deletable by viewers."}`)
	r = h.do("DELETE", "/p/"+tok+".json", nil, bearer(owner)...)
	wantStatus(t, "owner delete", r, 200)
	if m := r.obj(t); m["expired"] != true || m["deleted"] != true {
		t.Errorf("delete: %v", m)
	}
	if l := h.do("GET", "/en/d/expired.json", nil, bearer(owner)...).list(t); len(l) != 1 {
		t.Errorf("expired list after delete: %v", l)
	}
}

func TestV1RoutingEdges(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(map[string]any{"payload": "x"})
	h.checkRoutes(t, []routeCase{
		{"GET", "/p.json", 405, "POST"},
		{"PUT", "/p/" + tok + ".json", 405, "GET, DELETE"},
		{"HEAD", "/p/" + tok + ".json", 405, "GET, DELETE"},
		{"HEAD", "/p/" + tok + "/r.json", 405, "GET"},
		{"DELETE", "/p/" + tok + "/r.json", 405, "GET"},
		{"POST", "/p/" + tok + "/preview.json", 405, "GET"},
		{"GET", "/p/" + tok + "/nope.json", 404, ""},
		{"GET", "/p/a/b/c.json", 404, ""},
		{"GET", "/p/.json", 404, ""},
		{"GET", "/en/d/nope.json", 404, ""},
		{"GET", "/x.json", 0, ""}, // not legacy: the next handler
	})
	if m := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t); m["views_remaining"] != 4.0 {
		t.Errorf("views_remaining %v: HEAD counted a view", m["views_remaining"])
	}

	off := newHarness(t, func(_ *Options, l *service.Limits) {
		l.Settings.EnableFilePushes = false
		l.Settings.EnableURLPushes = false
	})
	owner := off.user("o@example.com")
	for _, path := range []string{"/f.json", "/r.json", "/f/active.json", "/r/" + tok + ".json"} {
		wantStatus(t, path+" with the kind off", off.do("GET", path, nil, bearer(owner)...), 404)
	}
	wantStatus(t, "/p/active.json with kinds off", off.do("GET", "/p/active.json", nil, bearer(owner)...), 200)
}

func TestLegacyFallsThrough(t *testing.T) {
	h := newHarness(t, nil)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	handler := h.srv.Legacy(next)
	cases := []struct {
		path   string
		legacy bool
	}{
		{"/p/abc", false}, {"/p/abc/r", false}, {"/p/abc.json", true}, {"/p/abc/r.json", true},
		{"/p.json", true}, {"/f/x/preview.json", true}, {"/r/active.json", true}, {"/en/d/active.json", true},
		{"/zh-CN/d/expired.json", true}, {"/english/d/active.json", false},
		// The json_url of a push with push_locale (docs/decisions.md, D53).
		{"/en/p/abc.json", true}, {"/de/p/abc/r.json", true}, {"/english/p/abc.json", false}, {"/de/x/abc.json", false},
		{"/api/v2/version", false}, {"/help/api", false}, {"/q/abc.json", false}, {"/p", false},
	}
	for _, c := range cases {
		req := httptest.NewRequest("GET", c.path, nil)
		if got := IsLegacyJSON(req); got != c.legacy {
			t.Errorf("IsLegacyJSON(%s) = %v, want %v", c.path, got, c.legacy)
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if (rec.Code == http.StatusTeapot) == c.legacy {
			t.Errorf("%s: status %d, legacy %v", c.path, rec.Code, c.legacy)
		}
	}
}

// TestUnwrappedCreateBody: a v2 create without the push wrapper takes the
// push attributes from the top level (Rails parameter wrapping);
// files and the notify keys are not wrapped that way.
func TestUnwrappedCreateBody(t *testing.T) {
	h := newHarness(t, nil)
	r := h.doRaw("POST", "/api/v2/pushes", `{"payload":"x","kind":"qr","expire_after_views":"2","retrieval_step":"False","name":"n"}`,
		"Content-Type", "application/json")
	wantStatus(t, "unwrapped", r, 201)
	m := r.obj(t)
	for k, v := range map[string]any{"kind": "qr", "expire_after_views": 2.0, "retrieval_step": false, "name": "n"} {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	r = h.doRaw("POST", "/api/v2/pushes", `{"payload":"x","files":[],"notify_emails_to":"a@b.c"}`, "Content-Type", "application/json")
	wantStatus(t, "unwrapped files and notify keys are ignored", r, 201)
	r = h.doRaw("POST", "/api/v2/pushes", `{"unknown":"x"}`, "Content-Type", "application/json")
	wantStatus(t, "no push attribute", r, 400)
	wantBody(t, "no push attribute", r, `{"error":"param is missing or the value is empty or invalid: push"}`)
}

// TestVersionRequireTwoFactor: with PWP__REQUIRE_MFA, a valid token of an
// account without a second factor gets the 403 of every other endpoint
// from the version endpoints too, as in Password Pusher (docs/decisions.md,
// D40); an absent or bad token is still ignored there.
func TestVersionRequireTwoFactor(t *testing.T) {
	h := newHarness(t, func(_ *Options, l *service.Limits) { l.RequireTwoFactor = true })
	tok := h.user("nofactor@example.com")
	for _, path := range []string{"/api/v2/version", "/api/v2/version.json", "/api/v1/version", "/api/v1/version.json"} {
		r := h.do("GET", path, nil, bearer(tok)...)
		wantStatus(t, path+" with the token", r, 403)
		wantBody(t, path+" with the token", r, `{"error":"`+service.MsgTwoFactorRequired+`"}`)
		r = h.do("GET", path, nil, "X-User-Email", "nofactor@example.com", "X-User-Token", tok)
		wantStatus(t, path+" with X-User-Token", r, 403)
		wantStatus(t, path+" without a token", h.do("GET", path, nil), 200)
		wantStatus(t, path+" with a bad token", h.do("GET", path, nil, bearer("not-a-token")...), 200)
	}
}

// TestRequireTwoFactorEveryEndpoint: with PWP__REQUIRE_MFA, the token of an
// account without a second factor is 403 on every endpoint that reads a
// token, as the document says.
func TestRequireTwoFactorEveryEndpoint(t *testing.T) {
	h := newHookHarnessLimits(t, func(l *service.Limits) { l.RequireTwoFactor = true })
	tok := h.user("nofactor@example.com")
	pushTok := h.create(map[string]any{"payload": "x"})
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x"}}},
		{"GET", "/api/v2/pushes/active", nil},
		{"GET", "/api/v2/pushes/expired", nil},
		{"GET", "/api/v2/pushes/" + pushTok, nil},
		{"GET", "/api/v2/pushes/" + pushTok + "/preview", nil},
		{"GET", "/api/v2/pushes/" + pushTok + "/audit", nil},
		{"DELETE", "/api/v2/pushes/" + pushTok, nil},
		{"GET", "/api/v2/webhooks", nil},
		{"POST", "/api/v2/webhooks", map[string]any{"url": "https://example.com/in", "events": []string{"*"}}},
		{"GET", "/api/v2/webhooks/1", nil},
		{"PATCH", "/api/v2/webhooks/1", map[string]any{"enabled": false}},
		{"DELETE", "/api/v2/webhooks/1", nil},
		{"GET", "/api/v2/webhooks/1/deliveries", nil},
		{"POST", "/api/v2/webhooks/1/deliveries/1/redeliver", nil},
	} {
		r := h.do(c.method, c.path, c.body, bearer(tok)...)
		wantStatus(t, c.method+" "+c.path, r, 403)
		wantBody(t, c.method+" "+c.path, r, `{"error":"`+service.MsgTwoFactorRequired+`"}`)
	}
}
