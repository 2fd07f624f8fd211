package api

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hush/internal/service"
	"hush/internal/testenv"
)

// Fuzz targets: any input gives a 2xx or a 4xx with a JSON body, never a
// panic or a 500. They serve the API over a real SQLite file (the engine
// under test) and call the handler in process, so each input is fast.
// `make fuzz` runs each for FUZZTIME; scripts/fuzz-ci.sh runs them briefly.

type fuzzAPI struct {
	h      http.Handler
	legacy http.Handler // the v1 JSON paths in front of h
	token  string       // a valid API token
	pushTk string       // an existing push's url_token
}

func newFuzzAPI(tb testing.TB) *fuzzAPI {
	tb.Helper()
	env := testenv.New(tb, func(l *service.Limits) { l.MaxFileSize, l.MaxPushSize = 32<<10, 64<<10 })
	s := New(Options{Service: env.Service, MaxBody: 64 << 10, Version: "fuzz"})
	_, tok := env.User(tb, "fuzz@example.com")
	f := &fuzzAPI{h: s.Handler(), token: tok}
	f.legacy = s.Legacy(f.h)
	res := f.do(tb, "POST", &url.URL{Path: "/api/v2/pushes"}, "application/json",
		[]byte(`{"push":{"payload":"fuzz","expire_after_views":100}}`), "Authorization", "Bearer "+tok)
	var obj struct {
		URLToken string `json:"url_token"`
	}
	if res.Code != 201 || json.Unmarshal(res.Body.Bytes(), &obj) != nil {
		tb.Fatalf("seed push: %d %s", res.Code, res.Body)
	}
	f.pushTk = obj.URLToken
	return f
}

// do serves one request in process.
func (f *fuzzAPI) do(tb testing.TB, method string, u *url.URL, ctype string, body []byte, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/", bytes.NewReader(body))
	req.URL = u
	req.RequestURI = u.RequestURI()
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, req)
	return w
}

// check fails on a 5xx or a body that is not JSON.
func check(t *testing.T, what string, w *httptest.ResponseRecorder, allowed ...int) {
	t.Helper()
	if w.Code >= 500 {
		t.Fatalf("%s: %d %s", what, w.Code, w.Body)
	}
	if (w.Code == 301 || w.Code == 307 || w.Code == 308) && strings.HasPrefix(w.Header().Get("Location"), "/") {
		return // net/http's redirect of an unclean path ("..", "//") to its clean, same-origin form
	}
	if len(allowed) > 0 && !contains(allowed, w.Code) {
		t.Fatalf("%s: status %d, want one of %v: %s", what, w.Code, allowed, w.Body)
	}
	if !json.Valid(w.Body.Bytes()) {
		t.Fatalf("%s: %d, body not JSON: %q", what, w.Code, w.Body)
	}
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func FuzzCreateJSON(f *testing.F) {
	for _, s := range []string{
		`{"push":{"payload":"x"}}`,
		`{"push":{"payload":"x","expire_after_days":"3","expire_after_views":2,"passphrase":"p","retrieval_step":true,"deletable_by_viewer":false,"name":"n","note":"o","kind":"text"}}`,
		`{"push":{"payload":"https://example.com","kind":"url"}}`,
		`{"push":{"payload":"q","kind":"qr","expire_after_duration":7}}`,
		`{"push":{"files":[{"filename":"a.txt","content_type":"text/plain","content_base64":"aGVsbG8="}]}}`,
		`{"push":{"payload":"x","expire_after_views":1e309}}`,
		`{"push":{"payload":"x","payload":"y"}}`,
		`{"push":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}`,
		`{"push":{"payload":"\u0000\ud800"}}`,
		`{"push":null}`, `[]`, `nul`, ``,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, body []byte, withToken bool) {
		var hdr []string
		if withToken {
			hdr = []string{"Authorization", "Bearer " + a.token}
		}
		w := a.do(t, "POST", &url.URL{Path: "/api/v2/pushes"}, "application/json", body, hdr...)
		check(t, "create", w, 201, 400, 401, 413, 422)
	})
}

// multipartSeed builds a multipart body with the fuzz boundary.
func multipartSeed(fields map[string]string, files map[string]string) []byte {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.SetBoundary("fuzzboundary")
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	for name, content := range files {
		w, _ := mw.CreateFormFile("push[files][]", name)
		w.Write([]byte(content))
	}
	mw.Close()
	return b.Bytes()
}

func FuzzCreateMultipart(f *testing.F) {
	f.Add(multipartSeed(map[string]string{"push[payload]": "x", "push[expire_after_views]": "2"}, map[string]string{"a.txt": "hello"}))
	f.Add(multipartSeed(map[string]string{"push[kind]": "file"}, map[string]string{"../../etc/passwd": "x", "b\x00.bin": "\xff\xfe"}))
	f.Add(multipartSeed(map[string]string{"push[payload]": "y", "push[passphrase]": "p", "push[name]": "n\xc3\x28"}, nil))
	f.Add([]byte("--fuzzboundary\r\nContent-Disposition: form-data; name=\"push[files][]\"; filename=\"x\"\r\n\r\nabc"))
	f.Add([]byte("--fuzzboundary--\r\n"))
	f.Add([]byte{})
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		w := a.do(t, "POST", &url.URL{Path: "/api/v2/pushes"}, "multipart/form-data; boundary=fuzzboundary", body,
			"Authorization", "Bearer "+a.token)
		check(t, "multipart create", w, 201, 400, 413, 422)
	})
}

// FuzzCreateV1 sends bodies to the v1 create paths with their wrappers
// (password, file_push, url).
func FuzzCreateV1(f *testing.F) {
	for _, s := range []string{
		`{"password":{"payload":"x","expire_after_views":"2","deletable_by_viewer":"True"}}`,
		`{"file_push":{"payload":"m","files":[{"filename":"a","content_base64":"eA=="}]}}`,
		`{"url":{"payload":"https://example.com","retrieval_step":"False"}}`,
		`{"password":"x"}`, `{"url":null}`, `{"file_push":{}}`, `{"push":{"payload":"x"}}`, `[]`, ``,
	} {
		for prefix := uint8(0); prefix < 3; prefix++ {
			f.Add([]byte(s), prefix)
		}
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, body []byte, prefix uint8) {
		path := []string{"/p.json", "/f.json", "/r.json"}[prefix%3]
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+a.token)
		w := httptest.NewRecorder()
		a.legacy.ServeHTTP(w, req)
		check(t, "v1 create "+path, w, 201, 400, 401, 413, 422)
	})
}

func FuzzTokenAndPage(f *testing.F) {
	for _, s := range [][2]string{
		{"", "1"}, {"abc", "200"}, {"..", "0"}, {"%2f", "-1"}, {"a/b", "201"}, {"ａｃｔｉｖｅ", "0x1A"},
		{"active", ""}, {"x\x00y", "1e3"}, {"\xff", " 1"}, {"expired.json", "+1"}, {strings.Repeat("a", 300), "007"},
	} {
		f.Add(s[0], s[1])
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, token, page string) {
		q := url.Values{"page": {page}}.Encode()
		// pageParam alone: a value in 1..200 or the 400 error.
		r := httptest.NewRequest("GET", "/?"+q, nil)
		if n, err := pageParam(r); err == nil && (n < 1 || n > 200) {
			t.Fatalf("page %q parsed as %d", page, n)
		}
		for _, tk := range []string{token, a.pushTk} {
			for _, p := range []string{"/api/v2/pushes/%s", "/api/v2/pushes/%s/audit", "/api/v2/pushes/%s/preview", "/api/v2/files/%s"} {
				u := &url.URL{Path: strings.Replace(p, "%s", tk, 1), RawQuery: q}
				check(t, u.String(), a.do(t, "GET", u, "", nil, "Authorization", "Bearer "+a.token), 200, 400, 401, 403, 404, 405)
			}
		}
		for _, l := range []string{"/api/v2/pushes/active", "/api/v2/pushes/expired"} {
			check(t, l, a.do(t, "GET", &url.URL{Path: l, RawQuery: q}, "", nil, "Authorization", "Bearer "+a.token), 200, 400)
		}
	})
}

func FuzzAuthorization(f *testing.F) {
	for _, s := range []string{"", "Bearer ", "Bearer x", "Token token=abc", "Bearer  fuzz-token", "bearer\x00", strings.Repeat("Bearer ", 50), "\xff\xfe"} {
		f.Add(s, "", "")
	}
	f.Add("", "fuzz@example.com", "fuzz-token-0123456789abcdefghijklmnopqrstu")
	f.Add("Basic Zm9vOmJhcg==", "x@y", "z")
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, authz, email, userToken string) {
		var hdr []string
		if authz != "" {
			hdr = append(hdr, "Authorization", authz)
		}
		if email != "" {
			hdr = append(hdr, "X-User-Email", email)
		}
		if userToken != "" {
			hdr = append(hdr, "X-User-Token", userToken)
		}
		w := a.do(t, "GET", &url.URL{Path: "/api/v2/pushes/active"}, "", nil, hdr...)
		check(t, "active", w, 200, 401)
		// Only the real token opens the list.
		if w.Code == 200 && !strings.Contains(authz+" "+userToken, a.token) {
			t.Fatalf("authorized without the token: %q %q %q", authz, email, userToken)
		}
	})
}
