package web

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"

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
