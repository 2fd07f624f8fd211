package api

import (
	"net/http"
	"strings"
)

// CORS lets pages of other sites call the API from a browser, as Password
// Pusher lets them create pushes (docs/decisions.md, D30). The API never
// reads cookies, so the policy is credential-less: it answers preflights
// and adds Access-Control-Allow-Origin on the v2 and v1 JSON paths (IsAPI),
// and never on the pages, which authenticate by cookie. origins is "*" alone
// (any origin) or a list of origins (scheme://host[:port], lower case); nil
// or empty turns CORS off and returns next unchanged.
func CORS(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	anyOrigin := len(origins) == 1 && origins[0] == "*"
	allowed := make(map[string]bool, len(origins))
	for _, o := range origins {
		allowed[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !IsAPI(r) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		origin := r.Header.Get("Origin")
		if !anyOrigin {
			h.Add("Vary", "Origin")
		}
		if origin != "" && (anyOrigin || allowed[strings.ToLower(origin)]) {
			if anyOrigin {
				h.Set("Access-Control-Allow-Origin", "*")
			} else {
				h.Set("Access-Control-Allow-Origin", origin)
			}
			h.Set("Access-Control-Expose-Headers", "Retry-After")
		}
		if r.Method != http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		// A preflight (or any OPTIONS): what a cross-origin call may send.
		h.Set("Allow", corsMethods)
		if h.Get("Access-Control-Allow-Origin") != "" {
			h.Set("Access-Control-Allow-Methods", corsMethods)
			h.Set("Access-Control-Allow-Headers", corsHeaders)
			h.Set("Access-Control-Max-Age", "7200")
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// What a cross-origin call may use: the API's methods and the headers its
// clients send.
const (
	corsMethods = "GET, POST, DELETE, OPTIONS"
	corsHeaders = "Authorization, Content-Type, X-User-Email, X-User-Token"
)

// IsAPI reports whether r is for the JSON API — a path under /api/ or a v1
// JSON path (IsLegacyJSON) — rather than for a page.
func IsAPI(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || IsLegacyJSON(r)
}
