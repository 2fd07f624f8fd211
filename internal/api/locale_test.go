package api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestPushLocale: push_locale, in the push, at the top level, in a form or
// in the query, is stored with the push and puts the links under the
// language's prefix; an unknown one is refused with a JSON error naming the
// languages there are; the prefixed json_url works.
func TestPushLocale(t *testing.T) {
	h := newHarness(t, nil)
	create := func(body any, path string, hdr ...string) resp {
		return h.do("POST", path, body, hdr...)
	}
	for name, c := range map[string]struct {
		path string
		body any
		hdr  []string
		want string
	}{
		"in the push":     {"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x", "push_locale": "de"}}, nil, "de"},
		"at the top":      {"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x"}, "push_locale": "DE"}, nil, "de"},
		"unwrapped":       {"/api/v2/pushes", map[string]any{"payload": "x", "push_locale": "de"}, nil, "de"},
		"in the query":    {"/api/v2/pushes?push_locale=de", map[string]any{"push": map[string]any{"payload": "x"}}, nil, "de"},
		"form":            {"/api/v2/pushes", "push%5Bpayload%5D=x&push_locale=de", []string{"Content-Type", "application/x-www-form-urlencoded"}, "de"},
		"none":            {"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x"}}, nil, ""},
		"blank":           {"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x", "push_locale": " "}}, nil, ""},
		"v1 at the top":   {"/p.json", map[string]any{"password": map[string]any{"payload": "x"}, "push_locale": "de"}, nil, "de"},
		"v1 in the query": {"/p.json?push_locale=en", map[string]any{"password": map[string]any{"payload": "x"}}, nil, "en"},
	} {
		t.Run(name, func(t *testing.T) {
			r := create(c.body, c.path, c.hdr...)
			wantStatus(t, name, r, http.StatusCreated)
			o := r.obj(t)
			tok := o["url_token"].(string)
			if got := mustPush(t, h, tok).Locale; got != c.want {
				t.Errorf("stored locale %q, want %q", got, c.want)
			}
			prefix := ""
			if c.want != "" {
				prefix = "/" + c.want
			}
			step := ""
			if o["retrieval_step"] == true {
				step = "/r"
			}
			if html := o["html_url"].(string); html != h.url+prefix+"/p/"+tok+step {
				t.Errorf("html_url %q", html)
			}
			jsonURL := o["json_url"].(string)
			if jsonURL != h.url+prefix+"/p/"+tok+step+".json" {
				t.Errorf("json_url %q", jsonURL)
			}
			// The json_url retrieves the push (v1), prefix and all.
			got := h.do("GET", strings.TrimPrefix(jsonURL, h.url), nil)
			wantStatus(t, "json_url", got, http.StatusOK)
			if p, _ := got.obj(t)["payload"].(string); p != "x" {
				t.Errorf("json_url payload %q", p)
			}
		})
	}

	// A retrieval step keeps the prefix, and preview gives the same link.
	r := create(map[string]any{"push": map[string]any{"payload": "x", "push_locale": "de", "retrieval_step": true}}, "/api/v2/pushes")
	wantStatus(t, "step", r, http.StatusCreated)
	o := r.obj(t)
	tok := o["url_token"].(string)
	if o["html_url"] != h.url+"/de/p/"+tok+"/r" {
		t.Errorf("html_url with a step: %v", o["html_url"])
	}
	pv := h.do("GET", "/api/v2/pushes/"+tok+"/preview", nil)
	if pv.obj(t)["url"] != o["html_url"] {
		t.Errorf("preview %s, want %v", pv.body, o["html_url"])
	}
	pv = h.do("GET", "/api/v2/pushes/"+tok+"/preview?push_locale=en", nil)
	if pv.obj(t)["url"] != h.url+"/en/p/"+tok+"/r" {
		t.Errorf("preview with push_locale=en: %s", pv.body)
	}
	pv = h.do("GET", "/p/"+tok+"/preview.json?push_locale=en", nil)
	if pv.obj(t)["url"] != h.url+"/en/p/"+tok+"/r" {
		t.Errorf("v1 preview with push_locale=en: %s", pv.body)
	}
	// As in Password Pusher, preview ignores a push_locale it cannot use.
	pv = h.do("GET", "/api/v2/pushes/"+tok+"/preview?push_locale=xx", nil)
	if pv.obj(t)["url"] != o["html_url"] {
		t.Errorf("preview with push_locale=xx: %s", pv.body)
	}

	// Unknown (Korean is no language of Hush), malformed, or not a
	// string: refused, nothing created.
	for _, v := range []any{"xx", "ko", "de-DE", "../de", strings.Repeat("d", 5000), 12, []any{"de"}, map[string]any{"a": 1}} {
		for _, path := range []string{"/api/v2/pushes", "/p.json"} {
			wrapper := "push"
			if path == "/p.json" {
				wrapper = "password"
			}
			r := create(map[string]any{wrapper: map[string]any{"payload": "x"}, "push_locale": v}, path)
			wantStatus(t, path, r, http.StatusUnprocessableEntity)
			if !strings.Contains(string(r.body), `"push_locale"`) {
				t.Errorf("%s %v: body %s", path, v, r.body)
			}
			if _, ok := v.(string); ok && !strings.Contains(string(r.body), "use one of: en, de") {
				t.Errorf("%s %v: the refusal does not name the languages: %s", path, v, r.body)
			}
		}
	}
	q := create(map[string]any{"push": map[string]any{"payload": "x"}}, "/api/v2/pushes?push_locale="+url.QueryEscape("zz"))
	wantStatus(t, "query zz", q, http.StatusUnprocessableEntity)
}
