package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"hush/internal/api"
	"hush/internal/client"
	"hush/internal/httpx"
	"hush/internal/testdb"
	"hush/internal/testenv"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestClientAgainstTheAPI drives every call of the client against the real
// API: a push with a file, its retrieval, preview, audit, lists, download
// and expiry, and an error answer.
func TestClientAgainstTheAPI(t *testing.T) {
	env := testenv.New(t, nil)
	srv := api.New(api.Options{Service: env.Service, MaxBody: 1 << 20, Version: "test"})
	mux := http.NewServeMux()
	mux.Handle("/api/", srv.Handler())
	ts := httptest.NewServer(httpx.Baseline(mux, false))
	t.Cleanup(ts.Close)
	_, token := env.User(t, "c@example.com")
	ctx := context.Background()
	owner := &client.Client{Base: ts.URL, Token: token}
	anon := &client.Client{Base: ts.URL}

	p, err := owner.CreateWithFiles(ctx, map[string]string{"payload": "msg", "expire_after_views": "2", "note": "n"},
		client.Upload{Name: "a.txt", ContentType: "text/plain", Data: []byte("file body")})
	if err != nil || p.URLToken == "" || p.Kind != "file" || p.Note != "n" {
		t.Fatalf("CreateWithFiles = %+v, %v", p, err)
	}
	got, err := anon.Retrieve(ctx, p.URLToken, "")
	if err != nil || got.Payload == nil || *got.Payload != "msg" || got.ViewsRemaining != 1 || len(got.Files) != 1 {
		t.Fatalf("Retrieve = %+v, %v", got, err)
	}
	if body, err := anon.Download(ctx, got.Files[0].URL); err != nil || string(body) != "file body" {
		t.Fatalf("Download = %q, %v", body, err)
	}
	if u, err := anon.Preview(ctx, p.URLToken); err != nil || u != p.HTMLURL {
		t.Fatalf("Preview = %q, %v; want %q", u, err, p.HTMLURL)
	}
	if log, err := owner.Audit(ctx, p.URLToken, 1); err != nil || len(log) < 3 || log[0].Kind != "creation" {
		t.Fatalf("Audit = %+v, %v", log, err)
	}
	if list, err := owner.List(ctx, false, 1); err != nil || len(list) != 1 || list[0].URLToken != p.URLToken {
		t.Fatalf("List active = %+v, %v", list, err)
	}
	pass, err := anon.Create(ctx, map[string]any{"payload": "guarded", "passphrase": "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := anon.Retrieve(ctx, pass.URLToken, "pw"); err != nil || *got.Payload != "guarded" {
		t.Fatalf("Retrieve with passphrase = %+v, %v", got, err)
	}
	if e, err := owner.Expire(ctx, p.URLToken); err != nil || !e.Expired || !e.Deleted {
		t.Fatalf("Expire = %+v, %v", e, err)
	}
	if list, err := owner.List(ctx, true, 1); err != nil || len(list) != 1 {
		t.Fatalf("List expired = %+v, %v", list, err)
	}
	_, err = anon.Audit(ctx, p.URLToken, 1)
	var refused *client.Error
	if !errors.As(err, &refused) || refused.Status != http.StatusUnauthorized || refused.Message() == "" {
		t.Fatalf("Audit without a token: %v, want a 401 *client.Error with a message", err)
	}
}
