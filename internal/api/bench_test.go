package api

import (
	"net/http"
	"testing"
)

// discardWriter is a ResponseWriter that keeps nothing, so that the
// benchmark measures the encoding alone.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkEncodePushJSON encodes a retrieved text push as the v2 API
// answers it (writeJSON: marshal, headers, body).
func BenchmarkEncodePushJSON(b *testing.B) {
	payload, pass, deletable := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "", true
	v := shownPushJSON{
		pushJSON: pushJSON{ExpireAfterViews: 5, URLToken: "jn4dmCUFaX7Kj97ixmW0ig", DeletableByViewer: &deletable,
			Passphrase: &pass, CreatedAt: "2026-11-22T19:07:36.038Z", UpdatedAt: "2026-11-22T19:07:36.638Z",
			ExpireAfterDays: 7, DaysRemaining: 7, ViewsRemaining: 4,
			HTMLURL: "http://localhost:5100/p/jn4dmCUFaX7Kj97ixmW0ig", JSONURL: "http://localhost:5100/p/jn4dmCUFaX7Kj97ixmW0ig.json",
			Kind: "text"},
		Payload: &payload,
		Files:   []fileJSON{},
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		writeJSON(w, http.StatusOK, v)
	}
}
