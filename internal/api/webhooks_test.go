package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
	"hush/internal/testenv"
	"hush/internal/webhook"
	"hush/internal/webhook/webhooktest"
)

// newHookHarness is newHarness for a service that delivers webhooks to
// loopback receivers.
func newHookHarness(t *testing.T) *harness {
	t.Helper()
	return newHookHarnessLimits(t, nil)
}

// newHookHarnessLimits is newHookHarness with configure applied to the
// service's limits.
func newHookHarnessLimits(t *testing.T, configure func(*service.Limits)) *harness {
	t.Helper()
	opts := Options{MaxBody: 2 << 20, Version: "9.8.7", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.9.9.9/32")}}
	env := testenv.NewWithDeps(t, configure, func(d *service.Deps) {
		d.Webhooks, d.WebhookAllowPrivate = webhook.New(webhook.Options{AllowPrivate: true}), true
	})
	opts.Service = env.Service
	s := New(opts)
	mux := http.NewServeMux()
	mux.Handle("/api/", s.Handler())
	ts := httptest.NewServer(httpx.Baseline(s.Legacy(mux), false))
	t.Cleanup(ts.Close)
	return &harness{t: t, url: ts.URL, env: env, store: env.Store, clock: env.Clock, srv: s, filesDir: env.FilesDir,
		dbPath: env.DBURL, client: newCheckingClient(t)}
}

func (h *harness) deliver() {
	h.t.Helper()
	if err := h.env.Service.DeliverOutbox(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

// The whole life of an endpoint over the API: create (the secret once),
// list, show, update, deliveries, redeliver, delete; each route of a push
// (v2, v1, a file's download link) reaches the endpoint, and no body
// carries the payload, note, passphrase, file name or link.
func TestWebhooksAPI(t *testing.T) {
	h := newHookHarness(t)
	tok := h.user("o@example.com")
	r := webhooktest.Start(t, h.clock.Now)

	c := h.do("POST", "/api/v2/webhooks", map[string]any{"url": r.URL() + "/in", "events": []string{"*"}}, bearer(tok)...)
	wantStatus(t, "create", c, http.StatusCreated)
	created := c.obj(t)
	secret, _ := created["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || created["scope"] != "account" || created["enabled"] != true {
		t.Fatalf("create: %s", c.body)
	}
	r.SetSecret(secret)
	id := fmt.Sprint(created["id"])
	if strings.Contains(string(h.do("GET", "/api/v2/webhooks", nil, bearer(tok)...).body), secret) ||
		strings.Contains(string(h.do("GET", "/api/v2/webhooks/"+id, nil, bearer(tok)...).body), secret) {
		t.Error("the secret is shown again")
	}

	const payload, note, pass, fileName = "PAYLOAD-4411", "NOTE-9921", "PASS-7731", "SECRET-NAME.txt"
	push1 := h.create(map[string]any{"payload": payload, "note": note, "passphrase": pass, "name": "api push"}, bearer(tok)...)
	h.do("GET", "/api/v2/pushes/"+push1+"?passphrase=wrong", nil)
	h.do("GET", "/api/v2/pushes/"+push1+"?passphrase="+pass, nil)
	h.do("DELETE", "/api/v2/pushes/"+push1, nil, bearer(tok)...)
	v1 := h.v1create("/p.json", map[string]any{"password": map[string]any{"payload": payload, "expire_after_views": "1"}}, bearer(tok)...)
	v1tok := v1["url_token"].(string)
	h.do("GET", "/p/"+v1tok+".json", nil)
	filePush := h.upload(map[string]string{"push[payload]": payload}, []upload{{fileName, "", []byte("file body")}}, bearer(tok)...).obj(t)["url_token"].(string)
	link := h.do("GET", "/api/v2/pushes/"+filePush, nil).obj(t)["files"].([]any)[0].(map[string]any)["url"].(string)
	if d := h.get(h.pathOf(link)); d.status != 200 {
		t.Fatalf("download: %d", d.status)
	}
	h.deliver()

	got := r.Types()
	slices.Sort(got)
	want := []string{"push.created", "push.created", "push.created", "push.deleted", "push.expired",
		"push.file_downloaded", "push.passphrase_failed", "push.viewed", "push.viewed", "push.viewed"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events:\n got  %v\n want %v", got, want)
	}
	for _, d := range r.Deliveries() {
		for _, s := range []string{payload, note, pass, fileName, push1, v1tok, filePush, link} {
			if strings.Contains(string(d.Body), s) {
				t.Errorf("body %s holds %q", d.Body, s)
			}
		}
	}

	// The log, and a redelivery with the same webhook-id.
	d := h.do("GET", "/api/v2/webhooks/"+id+"/deliveries", nil, bearer(tok)...)
	wantStatus(t, "deliveries", d, 200)
	msgs := d.obj(t)["messages"].([]any)
	attempts := d.obj(t)["attempts"].([]any)
	if len(msgs) != len(want) || len(attempts) != len(want) || attempts[0].(map[string]any)["status_code"] != 204.0 {
		t.Fatalf("deliveries: %s", d.body)
	}
	m0 := msgs[0].(map[string]any)
	rd := h.do("POST", fmt.Sprintf("/api/v2/webhooks/%s/deliveries/%v/redeliver", id, m0["id"]), nil, bearer(tok)...)
	wantStatus(t, "redeliver", rd, http.StatusAccepted)
	h.deliver()
	all := r.Deliveries()
	if last := all[len(all)-1]; last.ID != m0["webhook_id"] {
		t.Errorf("redelivered %s, want %s", last.ID, m0["webhook_id"])
	}

	// Update, then turn off: no more deliveries.
	u := h.do("PATCH", "/api/v2/webhooks/"+id, map[string]any{"events": "push.viewed,push.expired", "enabled": false}, bearer(tok)...)
	wantStatus(t, "update", u, 200)
	if ev := u.obj(t)["events"].([]any); len(ev) != 2 || u.obj(t)["enabled"] != false {
		t.Errorf("update: %s", u.body)
	}
	n := len(r.Deliveries())
	h.create(map[string]any{"payload": "x"}, bearer(tok)...)
	h.deliver()
	if len(r.Deliveries()) != n {
		t.Error("an endpoint turned off was delivered to")
	}
	wantStatus(t, "delete", h.do("DELETE", "/api/v2/webhooks/"+id, nil, bearer(tok)...), http.StatusNoContent)
	wantStatus(t, "show deleted", h.do("GET", "/api/v2/webhooks/"+id, nil, bearer(tok)...), http.StatusNotFound)
}

// Bad input is a clear JSON error, never a 500; another account's endpoint
// is 404; the instance's endpoints are an admin's.
func TestWebhooksAPIRefusals(t *testing.T) {
	h := newHookHarness(t)
	tok, other := h.user("o@example.com"), h.user("x@example.com")
	c := h.do("POST", "/api/v2/webhooks", map[string]any{"url": "https://hooks.example.com/a", "events": []string{"push.viewed"}}, bearer(tok)...)
	wantStatus(t, "create", c, http.StatusCreated)
	id := fmt.Sprint(c.obj(t)["id"])
	for _, tt := range []struct {
		name, method, path string
		body               any
		hdr                []string
		status             int
		contains           string
	}{
		{"no token", "GET", "/api/v2/webhooks", nil, nil, 401, "sign in"},
		{"bad token", "GET", "/api/v2/webhooks", nil, bearer("nope"), 401, "Invalid API token"},
		{"not JSON", "POST", "/api/v2/webhooks", "{", bearer(tok), 400, "not a JSON object"},
		{"array body", "POST", "/api/v2/webhooks", "[]", bearer(tok), 400, "not a JSON object"},
		{"trailing", "POST", "/api/v2/webhooks", `{"url":"https://a.example"} x`, bearer(tok), 400, "not valid JSON"},
		{"no url", "POST", "/api/v2/webhooks", map[string]any{"events": []string{"*"}}, bearer(tok), 422, "url"},
		{"url a number", "POST", "/api/v2/webhooks", map[string]any{"url": 5, "events": []string{"*"}}, bearer(tok), 422, "must be a string"},
		{"http", "POST", "/api/v2/webhooks", map[string]any{"url": "ftp://a.example", "events": []string{"*"}}, bearer(tok), 422, "https"},
		{"unknown event", "POST", "/api/v2/webhooks", map[string]any{"url": "https://a.example", "events": []string{"push.boom"}}, bearer(tok), 422, "push.boom"},
		{"events a number", "POST", "/api/v2/webhooks", map[string]any{"url": "https://a.example", "events": 3}, bearer(tok), 422, "events"},
		{"enabled a string", "POST", "/api/v2/webhooks", map[string]any{"url": "https://a.example", "events": "*", "enabled": "yes"}, bearer(tok), 422, "enabled"},
		{"bad scope", "POST", "/api/v2/webhooks", map[string]any{"url": "https://a.example", "events": "*", "scope": "all"}, bearer(tok), 422, "scope"},
		{"instance by a user", "POST", "/api/v2/webhooks", map[string]any{"url": "https://a.example", "events": "*", "scope": "instance"}, bearer(tok), 403, "admin"},
		{"list instance by a user", "GET", "/api/v2/webhooks?scope=instance", nil, bearer(tok), 403, "admin"},
		{"list bad scope", "GET", "/api/v2/webhooks?scope=x", nil, bearer(tok), 400, "scope"},
		{"huge", "POST", "/api/v2/webhooks", `{"url":"` + strings.Repeat("a", 100<<10) + `"}`, bearer(tok), 413, ""},
		{"another's", "GET", "/api/v2/webhooks/" + id, nil, bearer(other), 404, ""},
		{"another's delete", "DELETE", "/api/v2/webhooks/" + id, nil, bearer(other), 404, ""},
		{"another's deliveries", "GET", "/api/v2/webhooks/" + id + "/deliveries", nil, bearer(other), 404, ""},
		{"bad id", "GET", "/api/v2/webhooks/abc", nil, bearer(tok), 404, ""},
		{"huge id", "GET", "/api/v2/webhooks/99999999999999999999999", nil, bearer(tok), 404, ""},
		{"url change", "PATCH", "/api/v2/webhooks/" + id, map[string]any{"url": "https://b.example"}, bearer(tok), 422, "cannot be changed"},
		{"bad page", "GET", "/api/v2/webhooks/" + id + "/deliveries?page=x", nil, bearer(tok), 400, "page"},
		{"redeliver unknown", "POST", "/api/v2/webhooks/" + id + "/deliveries/77/redeliver", nil, bearer(tok), 404, ""},
		{"wrong method", "PUT", "/api/v2/webhooks", nil, bearer(tok), 405, ""},
	} {
		r := h.do(tt.method, tt.path, tt.body, tt.hdr...)
		if r.status != tt.status || !strings.Contains(string(r.body), tt.contains) ||
			!strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%s: %d %s, want %d with %q", tt.name, r.status, r.body, tt.status, tt.contains)
		}
	}
	// An admin has the instance's endpoints.
	adminUser, adminTok := h.env.User(t, "admin@example.com")
	if _, err := h.store.Administer(context.Background(), push.AdminActor{Name: "test"}, push.AdminPromote, adminUser.ID, h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	ac := h.do("POST", "/api/v2/webhooks", map[string]any{"url": "https://hooks.example.com/all", "events": "*", "scope": "instance"}, bearer(adminTok)...)
	wantStatus(t, "instance create", ac, http.StatusCreated)
	if l := h.do("GET", "/api/v2/webhooks?scope=instance", nil, bearer(adminTok)...).list(t); len(l) != 1 || l[0]["scope"] != "instance" {
		t.Errorf("instance list: %v", l)
	}
	if l := h.do("GET", "/api/v2/webhooks", nil, bearer(adminTok)...).list(t); len(l) != 0 {
		t.Errorf("the admin's own list holds the instance's: %v", l)
	}
}

// TestWebhookURLShownAsWritten: an endpoint URL with a control or
// formatting character — in its host, escaped there, or elsewhere — is
// refused with a field error, as an email address with one is: a
// right-to-left override shows the host as another on the pages. A host
// in another script is still taken.
func TestWebhookURLShownAsWritten(t *testing.T) {
	h := newHookHarness(t)
	tok := h.user("o@example.com")
	for _, u := range []string{
		"https://hooks.example\u202e.com/in", // right-to-left override
		"https://moc.elgoog\u202d.example/",  // left-to-right override
		"https://a\u2066b.example/",          // left-to-right isolate
		"https://a\u200bb.example/",          // zero-width space
		"https://a\u2028b.example/",          // line separator
		"https://a%E2%80%AEb.example/",       // escaped in the host
		"https://hooks.example.com/\u0085in", // a C1 control in the path
		"https://hooks.example.com/in\u200f", // right-to-left mark
	} {
		r := h.do("POST", "/api/v2/webhooks", map[string]any{"url": u, "events": "*"}, bearer(tok)...)
		if r.status != http.StatusUnprocessableEntity || r.obj(t)["url"] == nil ||
			!strings.Contains(string(r.body), "must not hold a control or formatting character") {
			t.Errorf("%+q: %d %s", u, r.status, r.body)
		}
	}
	if l := h.do("GET", "/api/v2/webhooks", nil, bearer(tok)...).list(t); len(l) != 0 {
		t.Errorf("refused endpoints were added: %v", l)
	}
	r := h.do("POST", "/api/v2/webhooks", map[string]any{"url": "https://b\u00fccher.example/in", "events": "*"}, bearer(tok)...)
	wantStatus(t, "a host in another script", r, http.StatusCreated)
}

// Without webhooks the paths are unknown.
func TestWebhooksAPIOff(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.user("o@example.com")
	wantStatus(t, "off", h.do("GET", "/api/v2/webhooks", nil, bearer(tok)...), http.StatusNotFound)
}
