package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"hush/internal/client"
	"hush/internal/service"
)

func TestAuthentication(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	tok := h.create(map[string]any{"payload": "p", "expire_after_views": 50}, bearer(owner)...)
	ptok := "/api/v2/pushes/" + tok
	badHeaders := [][]string{
		{"Authorization", "Bearer wrong"},
		{"Authorization", "Bearer "},
		{"X-User-Token", "wrong"},
		{"X-User-Token", owner}, // a token without its email authenticates nobody, as in Password Pusher
		{"X-User-Email", "", "X-User-Token", owner},
		{"X-User-Email", "o@example.com", "X-User-Token", "wrong"},
		{"X-User-Email", "o@example.com", "X-User-Token", "wrong", "Authorization", "Bearer " + owner},
	}
	endpoints := [][2]string{{"POST", "/api/v2/pushes"}, {"GET", ptok}, {"GET", ptok + "/preview"}, {"GET", ptok + "/audit"},
		{"DELETE", ptok}, {"GET", "/api/v2/pushes/active"}, {"GET", "/api/v2/pushes/expired"}}
	for _, hdr := range badHeaders {
		for _, ep := range endpoints {
			var body any
			if ep[0] == "POST" {
				body = map[string]any{"push": map[string]any{"payload": "x"}}
			}
			r := h.do(ep[0], ep[1], body, hdr...)
			wantStatus(t, fmt.Sprintf("%s %s with %v", ep[0], ep[1], hdr), r, 401)
			if !strings.Contains(r.String(), `"error"`) {
				t.Errorf("401 without a JSON error: %s", r.body)
			}
		}
	}
	good := [][]string{
		{"Authorization", "Bearer " + owner},
		{"Authorization", "Token " + owner},
		{"Authorization", owner},
		{"Authorization", "Bearer    " + owner},
		{"X-User-Email", "ignored@example.com", "X-User-Token", owner},
		{"X-User-Email", "x@example.com", "X-User-Token", owner, "Authorization", "Bearer wrong"},
		{"X-User-Token", "no email, so Authorization counts", "Authorization", "Bearer " + owner},
	}
	for _, hdr := range good {
		wantStatus(t, fmt.Sprintf("active with %v", hdr), h.do("GET", "/api/v2/pushes/active", nil, hdr...), 200)
	}
	for _, path := range []string{ptok + "/audit", "/api/v2/pushes/active", "/api/v2/pushes/expired"} {
		r := h.do("GET", path, nil)
		wantStatus(t, "anonymous "+path, r, 401)
		wantBody(t, "anonymous "+path, r, `{"error":"You need to sign in or sign up before continuing."}`)
	}
	// A session cookie never authenticates the API (docs/decisions.md, D18).
	wantStatus(t, "cookie", h.do("GET", "/api/v2/pushes/active", nil, "Cookie", "session="+owner), 401)
}

func TestAnonymousDisabled(t *testing.T) {
	h := newHarness(t, func(_ *Options, l *service.Limits) { l.Settings.AllowAnonymous = false })
	owner := h.user("o@example.com")
	tok := h.create(map[string]any{"payload": "p", "deletable_by_viewer": true}, bearer(owner)...)
	for _, ep := range [][2]string{{"POST", "/api/v2/pushes"}, {"GET", "/api/v2/pushes/" + tok},
		{"GET", "/api/v2/pushes/" + tok + "/preview"}, {"DELETE", "/api/v2/pushes/" + tok}} {
		var body any
		if ep[0] == "POST" {
			body = map[string]any{"push": map[string]any{"payload": "x"}}
		}
		wantStatus(t, "anonymous "+ep[0]+" "+ep[1], h.do(ep[0], ep[1], body), 401)
	}
	wantStatus(t, "version", h.do("GET", "/api/v2/version", nil), 200)
	wantStatus(t, "with a token", h.do("GET", "/api/v2/pushes/"+tok, nil, bearer(owner)...), 200)
}

func TestPreview(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *service.Limits) { o.BaseURL = "https://secrets.example.com" })
	tok := h.create(map[string]any{"payload": "p", "expire_after_views": 1})
	r := h.do("GET", "/api/v2/pushes/"+tok+"/preview", nil)
	wantStatus(t, "preview", r, 200)
	wantBody(t, "preview", r, `{"url":"https://secrets.example.com/p/`+tok+`/r"}`)
	wantStatus(t, "preview.json", h.do("GET", "/api/v2/pushes/"+tok+"/preview.json", nil), 200)
	// No side effect: the one view is still there.
	if m := h.do("GET", "/api/v2/pushes/"+tok, nil).obj(t); m["payload"] != "p" {
		t.Errorf("preview used the view: %v", m)
	}
	wantStatus(t, "preview of an expired push", h.do("GET", "/api/v2/pushes/"+tok+"/preview", nil), 200)
	wantBody(t, "unknown", h.do("GET", "/api/v2/pushes/nope/preview", nil), `{"error":"not-found"}`)
}

func TestDelete(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	other := h.user("x@example.com")
	locked := h.create(map[string]any{"payload": "p", "deletable_by_viewer": false}, bearer(owner)...)
	open := h.create(map[string]any{"payload": "p", "deletable_by_viewer": true}, bearer(owner)...)
	link := h.create(map[string]any{"payload": "https://example.com", "kind": "url"}, bearer(owner)...)

	r := h.do("DELETE", "/api/v2/pushes/"+locked, nil)
	wantStatus(t, "anonymous, not deletable", r, 401)
	wantBody(t, "anonymous, not deletable", r, `{"error":"That push is not deletable by viewers."}`)
	r = h.do("DELETE", "/api/v2/pushes/"+locked, nil, bearer(other)...)
	wantStatus(t, "other user, not deletable", r, 403)
	wantBody(t, "other user, not deletable", r, `{"error":"That push is not deletable by viewers."}`)
	wantStatus(t, "anonymous, url push", h.do("DELETE", "/api/v2/pushes/"+link, nil), 401)
	wantStatus(t, "unknown", h.do("DELETE", "/api/v2/pushes/nope", nil), 404)

	r = h.do("DELETE", "/api/v2/pushes/"+open, nil)
	wantStatus(t, "viewer deletes", r, 200)
	m := r.obj(t)
	wantKeys(t, "delete", m, baseKeys...)
	if m["expired"] != true || m["deleted"] != true || m["passphrase"] != nil || m["expired_on"] == nil {
		t.Errorf("after delete: %v", m)
	}
	h.clock.Advance(time.Minute)
	wantStatus(t, "delete again", h.do("DELETE", "/api/v2/pushes/"+open, nil), 200)
	if got := auditKinds(t, h, open, owner); got != "creation,expire" {
		t.Errorf("audit after two deletes: %s", got)
	}
	wantStatus(t, "owner deletes", h.do("DELETE", "/api/v2/pushes/"+locked, nil, bearer(owner)...), 200)
	wantStatus(t, "owner deletes url push", h.do("DELETE", "/api/v2/pushes/"+link+".json", nil, bearer(owner)...), 200)
	if m := h.do("GET", "/api/v2/pushes/"+locked, nil).obj(t); m["payload"] != nil || m["deleted"] != true {
		t.Errorf("retrieve after delete: %v", m)
	}
}

func TestAuditEndpoint(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	other := h.user("x@example.com")
	tok := h.create(map[string]any{"payload": "p", "expire_after_views": 100}, bearer(owner)...)
	anon := h.create(map[string]any{"payload": "p"})
	path := "/api/v2/pushes/" + tok + "/audit"

	wantStatus(t, "no token", h.do("GET", path, nil), 401)
	wantStatus(t, "unknown push", h.do("GET", "/api/v2/pushes/nope/audit?page=abc", nil, bearer(owner)...), 404)
	r := h.do("GET", path+"?page=abc", nil, bearer(other)...)
	wantStatus(t, "not the owner (checked before page)", r, 403)
	wantBody(t, "not the owner", r, `{"error":"That push doesn't belong to you."}`)
	wantStatus(t, "anonymous push", h.do("GET", "/api/v2/pushes/"+anon+"/audit", nil, bearer(owner)...), 403)

	for i := 0; i < 60; i++ {
		h.clock.Advance(time.Second)
		h.do("GET", "/api/v2/pushes/"+tok, nil, "User-Agent", "agent-"+fmt.Sprint(i), "Referer", "https://ref.example/"+strings.Repeat("r", 300))
	}
	r = h.do("GET", path, nil, bearer(owner)...)
	wantStatus(t, "audit", r, 200)
	logs := r.obj(t)["logs"].([]any)
	if len(logs) != 50 {
		t.Fatalf("page 1 has %d entries, want 50", len(logs))
	}
	first := logs[0].(map[string]any)
	wantKeys(t, "audit entry", first, "ip", "user_agent", "referrer", "kind", "created_at", "updated_at")
	if first["kind"] != "creation" || first["ip"] != "127.0.0.1" || first["created_at"] != "2026-01-01T01:00:00.000Z" {
		t.Errorf("first entry %v", first)
	}
	second := logs[1].(map[string]any)
	if second["kind"] != "view" || second["user_agent"] != "agent-0" || len(second["referrer"].(string)) != 255 {
		t.Errorf("second entry %v", second)
	}
	logs2 := h.do("GET", path+"?page=2", nil, bearer(owner)...).obj(t)["logs"].([]any)
	if len(logs2) != 11 || logs2[10].(map[string]any)["user_agent"] != "agent-59" {
		t.Errorf("page 2: %d entries", len(logs2))
	}
	wantBody(t, "past the end", h.do("GET", path+"?page=3", nil, bearer(owner)...), `{"logs":[]}`)
}

func TestPageParameter(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	for _, p := range []string{"201", "abc", "0x1A", "", "01", "-01", "--1", "-", "1.5", " 1", "+-1", "++1", "1e2", "99999999999999999999", "-abc"} {
		r := h.do("GET", "/api/v2/pushes/active?page="+urlQueryEscape(p), nil, bearer(owner)...)
		wantStatus(t, "page="+p, r, 400)
		wantBody(t, "page="+p, r, `{"error":"Invalid page parameter"}`)
	}
	// A malformed escape, which Go's query parser drops with its pair.
	for _, q := range []string{"page=%zz", "page=1%", "page=%2", "x=1&page=%zz&page=2", "pa%67e=%zz", "page=1;x"} {
		for _, list := range []string{"/api/v2/pushes/active?", "/api/v2/pushes/expired.json?", "/p/active.json?"} {
			r := h.do("GET", list+q, nil, bearer(owner)...)
			wantStatus(t, list+q, r, 400)
			wantBody(t, list+q, r, `{"error":"Invalid page parameter"}`)
		}
	}
	for _, q := range []string{"x=%zz&page=2", "page%zz=%zz", "pagex=%zz"} {
		wantStatus(t, q, h.do("GET", "/api/v2/pushes/active?"+q, nil, bearer(owner)...), 200)
	}
	for _, p := range []string{"1", "200", "7", "+7"} {
		wantStatus(t, "page="+p, h.do("GET", "/api/v2/pushes/expired?page="+urlQueryEscape(p), nil, bearer(owner)...), 200)
	}
	// 0 and below are page 1, as in Password Pusher (docs/decisions.md, D6).
	h.create(map[string]any{"payload": "listed"}, bearer(owner)...)
	for _, p := range []string{"0", "-0", "-1", "-200"} {
		r := h.do("GET", "/api/v2/pushes/active?page="+p, nil, bearer(owner)...)
		wantStatus(t, "page="+p, r, 200)
		if l := r.list(t); len(l) != 1 {
			t.Errorf("page=%s: %d pushes, want page 1's one", p, len(l))
		}
	}
	// Beyond int64, which the document's checker cannot read as an integer.
	res, err := (&client.Client{Base: h.url, Token: owner}).Do(t.Context(), "GET", "/api/v2/pushes/active?page=-99999999999999999999", nil, nil)
	if err != nil || res.Status != 200 {
		t.Errorf("page=-99999999999999999999: %v %v", res, err)
	}
}

func TestLists(t *testing.T) {
	h := newHarness(t, nil)
	owner := h.user("o@example.com")
	other := h.user("x@example.com")
	var toks []string
	for i := 0; i < 53; i++ {
		h.clock.Advance(time.Second)
		toks = append(toks, h.create(map[string]any{"payload": "p", "name": fmt.Sprint("n", i), "note": fmt.Sprint("note ", i)}, bearer(owner)...))
	}
	h.create(map[string]any{"payload": "p"}, bearer(other)...)
	h.create(map[string]any{"payload": "p"})
	h.do("DELETE", "/api/v2/pushes/"+toks[0], nil, bearer(owner)...)

	r := h.do("GET", "/api/v2/pushes/active", nil, bearer(owner)...)
	wantStatus(t, "active", r, 200)
	l := r.list(t)
	if len(l) != 50 {
		t.Fatalf("active page 1: %d items", len(l))
	}
	wantKeys(t, "list item", l[0], plus("note", "name")...)
	if l[0]["url_token"] != toks[52] || l[0]["name"] != "n52" || l[0]["note"] != "note 52" {
		t.Errorf("newest first: %v", l[0])
	}
	if l2 := h.do("GET", "/api/v2/pushes/active?page=2", nil, bearer(owner)...).list(t); len(l2) != 2 || l2[1]["url_token"] != toks[1] {
		t.Errorf("active page 2: %v", l2)
	}
	wantBody(t, "past the end", h.do("GET", "/api/v2/pushes/active?page=3", nil, bearer(owner)...), `[]`)
	le := h.do("GET", "/api/v2/pushes/expired.json", nil, bearer(owner)...).list(t)
	if len(le) != 1 || le[0]["url_token"] != toks[0] || le[0]["note"] != "note 0" {
		t.Errorf("expired list: %v", le)
	}
	if l := h.do("GET", "/api/v2/pushes/active", nil, bearer(other)...).list(t); len(l) != 1 {
		t.Errorf("other user's list has %d items", len(l))
	}
	_ = http.StatusOK
}

func urlQueryEscape(s string) string {
	r := strings.NewReplacer(" ", "%20", "+", "%2B")
	return r.Replace(s)
}
