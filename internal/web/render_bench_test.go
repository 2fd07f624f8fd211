package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkRenderSecret renders the secret page for a visitor, through the
// session and language layers, in English and in German (by Accept-
// Language): the cost of choosing the language and translating the page.
func BenchmarkRenderSecret(b *testing.B) {
	// The harness wants a *testing.T; a benchmark runs it on a bare one (its
	// cleanups do not run, which leaves a temporary database behind).
	t := &testing.T{}
	h := newHarness(t, nil)
	v := secretView{Token: "AZt3EZaAMueFxcmoNLexKuQhBkFb6A", Kind: "text", Payload: "correct horse battery staple",
		TimeLeft: "6 days", ViewsLeft: 4, Deletable: true, Blur: true}
	handler := h.web.sessions.LoadAndSave(withUserCache(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.web.render(w, r, "secret.html", page{Title: "Your secret", Data: v})
	})))
	for _, lang := range []string{"en", "de"} {
		b.Run(lang, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/p/"+v.Token, nil)
			req.Header.Set("Accept-Language", lang)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
