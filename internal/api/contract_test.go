package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"hush/internal/client"
	"hush/internal/push"
	"hush/internal/service"
)

func TestVersionBody(t *testing.T) {
	h := newHarness(t, nil)
	r := h.do("GET", "/api/v2/version", nil, "Authorization", "Bearer not-a-token")
	wantStatus(t, "version with a bad token", r, 200)
	wantBody(t, "version", r, `{"application_version":"9.8.7","api_version":"2.1","edition":"oss",`+
		`"features":{"anonymous_access":true,"api_token_authentication":true,"accounts":{"enabled":false},`+
		`"pushes":{"enabled":true,"email_auto_dispatch":false,"file_attachments":{"enabled":true,"requires_authentication":true},`+
		`"url_pushes":{"enabled":true},"qr_code_pushes":{"enabled":true}},"requests":{"enabled":false}}}`)
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	wantStatus(t, "version.json", h.do("GET", "/api/v2/version.json", nil), 200)

	off := newHarness(t, func(_ *Options, l *service.Limits) {
		l.Settings.AllowAnonymous = false
		l.Settings.EnableFilePushes = false
		l.Settings.EnableURLPushes = false
		l.Settings.EnableQRPushes = false
	})
	f := off.do("GET", "/api/v2/version", nil).obj(t)["features"].(map[string]any)
	pushes := f["pushes"].(map[string]any)
	for what, v := range map[string]any{
		"anonymous_access": f["anonymous_access"],
		"file_attachments": pushes["file_attachments"].(map[string]any)["enabled"],
		"url_pushes":       pushes["url_pushes"].(map[string]any)["enabled"],
		"qr_code_pushes":   pushes["qr_code_pushes"].(map[string]any)["enabled"],
	} {
		if v != false {
			t.Errorf("%s = %v with the setting off", what, v)
		}
	}
}

func TestCreateDefaultsAndKeys(t *testing.T) {
	h := newHarness(t, nil)
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "s3cret"}})
	wantStatus(t, "create", r, 201)
	m := r.obj(t)
	wantKeys(t, "create", m, plus("note", "name")...)
	tok := m["url_token"].(string)
	want := map[string]any{
		"expire_after_views": 5.0, "expire_after_days": 7.0, "expired": false, "deletable_by_viewer": true,
		"retrieval_step": true, "expired_on": nil, "passphrase": "", "days_remaining": 7.0,
		"views_remaining": 5.0, "deleted": false, "note": "", "name": "", "kind": "text",
		"created_at": "2026-01-01T01:00:00.000Z", "updated_at": "2026-01-01T01:00:00.000Z",
		"html_url": h.url + "/p/" + tok + "/r", "json_url": h.url + "/p/" + tok + "/r.json",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	if len(tok) < 22 || strings.Trim(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		t.Errorf("url_token %q is not ≥128 bits of URL-safe characters", tok)
	}
	// The token opens with the millisecond of creation (6 bytes), then 16 random bytes.
	if raw, err := base64.RawURLEncoding.DecodeString(tok); err != nil || len(raw) != 22 ||
		time.UnixMilli(int64(raw[0])<<40|int64(raw[1])<<32|int64(raw[2])<<24|int64(raw[3])<<16|int64(raw[4])<<8|int64(raw[5])).UTC().Format(time.RFC3339Nano) != "2026-01-01T01:00:00Z" {
		t.Errorf("url_token %q does not carry the creation time: %x %v", tok, raw, err)
	}
	if _, has := m["payload"]; has {
		t.Error("create must not echo the payload")
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
}

func TestCreateVariants(t *testing.T) {
	h := newHarness(t, nil)
	cases := []struct {
		name   string
		fields map[string]any
		check  map[string]any
	}{
		{"url kind is never deletable by viewers", map[string]any{"payload": "https://example.com", "kind": "url", "deletable_by_viewer": true},
			map[string]any{"kind": "url", "deletable_by_viewer": nil}},
		{"qr kind", map[string]any{"payload": "hello", "kind": "qr"}, map[string]any{"kind": "qr"}},
		{"explicit values", map[string]any{"payload": "x", "expire_after_days": 2, "expire_after_views": 9, "deletable_by_viewer": false,
			"retrieval_step": false, "name": "db", "note": "for ops"},
			map[string]any{"expire_after_days": 2.0, "days_remaining": 2.0, "expire_after_views": 9.0, "views_remaining": 9.0,
				"deletable_by_viewer": false, "retrieval_step": false, "name": "db", "note": "for ops"}},
		{"numeric strings", map[string]any{"payload": "x", "expire_after_days": "3", "expire_after_views": "4"},
			map[string]any{"expire_after_days": 3.0, "expire_after_views": 4.0}},
		{"null and empty mean default", map[string]any{"payload": "x", "expire_after_days": nil, "expire_after_views": ""},
			map[string]any{"expire_after_days": 7.0, "expire_after_views": 5.0}},
		{"expire_after_duration from the CLI", map[string]any{"payload": "x", "expire_after_duration": 13},
			map[string]any{"expire_after_days": 14.0}},
		{"expire_after_days wins over duration", map[string]any{"payload": "x", "expire_after_duration": 13, "expire_after_days": 3},
			map[string]any{"expire_after_days": 3.0}},
		{"passphrase echoed", map[string]any{"payload": "x", "passphrase": "open sesame"},
			map[string]any{"passphrase": "open sesame"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do("POST", "/api/v2/pushes", map[string]any{"push": c.fields})
			wantStatus(t, c.name, r, 201)
			m := r.obj(t)
			for k, v := range c.check {
				if m[k] != v {
					t.Errorf("%s = %#v, want %#v", k, m[k], v)
				}
			}
		})
	}
	// The retrieval step off gives a direct link.
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x", "retrieval_step": false}}).obj(t)
	if !strings.HasSuffix(r["html_url"].(string), "/p/"+r["url_token"].(string)) {
		t.Errorf("html_url without retrieval step: %v", r["html_url"])
	}
}

func TestCreateBodies(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *service.Limits) { o.MaxBody = 4096 })
	cases := []struct {
		name   string
		body   string
		ctype  string
		status int
		want   string // exact body, or "" to skip
	}{
		{"unwrapped body", `{"payload":"x"}`, "application/json", 201, ""},
		{"form body", `push%5Bpayload%5D=hello&push%5Bexpire_after_views%5D=2`, "application/x-www-form-urlencoded", 201, ""},
		{"JSON sent as a form", `{"push":{"payload":"x"}}`, "application/x-www-form-urlencoded", 201, ""},
		{"no content type", `{"push":{"payload":"x"}}`, "", 201, ""},
		{"malformed JSON", `{"push":{"payload":`, "application/json", 400, `{"error":"The request body is not valid JSON."}`},
		{"trailing data", `{"push":{"payload":"x"}} {}`, "application/json", 400, ""},
		{"push a string", `{"push":"x"}`, "application/json", 400, `{"error":"param is missing or the value is empty or invalid: push"}`},
		{"push an array", `{"push":[{"payload":"x"}]}`, "application/json", 400, `{"error":"param is missing or the value is empty or invalid: push"}`},
		{"push empty", `{"push":{}}`, "application/json", 400, `{"error":"param is missing or the value is empty or invalid: push"}`},
		{"push null", `{"push":null}`, "application/json", 400, `{"error":"param is missing or the value is empty or invalid: push"}`},
		{"body an array", `[1,2]`, "application/json", 400, ""},
		{"empty body", ``, "application/json", 400, ""},
		{"unknown kind", `{"push":{"payload":"x","kind":"bogus"}}`, "application/json", 422, `{"kind":["is not included in the list"]}`},
		{"kind upper case", `{"push":{"payload":"x","kind":"TEXT"}}`, "application/json", 422, `{"kind":["is not included in the list"]}`},
		{"missing payload", `{"push":{"name":"x"}}`, "application/json", 422, `{"payload":["Payload is required."]}`},
		{"views out of range", `{"push":{"payload":"x","expire_after_views":500}}`, "application/json", 201, ""},
		{"days zero", `{"push":{"payload":"x","expire_after_days":0}}`, "application/json", 201, ""},
		{"days fraction", `{"push":{"payload":"x","expire_after_days":3.7}}`, "application/json", 201, ""},
		{"days huge number", `{"push":{"payload":"x","expire_after_days":1e300}}`, "application/json", 201, ""},
		{"days not a number", `{"push":{"payload":"x","expire_after_days":"a week"}}`, "application/json", 422, `{"expire_after_days":["is not a number"]}`},
		{"views a boolean", `{"push":{"payload":"x","expire_after_views":true}}`, "application/json", 422, `{"expire_after_views":["is not a number"]}`},
		{"payload a number", `{"push":{"payload":5}}`, "application/json", 201, ""},
		{"payload an object", `{"push":{"payload":{"a":1}}}`, "application/json", 422, `{"payload":["must be a string"]}`},
		{"bad url", `{"push":{"payload":"ftp://x","kind":"url"}}`, "application/json", 422, `{"payload":["must be a valid HTTP or HTTPS URL."]}`},
		{"sub-day duration", `{"push":{"payload":"x","expire_after_duration":3}}`, "application/json", 201, ""},
		{"unknown duration", `{"push":{"payload":"x","expire_after_duration":42}}`, "application/json", 201, ""},
		{"invalid UTF-8", "{\"push\":{\"payload\":\"\xff\xfe\"}}", "application/json", 400, `{"error":"The request body is not valid UTF-8."}`},
		{"too large", `{"push":{"payload":"` + strings.Repeat("a", 5000) + `"}}`, "application/json", 413, `{"error":"The request body is too large."}`},
		{"notify emails", `{"push":{"payload":"x","notify_emails_to":"a@b.c"}}`, "application/json", 422,
			`{"base":["Notify by email feature is not enabled"],"notify_emails_to":["are not available"]}`},
		{"notify emails blank", `{"push":{"payload":"x","notify_emails_to":"","notify_emails_to_locale":" "}}`, "application/json", 201, ""},
		{"files key needs sign in", `{"push":{"payload":"x","files":[]}}`, "application/json", 401,
			`{"error":"You need to sign in or sign up before continuing."}`},
		{"kind file needs sign in", `{"push":{"kind":"file"}}`, "application/json", 401,
			`{"error":"You need to sign in or sign up before continuing."}`},
	}
	before := countAll(t, h)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := []string{}
			if c.ctype != "" {
				req = append(req, "Content-Type", c.ctype)
			}
			r := h.doRaw("POST", "/api/v2/pushes", c.body, req...)
			wantStatus(t, c.name, r, c.status)
			if c.want != "" {
				wantBody(t, c.name, r, c.want)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	created := 0
	for _, c := range cases {
		if c.status == 201 {
			created++
		}
	}
	if got := countAll(t, h) - before; got != created {
		t.Errorf("%d pushes stored, want %d: a rejected request stored something", got, created)
	}
}

// TestCreateLimitsApplied: days and views outside the range are brought
// into it, a fraction is cut off, and the response reports the value
// applied; only a value that is not a number is 422 (docs/decisions.md, D3).
func TestCreateLimitsApplied(t *testing.T) {
	h := newHarness(t, nil)
	for _, c := range []struct {
		field, raw string
		want       float64
	}{
		{"expire_after_days", `120`, 90}, {"expire_after_days", `0`, 1}, {"expire_after_days", `-3`, 1},
		{"expire_after_days", `3.0`, 3}, {"expire_after_days", `3.9`, 3}, {"expire_after_days", `1e2`, 90},
		{"expire_after_days", `"1e309"`, 90}, {"expire_after_days", `" 12 "`, 12}, {"expire_after_days", `"2.5"`, 2},
		{"expire_after_views", `500`, 100}, {"expire_after_views", `0`, 1}, {"expire_after_views", `"1e2"`, 100},
		{"expire_after_views", `7.0`, 7},
	} {
		r := h.doRaw("POST", "/api/v2/pushes", `{"push":{"payload":"x","`+c.field+`":`+c.raw+`}}`, "Content-Type", "application/json")
		wantStatus(t, c.field+" "+c.raw, r, 201)
		m := r.obj(t)
		if m[c.field] != c.want {
			t.Errorf("%s %s: applied %v, want %v", c.field, c.raw, m[c.field], c.want)
		}
		remaining := map[string]string{"expire_after_days": "days_remaining", "expire_after_views": "views_remaining"}[c.field]
		if m[remaining] != c.want {
			t.Errorf("%s %s: %s %v, want %v", c.field, c.raw, remaining, m[remaining], c.want)
		}
		if p := mustPush(t, h, m["url_token"].(string)); c.field == "expire_after_days" &&
			!p.ExpiresAt().Equal(p.CreatedAt.Add(time.Duration(c.want)*push.Day)) {
			t.Errorf("%s %s: stored expiry %v after creation", c.field, c.raw, p.ExpiresAt().Sub(p.CreatedAt))
		}
	}
	for _, raw := range []string{`"seven"`, `true`, `[1]`, `{}`, `"0x10"`, `"NaN"`} {
		r := h.doRaw("POST", "/api/v2/pushes", `{"push":{"payload":"x","expire_after_days":`+raw+`}}`, "Content-Type", "application/json")
		wantStatus(t, raw, r, 422)
		wantBody(t, raw, r, `{"expire_after_days":["is not a number"]}`)
	}
	// The form body of the pwpush CLI (--days 120) is read the same way.
	r := h.doRaw("POST", "/api/v2/pushes", "push%5Bpayload%5D=x&push%5Bexpire_after_days%5D=120&push%5Bexpire_after_views%5D=3.0",
		"Content-Type", "application/x-www-form-urlencoded")
	wantStatus(t, "form", r, 201)
	if m := r.obj(t); m["expire_after_days"] != 90.0 || m["expire_after_views"] != 3.0 {
		t.Errorf("form: days %v views %v, want 90 and 3", m["expire_after_days"], m["expire_after_views"])
	}
}

// doRaw sends a raw body with exactly the given headers.
func (h *harness) doRaw(method, path, body string, hdr ...string) resp {
	h.t.Helper()
	header := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		header.Set(hdr[i], hdr[i+1])
	}
	// An answer cut short (a body refused early) still counts.
	res, err := (&client.Client{Base: h.url, HTTP: h.client}).Do(context.Background(), method, path, strings.NewReader(body), header)
	if res == nil {
		h.t.Fatal(err)
	}
	return resp{status: res.Status, header: res.Header, body: res.Body}
}

// countAll counts every push row through the sweeper-independent store API.
func countAll(t *testing.T, h *harness) int {
	t.Helper()
	var n int
	if err := h.store.DB().QueryRow(`SELECT COUNT(*) FROM pushes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateFilesAndKinds(t *testing.T) {
	h := newHarness(t, func(_ *Options, l *service.Limits) {
		l.Settings.EnableURLPushes = false
	})
	tok := h.user("owner@example.com")
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"kind": "file"}}, bearer(tok)...)
	wantStatus(t, "file push without files", r, 201)
	if m := r.obj(t); m["kind"] != "file" {
		t.Errorf("kind %v", m["kind"])
	}
	r = h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x", "files": make([]any, 11)}}, bearer(tok)...)
	wantStatus(t, "11 empty file entries are ignored", r, 201)
	files := []any{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	r = h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"files": files}}, bearer(tok)...)
	wantStatus(t, "11 files", r, 422)
	if m := r.obj(t); m["files"] == nil || !strings.Contains(r.String(), "You can only attach up to 10 files per push.") {
		t.Errorf("files message missing: %s", r.body)
	}
	r = h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "https://x.test", "kind": "url"}})
	wantStatus(t, "disabled url kind", r, 422)
	wantBody(t, "disabled url kind", r, `{"kind":["URL pushes are disabled."]}`)
}

func (r resp) String() string { return string(r.body) }

// TestOnlyHEADAsksTheRouter: finding a refused HEAD's Allow probes the
// router once per method with a copy of the request; a GET, DELETE or POST
// on the same paths (every retrieve and create) must not pay for that.
func TestOnlyHEADAsksTheRouter(t *testing.T) {
	mux := http.NewServeMux()
	served := 0
	for _, pattern := range []string{"GET /api/v2/pushes/{token}", "DELETE /api/v2/pushes/{token}", "POST /api/v2/pushes"} {
		mux.Handle(pattern, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }))
	}
	h := stripJSONSuffix(mux, mux)
	w := httptest.NewRecorder()
	for _, c := range []struct{ method, path string }{{"GET", "/api/v2/pushes/abc"}, {"DELETE", "/api/v2/pushes/abc.json"}, {"POST", "/api/v2/pushes"}} {
		r := httptest.NewRequest(c.method, c.path, nil)
		// The .json suffix's copies of the URL and the request, and the
		// router's own, are a few; the probes were over a hundred.
		if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n > 5 {
			t.Errorf("%s %s: %.0f allocations on the way to the handler", c.method, c.path, n)
		}
	}
	if served == 0 {
		t.Fatal("nothing reached the handlers")
	}
	head := httptest.NewRecorder()
	h.ServeHTTP(head, httptest.NewRequest("HEAD", "/api/v2/pushes/abc", nil))
	if head.Code != http.StatusMethodNotAllowed || head.Header().Get("Allow") != "GET, DELETE" {
		t.Errorf("HEAD: %d, Allow %q", head.Code, head.Header().Get("Allow"))
	}
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(map[string]any{"payload": "x"})
	h.checkRoutes(t, []routeCase{
		{"GET", "/api/v2/nope", 404, ""},
		{"GET", "/api/v2/pushes", 405, "POST"},
		{"PUT", "/api/v2/pushes/" + tok, 405, "GET, DELETE"},
		{"PATCH", "/api/v2/pushes/" + tok, 405, "GET, DELETE"},
		{"POST", "/api/v2/pushes/" + tok + "/preview", 405, "GET"},
		{"HEAD", "/api/v2/pushes/" + tok, 405, "GET, DELETE"},
		{"HEAD", "/api/v2/pushes/" + tok + ".json", 405, "GET, DELETE"},
		{"HEAD", "/api/v2/pushes/" + tok + "/preview", 405, "GET"},
		{"HEAD", "/api/v2/pushes", 405, "POST"},
		{"HEAD", "/api/v2/files/sometoken/a.txt", 405, "GET"},
		{"HEAD", "/api/v2/files/sometoken", 405, "GET"},
		{"GET", "/api/v2/requests", 404, ""},
		{"GET", "/api/v2/accounts", 404, ""},
		{"POST", "/api/v2/pushes/" + tok + "/notify_emails", 404, ""},
		{"GET", "/api/v2/pushes/" + tok + ".xml", 404, ""},
		{"GET", "/api/v3/version", 404, ""},
		// A name that is only dots once .json is cut: the router would
		// redirect its "." or ".." segment, in HTML.
		{"GET", "/api/v2/pushes/...json", 404, ""},
		{"POST", "/api/v2/pushes/..json", 404, ""},
		{"GET", "/api/v2/pushes/" + tok + "/..json", 404, ""},
		{"GET", "/api/v2/pushes/.json", 404, ""},
		{"DELETE", "/api/v2/..json", 404, ""},
	})
	// HEAD never counted a view.
	m := h.do("GET", "/api/v2/pushes/"+tok+".json", nil).obj(t)
	if m["views_remaining"] != 4.0 {
		t.Errorf("views_remaining %v after HEAD and one GET, want 4", m["views_remaining"])
	}
}

// TestRepeatedFormKeysLastWins: a field sent twice in a form body takes its
// last value, as Rack reads it: Rails' check_box sends a hidden "0" and then
// "1" when ticked. Urlencoded and multipart, v2 and v1; the files of a
// multipart body are all kept.
func TestRepeatedFormKeysLastWins(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	check := func(what string, r resp, payload string, step, deletable bool) {
		t.Helper()
		wantStatus(t, what, r, 201)
		if r.status != 201 {
			return
		}
		m := r.obj(t)
		if m["retrieval_step"] != step || m["deletable_by_viewer"] != deletable {
			t.Errorf("%s: retrieval_step %v, deletable_by_viewer %v; want %v, %v", what, m["retrieval_step"], m["deletable_by_viewer"], step, deletable)
		}
		if got := h.do("GET", "/api/v2/pushes/"+m["url_token"].(string), nil).obj(t)["payload"]; got != payload {
			t.Errorf("%s: payload %v, want %q", what, got, payload)
		}
	}
	form := func(w string) string {
		return url.Values{
			w + "[payload]":             {"first", "last"},
			w + "[retrieval_step]":      {"0", "1"},
			w + "[deletable_by_viewer]": {"1", "0"},
		}.Encode()
	}
	urlencoded := []string{"Content-Type", "application/x-www-form-urlencoded"}
	check("v2 urlencoded", h.doRaw("POST", "/api/v2/pushes", form("push"), urlencoded...), "last", true, false)
	check("v1 urlencoded", h.doRaw("POST", "/p.json", form("password"), urlencoded...), "last", true, false)

	// Multipart, the fields in order around two files.
	multi := func(w string) (string, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField(w+"[payload]", "first")
		mw.WriteField(w+"[retrieval_step]", "0")
		for _, name := range []string{"a.txt", "b.txt"} {
			fw, _ := mw.CreateFormFile(w+"[files][]", name)
			fw.Write([]byte(name))
		}
		mw.WriteField(w+"[retrieval_step]", "1")
		mw.WriteField(w+"[deletable_by_viewer]", "1")
		mw.WriteField(w+"[deletable_by_viewer]", "0")
		mw.WriteField(w+"[payload]", "last")
		mw.Close()
		return mw.FormDataContentType(), buf.String()
	}
	for _, c := range []struct{ path, wrapper string }{{"/api/v2/pushes", "push"}, {"/p.json", "password"}} {
		ct, body := multi(c.wrapper)
		r := h.doRaw("POST", c.path, body, append([]string{"Content-Type", ct}, bearer(owner)...)...)
		check(c.path+" multipart", r, "last", true, false)
		if r.status != 201 {
			continue
		}
		files, _ := h.do("GET", "/api/v2/pushes/"+r.obj(t)["url_token"].(string), nil, bearer(owner)...).obj(t)["files"].([]any)
		if len(files) != 2 {
			t.Errorf("%s multipart: %d files, want 2", c.path, len(files))
		}
	}
}

// TestTextColumnsTakeNoNUL: text Hush stores as text holds no NUL character
// and is valid UTF-8 on both engines (PostgreSQL's text refuses both, which
// answered 500). A push's name with a NUL is 422 on v2 and v1, in JSON and
// form bodies; the payload, note and passphrase, which are sealed, keep
// theirs; a user agent or referrer that is not UTF-8 is audited with
// replacement characters (docs/decisions.md, D61).
func TestTextColumnsTakeNoNUL(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	const nameErr = `{"name":["must not contain a NUL character"]}`
	for _, c := range []struct{ what, path, ct, body string }{
		{"v2 JSON", "/api/v2/pushes", "application/json", `{"push":{"payload":"x","name":"a\u0000b"}}`},
		{"v2 unwrapped JSON", "/api/v2/pushes", "application/json", `{"payload":"x","name":"\u0000"}`},
		{"v2 form", "/api/v2/pushes", "application/x-www-form-urlencoded", "push%5Bpayload%5D=x&push%5Bname%5D=a%00b"},
		{"v1 JSON", "/p.json", "application/json", `{"password":{"payload":"x","name":"a\u0000b"}}`},
	} {
		r := h.doRaw("POST", c.path, c.body, append([]string{"Content-Type", c.ct}, bearer(owner)...)...)
		wantStatus(t, c.what, r, 422)
		wantBody(t, c.what, r, nameErr)
	}

	// The sealed fields keep their NUL characters.
	r := h.do("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x\x00y", "note": "n\x00o",
		"passphrase": "p\x00q", "name": "fine"}}, bearer(owner)...)
	wantStatus(t, "sealed fields with NUL", r, 201)
	tok := r.obj(t)["url_token"].(string)
	if l := h.do("GET", "/api/v2/pushes/active", nil, bearer(owner)...).list(t); len(l) != 1 || l[0]["note"] != "n\x00o" {
		t.Errorf("active list: %v, want the note n\\x00o", l)
	}
	got := h.do("GET", "/api/v2/pushes/"+tok+"?passphrase=p%00q", nil, "User-Agent", "agent \xff", "Referer", "http://example.com/\xfe")
	wantStatus(t, "retrieve with a user agent that is not UTF-8", got, 200)
	if p := got.obj(t)["payload"]; p != "x\x00y" {
		t.Errorf("payload %q, want x\\x00y", p)
	}
	logs := h.do("GET", "/api/v2/pushes/"+tok+"/audit", nil, bearer(owner)...).obj(t)["logs"].([]any)
	view := logs[len(logs)-1].(map[string]any)
	if view["kind"] != "view" || view["user_agent"] != "agent \ufffd" || view["referrer"] != "http://example.com/\ufffd" {
		t.Errorf("audited view %v, want the user agent and referrer with U+FFFD", view)
	}
}

// TestRepeatedQueryKeysLastWins: a query parameter sent twice takes its last
// value, as Rack reads a query string and as a form body is read
// (TestRepeatedFormKeysLastWins): the passphrase on v2 and v1, push_locale
// on create and preview, page and scope. A push_locale in the body still
// wins over the query's, as Rack merges them.
func TestRepeatedQueryKeysLastWins(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	for _, path := range []string{"/api/v2/pushes/%s", "/p/%s.json"} {
		tok := h.create(map[string]any{"payload": "behind a door", "passphrase": "sesame"})
		r := h.do("GET", fmt.Sprintf(path, tok)+"?passphrase=wrong&passphrase=sesame", nil)
		wantStatus(t, path, r, 200)
		if r.status == 200 && r.obj(t)["payload"] != "behind a door" {
			t.Errorf("%s: %s", path, r.body)
		}
	}

	locale := func(what string, r resp, want string) {
		t.Helper()
		wantStatus(t, what, r, 201)
		if r.status == 201 {
			if got := mustPush(t, h, r.obj(t)["url_token"].(string)).Locale; got != want {
				t.Errorf("%s: locale %q, want %q", what, got, want)
			}
		}
	}
	locale("v2 create", h.do("POST", "/api/v2/pushes?push_locale=xx&push_locale=de", map[string]any{"push": map[string]any{"payload": "x"}}), "de")
	locale("v1 create", h.do("POST", "/p.json?push_locale=xx&push_locale=de", map[string]any{"password": map[string]any{"payload": "x"}}), "de")
	locale("the body's over the query's", h.do("POST", "/api/v2/pushes?push_locale=xx&push_locale=en",
		map[string]any{"push": map[string]any{"payload": "x", "push_locale": "de"}}), "de")
	urlencoded := []string{"Content-Type", "application/x-www-form-urlencoded"}
	locale("the form's over the query's", h.doRaw("POST", "/api/v2/pushes?push_locale=xx&push_locale=en",
		"push%5Bpayload%5D=x&push_locale=fr&push_locale=de", urlencoded...), "de")

	tok := h.create(map[string]any{"payload": "x"})
	for _, path := range []string{"/api/v2/pushes/%s/preview", "/p/%s/preview.json"} {
		pv := h.do("GET", fmt.Sprintf(path, tok)+"?push_locale=en&push_locale=de", nil)
		if u, _ := pv.obj(t)["url"].(string); !strings.HasPrefix(u, h.url+"/de/p/"+tok) {
			t.Errorf("%s: %s", path, pv.body)
		}
	}

	// Page 0 is page 1, which holds the owner's push; page 2 is empty.
	h.create(map[string]any{"payload": "x"}, bearer(owner)...)
	for _, path := range []string{"/api/v2/pushes/active", "/p/active.json"} {
		if l := h.do("GET", path+"?page=2&page=0", nil, bearer(owner)...).list(t); len(l) != 1 {
			t.Errorf("%s?page=2&page=0: %d pushes, want 1", path, len(l))
		}
	}
	wantStatus(t, "page, a bad escape", h.do("GET", "/api/v2/pushes/active?page=1&page=%zz", nil, bearer(owner)...), 400)

	hk := newHookHarness(t)
	r := hk.do("GET", "/api/v2/webhooks?scope=instance&scope=account", nil, bearer(hk.user("o@example.com"))...)
	wantStatus(t, "scope", r, 200)
}
