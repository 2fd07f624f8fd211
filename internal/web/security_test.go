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
