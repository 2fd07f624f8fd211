package httpx

import "net/http"

// BaselineCSP is the Content-Security-Policy of every response that does
// not set its own: nothing may load, frame it, or be posted from it.
const BaselineCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// Baseline sets, on every response of next, the headers every answer of
// Hush carries: never cached (a secret may be in it), never indexed, never
// sniffed, never framed, the baseline CSP, and HSTS when hsts is set (the
// public address is https). The pages refine them (their CSP, cacheable
// static assets); the edge sets them once for everything.
func Baseline(next http.Handler, hsts bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for _, b := range baseline {
			h[b.name] = b.value
		}
		if hsts {
			h["Strict-Transport-Security"] = hstsValue
		}
		next.ServeHTTP(w, r)
	})
}

// Referrer-Policy is strict-origin: no page's path (a secret link's token)
// ever leaves in a Referer, while a form sent to the page's own site still
// carries its Origin. Under no-referrer a browser sends "Origin: null" with
// every form, and over plain HTTP to a name other than localhost it sends
// no Sec-Fetch-Site either, so http.CrossOriginProtection refused every
// form there (docs/decisions.md, D57). A URL push's redirect to its target
// sends no Referer at all (internal/web, showRetrieval).
//
// The baseline headers' values are shared by every response, which saves
// an allocation per header and request: net/http only reads them, and
// Header.Set and Header.Add put a new slice in place of a shared one (each
// has no spare capacity), so none is ever written. Names are canonical.
var (
	baseline = [...]struct {
		name  string
		value []string
	}{
		{"Cache-Control", []string{"no-store"}},
		{"Referrer-Policy", []string{"strict-origin"}},
		{"X-Robots-Tag", []string{"noindex, nofollow"}},
		{"X-Content-Type-Options", []string{"nosniff"}},
		{"X-Frame-Options", []string{"DENY"}},
		{"Content-Security-Policy", []string{BaselineCSP}},
	}
	hstsValue = []string{"max-age=31536000; includeSubDomains"}
)

// RefuseHEAD answers a HEAD request with 405 and reports true; any other
// method passes (false). A HEAD on a secret's path must never count a view
// (docs/decisions.md, D15); body, when set, writes the answer's body.
func RefuseHEAD(w http.ResponseWriter, r *http.Request, allow string, body func(http.ResponseWriter)) bool {
	if r.Method != http.MethodHead {
		return false
	}
	w.Header().Set("Allow", allow)
	if body != nil {
		body(w)
		return true
	}
	w.WriteHeader(http.StatusMethodNotAllowed)
	return true
}
