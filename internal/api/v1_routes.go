package api

import (
	"net/http"
	"strings"

	"hush/internal/httpx"
	"hush/internal/push"
)

// The legacy v1 JSON API (Password Pusher's older paths) lives on paths that the HTML pages
// share: /p.json, /p/<token>.json, /p/<token>/r.json, /p/active.json … and the
// same under /f and /r. Only paths ending in ".json" belong to it; Legacy
// answers those and hands every other request to the next handler, so the
// web pages can keep /p/<token> and /p/<token>/r.

// v1Prefix is one of the three v1 path prefixes: its create wrapper, the kind
// it forces on create ("" for /p) and the create keys it permits.
type v1Prefix struct {
	path    string // p, f or r
	wrapper string
	kind    push.Kind
	keys    []string
}

var v1Keys = []string{"name", "kind", "expire_after_days", "expire_after_views", "deletable_by_viewer",
	"retrieval_step", "payload", "note", "passphrase", "files"}

var v1Prefixes = map[string]v1Prefix{
	"p": {path: "p", wrapper: "password", keys: v1Keys},
	"f": {path: "f", wrapper: "file_push", kind: push.KindFile, keys: without(v1Keys, "kind")},
	"r": {path: "r", wrapper: "url", kind: push.KindURL, keys: without(v1Keys, "kind", "deletable_by_viewer", "files")},
}

func without(keys []string, drop ...string) []string {
	var out []string
	for _, k := range keys {
		keep := true
		for _, d := range drop {
			keep = keep && k != d
		}
		if keep {
			out = append(out, k)
		}
	}
	return out
}

// IsLegacyJSON reports whether r is for the v1 JSON API: a path under /p, /f
// or /r (or /p.json, /f.json, /r.json) ending in ".json", or a
// locale-prefixed dashboard list such as /en/d/active.json, which the
// official CLI probes. Such requests never reach the HTML pages.
func IsLegacyJSON(r *http.Request) bool {
	p := r.URL.Path
	if !strings.HasSuffix(p, ".json") {
		return false
	}
	switch p {
	case "/p.json", "/f.json", "/r.json":
		return true
	}
	p = withoutLocale(p)
	if len(p) > 3 && p[0] == '/' && strings.IndexByte("pfr", p[1]) >= 0 && p[2] == '/' {
		return true
	}
	_, ok := localeList(p)
	return ok
}

// Legacy returns a handler that serves the v1 JSON paths (IsLegacyJSON) and
// passes every other request to next. Mount it around the whole mux, so
// that it sees /p/<token>.json before an HTML handler for /p/ does.
func (s *Server) Legacy(next http.Handler) http.Handler {
	v1 := s.handle(s.routeV1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsLegacyJSON(r) {
			v1.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withoutLocale strips a language prefix from a v1 path under /p, /f or
// /r: /de/p/<token>.json, the json_url of a push with push_locale
// (docs/decisions.md, D53), is /p/<token>.json.
func withoutLocale(p string) string {
	loc, rest, ok := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	if ok && httpx.IsLocale(loc) && len(rest) > 2 && strings.IndexByte("pfr", rest[0]) >= 0 && rest[1] == '/' {
		return "/" + rest
	}
	return p
}

// localeList matches /<locale>/d/<rest>.json and returns <rest>.
func localeList(p string) (string, bool) {
	parts := strings.Split(strings.TrimSuffix(p, ".json"), "/")
	if len(parts) != 4 || parts[0] != "" || !httpx.IsLocale(parts[1]) || parts[2] != "d" {
		return "", false
	}
	return parts[3], true
}

// v1Route is a resolved v1 request: the operation and its token.
type v1Route struct {
	op     string // create, retrieve, preview, audit, active, expired
	token  string
	prefix v1Prefix
}

// pattern is the route's label for logs and metrics: its shape, the token
// replaced.
func (rt v1Route) pattern() string {
	switch rt.op {
	case "create":
		return "/" + rt.prefix.path + ".json"
	case "active", "expired":
		return "/" + rt.prefix.path + "/" + rt.op + ".json"
	case "retrieve":
		return "/" + rt.prefix.path + "/{token}.json"
	}
	return "/" + rt.prefix.path + "/{token}/" + rt.op + ".json"
}

// routeV1 dispatches one v1 request (already known to be IsLegacyJSON).
func (s *Server) routeV1(w http.ResponseWriter, r *http.Request) error {
	rt, ok := s.parseV1(r.URL.Path)
	if !ok {
		writeJSON(w, http.StatusNotFound, errorBody{"Not Found"})
		return nil
	}
	allow := "GET"
	switch {
	case rt.op == "create":
		allow = "POST"
	case rt.op == "retrieve" && !strings.HasSuffix(r.URL.Path, "/r.json"):
		allow = "GET, DELETE"
	}
	// HEAD is refused too: it must never count a view (docs/decisions.md, D15).
	if httpx.RefuseHEAD(w, r, allow, methodNotAllowed) {
		return nil
	}
	if !strings.Contains(allow, r.Method) {
		w.Header().Set("Allow", allow)
		methodNotAllowed(w)
		return nil
	}
	httpx.SetRoute(r, r.Method+" "+rt.pattern())
	if rt.token != "" {
		r.SetPathValue("token", rt.token)
	}
	switch {
	case rt.op == "create":
		return s.createV1(w, r, rt.prefix)
	case rt.op == "retrieve" && r.Method == http.MethodDelete:
		return s.expire(w, r)
	case rt.op == "retrieve":
		return s.retrieve(w, r)
	case rt.op == "preview":
		return s.preview(w, r)
	case rt.op == "audit":
		return s.auditV1(w, r)
	case rt.op == "active":
		return s.listActive(w, r)
	default:
		return s.listExpired(w, r)
	}
}

// parseV1 maps a v1 path to its operation. /f and /r exist only while their
// kind is enabled, as in Password Pusher.
func (s *Server) parseV1(p string) (v1Route, bool) {
	if rest, ok := localeList(p); ok {
		return v1Route{op: rest}, rest == "active" || rest == "expired"
	}
	p = strings.TrimSuffix(withoutLocale(p), ".json")
	name, rest, nested := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	pfx, ok := v1Prefixes[name]
	if !ok || !s.prefixEnabled(name) {
		return v1Route{}, false
	}
	if !nested {
		return v1Route{op: "create", prefix: pfx}, true
	}
	rt, ok := parseV1Rest(strings.Split(rest, "/"))
	rt.prefix = pfx
	return rt, ok
}

// prefixEnabled reports whether the v1 prefix's kind is enabled.
func (s *Server) prefixEnabled(name string) bool {
	st := s.svc.Settings()
	return (name != "f" || st.EnableFilePushes) && (name != "r" || st.EnableURLPushes)
}

// parseV1Rest maps what follows a v1 prefix: active, expired, <token>,
// <token>/r, <token>/preview or <token>/audit.
func parseV1Rest(segs []string) (v1Route, bool) {
	if segs[0] == "" || len(segs) > 2 {
		return v1Route{}, false
	}
	if len(segs) == 1 {
		if segs[0] == "active" || segs[0] == "expired" {
			return v1Route{op: segs[0]}, true
		}
		return v1Route{op: "retrieve", token: segs[0]}, true
	}
	switch segs[1] {
	case "r":
		return v1Route{op: "retrieve", token: segs[0]}, true
	case "preview", "audit":
		return v1Route{op: segs[1], token: segs[0]}, true
	}
	return v1Route{}, false
}
