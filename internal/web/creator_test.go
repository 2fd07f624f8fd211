package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hush/internal/push"
	"hush/internal/service"
)

func createForm(kind, payload string, extra ...string) url.Values {
	f := url.Values{"kind": {kind}, "payload": {payload}, "expire_after_days": {"3"}, "expire_after_views": {"2"},
		"retrieval_step": {"on"}, "deletable_by_viewer": {"on"}}
	for i := 0; i+1 < len(extra); i += 2 {
		f.Set(extra[i], extra[i+1])
	}
	return f
}

func TestCreateAnonymousAndPreview(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	form := c.get("/")
	form.expect(t, http.StatusOK)
	form.has(t, "<title>Share a secret · Hush</title>", `<label for="payload">Secret</label>`, `data-generate="payload"`,
		`min="1" max="90"`, `href="/?kind=url"`, `href="/?kind=qr"`, `name="retrieval_step" checked`)
	// A visitor has no dashboard: no name to give the push, and the intro
	// lists what they may send.
	form.has(t, "Send a password, a link or a QR code through a link", `<a href="/help/api">API</a>`)
	form.lacks(t, `id="note"`, `value="file"`, `id="name"`)
	c.get("/?kind=url").has(t, `type="url" id="payload"`)
	c.get("/?kind=qr").has(t, `maxlength="1024"`)

	r := c.post("/", createForm("text", "hunter2"))
	if r.status != http.StatusSeeOther || !strings.HasSuffix(r.header.Get("Location"), "/preview") {
		t.Fatalf("create: %d %q\n%s", r.status, r.header.Get("Location"), r.body)
	}
	tok := strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	p, err := h.svc.Lookup(context.Background(), tok)
	if err != nil || p.ExpireAfterDays != 3 || p.ExpireAfterViews != 2 || !p.RetrievalStep || !*p.DeletableByViewer || p.UserID != 0 {
		t.Fatalf("stored push %+v, %v", p, err)
	}
	pv := c.get(r.header.Get("Location"))
	pv.expect(t, http.StatusOK)
	pv.has(t, `value="`+h.url+`/p/`+tok+`/r"`, `data-copy="secret-url"`, `<svg xmlns="http://www.w3.org/2000/svg" class="qr"`)
	pv.lacks(t, "hunter2")
	// Anyone with the link sees the same preview, as in Password Pusher
	// (its browser extension reads it): the link and its QR code, and no
	// view used (docs/decisions.md, D32).
	other := h.client().get("/p/" + tok + "/preview")
	other.expect(t, http.StatusOK)
	other.has(t, `value="`+h.url+`/p/`+tok+`/r"`, `<svg xmlns="http://www.w3.org/2000/svg" class="qr"`, "3 days or 2 views")
	other.lacks(t, "hunter2", "/audit")
	if p, _ := h.svc.Lookup(context.Background(), tok); p.ViewCount != 0 {
		t.Errorf("the previews used %d views", p.ViewCount)
	}

	// Unchecked boxes mean false, not the defaults.
	r = c.post("/", url.Values{"kind": {"text"}, "payload": {"x"}, "expire_after_days": {"1"}, "expire_after_views": {"1"}})
	tok = strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	p, _ = h.svc.Lookup(context.Background(), tok)
	if p.RetrievalStep || *p.DeletableByViewer {
		t.Errorf("unchecked boxes stored as retrieval %v, deletable %v", p.RetrievalStep, *p.DeletableByViewer)
	}
	c.get("/p/"+tok+"/preview").has(t, `value="`+h.url+`/p/`+tok+`"`)
}

func TestCreateKindsAndErrors(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	r := c.post("/", createForm("url", "https://example.org/x"))
	if r.status != http.StatusSeeOther {
		t.Fatalf("url create: %d\n%s", r.status, r.body)
	}
	r = c.post("/", createForm("qr", "qr text", "passphrase", "pp"))
	if r.status != http.StatusSeeOther {
		t.Fatalf("qr create: %d\n%s", r.status, r.body)
	}
	c.get(r.header.Get("Location")).has(t, "needs its passphrase")

	bad := c.post("/", createForm("url", "javascript:alert(1)", "expire_after_days", "seven"))
	bad.expect(t, http.StatusUnprocessableEntity)
	bad.has(t, "Enter a valid HTTP or HTTPS address.", "Enter a whole number.", `value="javascript:alert(1)"`)
	empty := c.post("/", createForm("text", "  "))
	empty.expect(t, http.StatusUnprocessableEntity)
	empty.has(t, "Payload is required.")
}

func TestCreateFollowsSettings(t *testing.T) {
	h := newHarness(t, func(_ *Options, s *push.Settings) {
		s.AllowAnonymous = false
		s.EnableURLPushes = false
		s.Text.EnableRetrievalStep = false
		s.Text.ExpireAfterDaysMax = 30
	})
	anon := h.client()
	home := anon.get("/")
	home.expect(t, http.StatusOK)
	home.has(t, "signed-in users only")
	anon.post("/", createForm("text", "x")).expect(t, http.StatusUnauthorized)

	c := h.signUp("set@example.com", "password one")
	form := c.get("/")
	form.has(t, `max="30"`, `id="note"`, `id="name"`, "Send a password, a link, a QR code or files through a link")
	form.lacks(t, `href="/?kind=url"`, `name="retrieval_step"`)
	if r := c.get("/?kind=url"); strings.Contains(r.body, `type="url" id="payload"`) {
		t.Error("a disabled kind is offered")
	}
	r := c.post("/", createForm("text", "signed", "note", "for me", "name", "db password"))
	if r.status != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", r.status, r.body)
	}
	tok := strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	p, _ := h.svc.Lookup(context.Background(), tok)
	if p.UserID == 0 || p.RetrievalStep || p.Name != "db password" {
		t.Errorf("stored %+v", p)
	}
	pv := c.get("/p/" + tok + "/preview")
	pv.has(t, `href="/p/`+tok+`/audit"`)
	// The owner sees the preview from a fresh session too.
	c2 := h.client()
	c2.post("/users/sign_in", url.Values{"email": {"set@example.com"}, "password": {"password one"}})
	c2.get("/p/"+tok+"/preview").has(t, `/p/`+tok+`"`)
}

func TestDashboardPagingAndExpire(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("dash@example.com", "password one")
	u := h.user("dash@example.com")
	var toks []string
	for i := range service.PageSize + 3 {
		toks = append(toks, h.create(u, fields{"payload": "p", "name": fmt.Sprintf("push-%02d", i)}))
		h.clock.Advance(1000)
	}
	h.create(nil, fields{"payload": "not mine", "name": "stranger"})

	d := c.get("/dashboard")
	d.expect(t, http.StatusOK)
	d.has(t, "push-52", "push-03", `href="/dashboard?page=2"`, `href="/p/`+toks[52]+`/audit"`, "Expire now")
	d.lacks(t, "push-02<", "stranger", `rel="prev"`)
	d2 := c.get("/dashboard?page=2")
	d2.has(t, "push-02", "push-00", `href="/dashboard?page=1"`)
	d2.lacks(t, "push-03<", `rel="next"`)

	ask := c.post("/p/"+toks[0]+"/expire", nil)
	ask.expect(t, http.StatusOK)
	ask.has(t, "Expire this push now?", `href="/p/`+toks[0]+`/audit"`)
	c.get("/dashboard?tab=expired").lacks(t, "push-00")
	ex := c.post("/p/"+toks[0]+"/expire", url.Values{"confirm": {"yes"}})
	if ex.status != http.StatusSeeOther || ex.header.Get("Location") != "/p/"+toks[0]+"/audit" {
		t.Errorf("owner expire: %d %q", ex.status, ex.header.Get("Location"))
	}
	e := c.get("/dashboard?tab=expired")
	e.has(t, "push-00")
	e.lacks(t, "push-01<")
	c.get("/dashboard?page=abc").expect(t, http.StatusOK)

	// An active push's row offers its link; a retrieval after the last
	// view counts no view in the row: 1 / 1, not 2 / 1.
	c.get("/dashboard").has(t, `<a href="/p/`+toks[52]+`/preview">Link</a>`)
	once := h.create(u, fields{"payload": "once", "name": "push-once", "expire_after_views": "1"})
	r := h.client()
	r.get("/p/"+once).has(t, "once")
	r.get("/p/"+once).has(t, "This secret link has expired")
	h.clock.Advance(1000)
	e = c.get("/dashboard?tab=expired")
	e.has(t, "push-once", `<td data-label="Views">1 / 1</td>`)
	e.lacks(t, "2 / 1", `/p/`+once+`/preview`)
}

func TestAuditPage(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("aud@example.com", "password one")
	u := h.user("aud@example.com")
	tok := h.create(u, fields{"payload": "p", "note": "my note", "name": "audited"})
	viewer := h.client()
	req := mustReq(t, http.MethodGet, h.url+"/p/"+tok)
	req.Header.Set("User-Agent", "<script>agent</script>")
	viewer.do(req)

	a := c.get("/p/" + tok + "/audit")
	a.expect(t, http.StatusOK)
	// Events in words, their times to the second.
	a.has(t, "Audit log: audited", "my note", "<td>Created</td>", "<td>Viewed</td>", h.clock.Now().UTC().Format("2006-01-02 15:04:05 UTC"),
		"&lt;script&gt;agent&lt;/script&gt;", `action="/p/`+tok+`/expire"`)
	a.lacks(t, "<script>agent")
	// The link, with a button that copies it.
	a.has(t, `<code id="audit-url">`+h.url+`/p/`+tok+`/r</code>`, `data-copy="audit-url"`)

	// Not the owner, not signed in, unknown push.
	other := h.signUp("other@example.com", "password one")
	other.get("/p/"+tok+"/audit").expect(t, http.StatusForbidden)
	if r := h.client().get("/p/" + tok + "/audit"); r.status != http.StatusSeeOther {
		t.Errorf("anonymous audit: %d", r.status)
	}
	c.get("/p/nope/audit").has(t, "This secret link has expired")
	// Other users cannot expire it either when not deletable.
	keep := h.create(u, fields{"payload": "p", "deletable_by_viewer": "false"})
	other.post("/p/"+keep+"/expire", nil).expect(t, http.StatusForbidden)
}

// TestCreateLargestPayload: the create form takes a text payload of the
// maximum length even when every character is percent-encoded in 12 bytes
// (outside the Basic Multilingual Plane), as a browser sends it.
func TestCreateLargestPayload(t *testing.T) {
	h := newHarness(t, nil)
	form := createForm("text", strings.Repeat("🔑", push.MaxTextPayload))
	if n := len(form.Encode()); n <= 12<<20 {
		t.Fatalf("the form is %d bytes, not the worst case", n)
	}
	r := h.client().post("/", form)
	if r.status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303: %.300s", r.status, r.body)
	}
}

// TestCreateSubDayDuration: the form offers the durations under a day
// (docs/decisions.md, D4); one chosen replaces the days, exactly, and the
// pages say minutes or hours. An operator can hide them.
func TestCreateSubDayDuration(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	form := c.get("/")
	form.has(t, `<select id="expire_after_duration" name="expire_after_duration">`, `<option value="0">after 15 minutes</option>`,
		`<option value="5">after 12 hours</option>`, `<option value="">No, after the days above</option>`)
	r := c.post("/", createForm("text", "brief", "expire_after_duration", "0"))
	if r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	tok := strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	p, err := h.svc.Lookup(context.Background(), tok)
	if err != nil || p.ExpireAfter != 15*time.Minute || p.ExpireAfterDays != 1 || !p.ExpiresAt().Equal(p.CreatedAt.Add(15*time.Minute)) {
		t.Fatalf("stored %+v, %v", p, err)
	}
	c.get("/p/"+tok+"/preview").has(t, "It expires after 15 minutes or 2 views")
	h.clock.Advance(10*time.Minute + time.Second)
	c.get("/p/"+tok).has(t, "This secret expires in 5 minutes or 1 more view")
	h.clock.Advance(5 * time.Minute)
	c.get("/p/"+tok).has(t, "This secret link has expired")

	// An empty choice keeps the days; an invalid form keeps the choice.
	r = c.post("/", createForm("text", "days", "expire_after_duration", ""))
	tok = strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	if p, _ := h.svc.Lookup(context.Background(), tok); p.ExpireAfter != 0 || p.ExpireAfterDays != 3 {
		t.Errorf("no duration chosen: %d days, %v", p.ExpireAfterDays, p.ExpireAfter)
	}
	c.post("/", createForm("text", " ", "expire_after_duration", "4")).has(t, `<option value="4" selected>after 6 hours</option>`)

	hidden := newHarness(t, func(_ *Options, s *push.Settings) { s.SubDayDurations = false })
	hidden.client().get("/").lacks(t, "expire_after_duration")
	r = hidden.client().post("/", createForm("text", "brief", "expire_after_duration", "0"))
	tok = strings.TrimSuffix(strings.TrimPrefix(r.header.Get("Location"), "/p/"), "/preview")
	if p, _ := hidden.svc.Lookup(context.Background(), tok); p.ExpireAfter != 0 || p.ExpireAfterDays != 1 {
		t.Errorf("hidden durations: %d days, %v; want the shortest day limit", p.ExpireAfterDays, p.ExpireAfter)
	}
}

// TestCreateAfterSignOut: a signed-in account's create form sent after its
// session ended creates nothing — it would have become an anonymous push,
// without its note, recipients and receipts, that nobody can expire — and
// says why; the anonymous form still creates.
func TestCreateAfterSignOut(t *testing.T) {
	h := newHarness(t, nil)
	c := h.signUp("gone@example.com", "gone password")
	c.get("/").has(t, `name="signed_in" value="1"`)
	form := createForm("text", "typed before the session ended", "signed_in", "1", "note", "for the team")
	c.post("/users/sign_out", nil)
	r := c.post("/", form)
	if r.status != http.StatusUnauthorized {
		t.Fatalf("create after sign-out: %d (Location %q), want 401", r.status, r.header.Get("Location"))
	}
	r.has(t, "You were signed out, so nothing was created.", "typed before the session ended")
	if r := h.client().post("/", createForm("text", "anonymous")); r.status != http.StatusSeeOther {
		t.Errorf("anonymous create: %d", r.status)
	}
	if strings.Contains(h.client().get("/").body, `name="signed_in"`) {
		t.Error("the anonymous form says it is signed in")
	}
}

// TestRepeatedQueryKeysLastWins: on the pages too a query parameter sent
// twice takes its last value, as Rack reads it and as the API does: the
// create form's kind, the dashboard's tab and page, the admin search.
func TestRepeatedQueryKeysLastWins(t *testing.T) {
	h := newHarness(t, nil)
	a := h.signUp("admin@example.com", "password one")
	admin := h.promote("admin@example.com")
	h.signUp("victim@example.com", "password one")
	h.create(admin, fields{"payload": "p", "name": "kept-push"})

	a.get("/?kind=text&kind=url").has(t, `type="url" id="payload"`)
	d := a.get("/dashboard?tab=active&tab=expired")
	d.expect(t, http.StatusOK)
	d.has(t, `href="/dashboard?tab=expired" aria-current="page"`)
	a.get("/dashboard?page=2&page=1").has(t, "kept-push")
	list := a.get("/admin/users?q=nobody&q=VICT")
	list.has(t, "victim@example.com", "1 account match")
}
