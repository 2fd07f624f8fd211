package web

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hush/internal/mailtest"
	"hush/internal/push"
	"hush/internal/service"
	"hush/internal/store"
)

// TestUndrawableQRCostsNoView: a QR push stored before undrawable payloads
// were refused at creation answers its page with an error and keeps its
// views; a drawable one is drawn. (Creating one now is refused: 422.)
func TestUndrawableQRCostsNoView(t *testing.T) {
	h := newHarness(t, nil)
	tok := h.create(nil, fields{"payload": strings.Repeat("😀", 1000), "expire_after_views": "2", "retrieval_step": "false"})
	driver := "sqlite"
	if store.IsPostgresURL(h.dbURL) {
		driver = "pgx"
	}
	db, err := sql.Open(driver, h.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE pushes SET kind = 'qr'`); err != nil {
		t.Fatal(err)
	}
	c := h.client()
	for range 3 {
		r := c.get("/p/" + tok)
		r.expect(t, http.StatusUnprocessableEntity)
		r.has(t, "cannot be drawn")
	}
	p, err := h.svc.Lookup(context.Background(), tok)
	if err != nil || p.ViewCount != 0 || p.Expired {
		t.Fatalf("after three failed renders: views %d, expired %v, %v; want none used", p.ViewCount, p.Expired, err)
	}

	ok := h.create(nil, fields{"kind": "qr", "payload": strings.Repeat("é", push.MaxQRPayload), "retrieval_step": "false"})
	r := c.get("/p/" + ok)
	r.expect(t, http.StatusOK)
	r.has(t, `<svg`)

	qr := push.KindQR
	req := &push.CreateRequest{Kind: &qr, Payload: strings.Repeat("😀", 1000)}
	if _, err := h.svc.Create(context.Background(), service.CreateInput{Request: req}); push.ErrorCode(err) != push.CodeInvalid {
		t.Fatalf("creating an undrawable QR push: %v, want 422", err)
	}
}

// TestSmallFormsStaySmall: only the create form takes a body the size of
// the largest payload; the sign-in, sign-up and passphrase forms hold a
// few short fields and refuse more than 1 MiB.
func TestSmallFormsStaySmall(t *testing.T) {
	h := newHarness(t, nil)
	big := strings.Repeat("x", maxSmallForm)
	for _, path := range []string{"/users/sign_in", "/users/sign_up", "/p/sometoken/passphrase"} {
		h.client().post(path, url.Values{"email": {"a@example.com"}, "password": {big}, "passphrase": {big}}).
			expect(t, http.StatusRequestEntityTooLarge)
	}
}

// TestFormsRefuseInvalidUTF8: a form field that is not valid UTF-8 is
// refused, as the API refuses such a body, where it was stored and then
// answered back with replacement characters: the create form, urlencoded
// and multipart, and the small forms.
func TestFormsRefuseInvalidUTF8(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client()
	bad := "ab\xff\xfecd"
	for what, r := range map[string]resp{
		"create":           c.post("/", url.Values{"kind": {"text"}, "payload": {bad}}),
		"create, a name":   c.post("/", url.Values{"kind": {"text"}, "payload": {"x"}, "na\xffme": {"y"}}),
		"create multipart": c.postFiles(map[string]string{"kind": "text", "payload": "x", "note": bad}),
		"sign-in":          c.post("/users/sign_in", url.Values{"email": {bad + "@example.com"}, "password": {"pw"}}),
		"passphrase":       c.post("/p/sometoken/passphrase", url.Values{"passphrase": {bad}}),
	} {
		if r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
			t.Errorf("%s: %d, Location %q; want 400", what, r.status, r.header.Get("Location"))
		}
	}
	// The same forms in valid UTF-8 go through.
	r := c.post("/", url.Values{"kind": {"text"}, "payload": {"ab\u00e9cd"}})
	if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "/p/") {
		t.Fatalf("valid create: %d, Location %q", r.status, r.header.Get("Location"))
	}
	if r := c.postFiles(map[string]string{"kind": "text", "payload": "x", "note": "ab\u00e9cd"}); r.status != http.StatusSeeOther {
		t.Errorf("valid multipart create: %d\n%s", r.status, r.body)
	}
}

// TestTextTakesNoNUL: text the pages store or look up in text columns
// holds no NUL character (PostgreSQL's text refuses it, which answered
// 500): every form refuses a field with one, as it refuses invalid UTF-8,
// and so does the admin search; a user agent or referrer that is not UTF-8
// is audited with replacement characters (docs/decisions.md, D61).
func TestTextTakesNoNUL(t *testing.T) {
	h, _, _ := newMailHarness(t)
	h.signUp("admin@example.com", "password one")
	h.promote("admin@example.com")
	admin := h.client()
	admin.post("/users/sign_in", url.Values{"email": {"admin@example.com"}, "password": {"password one"}}).expect(t, http.StatusSeeOther)
	anon := h.client()
	for what, r := range map[string]resp{
		"sign-in":           anon.post("/users/sign_in", url.Values{"email": {"a\x00@example.com"}, "password": {"xxxxxxxxx"}}),
		"sign-up":           anon.post("/users/sign_up", url.Values{"email": {"b\x00@example.com"}, "password": {"password one"}, "password_confirmation": {"password one"}}),
		"password reset":    anon.post("/users/password/new", url.Values{"email": {"admin\x00@example.com"}}),
		"create, the name":  admin.post("/", url.Values{"kind": {"text"}, "payload": {"x"}, "name": {"a\x00b"}}),
		"create, multipart": admin.postFiles(map[string]string{"kind": "text", "payload": "x", "name": "a\x00b"}),
		"language":          admin.post("/users/language", url.Values{"preferred_language": {"d\x00e"}}),
		"admin search":      admin.get("/admin/users?q=%00"),
		"admin search, %ff": admin.get("/admin/users?q=a%ff"),
	} {
		if r.status != http.StatusBadRequest || r.header.Get("Location") != "" {
			t.Errorf("%s: %d, Location %q; want 400", what, r.status, r.header.Get("Location"))
		}
	}
	admin.get("/admin/users?q=admin").has(t, "admin@example.com")
	// Asking for the confirmation link again, where sign-ups confirm their address.
	mp := mailtest.Start(t, mailtest.Options{})
	confirming := newHarnessMail(t, func(_ *Options, l *service.Limits) { l.Accounts.ConfirmEmail = true }, mailpitSender(t, mp))
	if r := confirming.client().post("/users/confirmation/new", url.Values{"email": {"a\x00@example.com"}}); r.status != http.StatusBadRequest {
		t.Errorf("confirmation again: %d, want 400", r.status)
	}
	// A webhook endpoint's address.
	hooks := newHookHarness(t)
	if r := hooks.signUp("hooks@example.com", "password one").post("/users/webhooks",
		url.Values{"url": {"https://example.com/\x00"}, "events": {"push.created"}}); r.status != http.StatusBadRequest {
		t.Errorf("webhook endpoint: %d, want 400", r.status)
	}

	owner := h.user("admin@example.com")
	tok := h.create(owner, fields{"payload": "x", "retrieval_step": "false"})
	req, _ := http.NewRequest(http.MethodGet, h.url+"/p/"+tok, nil)
	req.Header.Set("User-Agent", "agent \xff")
	req.Header.Set("Referer", "http://example.com/\xfe")
	anon.do(req).expect(t, http.StatusOK)
	_, events, err := h.svc.Audit(context.Background(), tok, owner, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v := events[len(events)-1]; v.Kind != push.EventView || v.UserAgent != "agent \ufffd" || v.Referrer != "http://example.com/\ufffd" {
		t.Errorf("audited view %+v, want the user agent and referrer with U+FFFD", v)
	}
}
