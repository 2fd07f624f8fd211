package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hush/internal/config"
)

// benchServer is the whole program's handler (edge, routes, service, a
// SQLite store in a temporary directory) without a listener, for the
// allocation figures of the hot paths: what one request costs beyond the
// network, measured with `go test -bench . -benchmem ./internal/app`.
func benchServer(b *testing.B) http.Handler {
	b.Helper()
	cfg, err := config.Load(nil, envFrom(map[string]string{
		"HUSH_DATA_DIR": b.TempDir(), "PWP__THROTTLING__MINUTE": "0", "PWP__THROTTLING__SECOND": "0",
		"PWP__PW__RETRIEVAL_STEP_DEFAULT": "false",
	}))
	if err != nil {
		b.Fatal(err)
	}
	s, err := newServer(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.close)
	return s.http.Handler
}

func benchDo(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	r.RemoteAddr = "127.0.0.1:40000"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const benchCreate = `{"push":{"payload":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","expire_after_views":100}}`

// BenchmarkCreateHandler is one API v2 create through the whole handler.
func BenchmarkCreateHandler(b *testing.B) {
	h := benchServer(b)
	b.ReportAllocs()
	for b.Loop() {
		if w := benchDo(h, http.MethodPost, "/api/v2/pushes", benchCreate); w.Code != http.StatusCreated {
			b.Fatalf("create: %d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkRetrieveHandler is one API v2 retrieve of a multi-view push
// through the whole handler.
func BenchmarkRetrieveHandler(b *testing.B) {
	h := benchServer(b)
	var tokens []string
	for range 64 {
		w := benchDo(h, http.MethodPost, "/api/v2/pushes", strings.Replace(benchCreate, "100", "1000000", 1))
		var out struct {
			URLToken string `json:"url_token"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.URLToken == "" {
			b.Fatalf("create: %d %s", w.Code, w.Body)
		}
		tokens = append(tokens, "/api/v2/pushes/"+out.URLToken+".json")
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if w := benchDo(h, http.MethodGet, tokens[i%len(tokens)], ""); w.Code != http.StatusOK {
			b.Fatalf("retrieve: %d %s", w.Code, w.Body)
		}
		i++
	}
}
