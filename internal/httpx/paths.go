package httpx

import (
	"net/http"
	"strings"
)

// CleanPath serves a request whose path is not in canonical form — repeated
// slashes, "." or ".." segments, a trailing slash — as its canonical path
// (Canonical, without the trailing slash), instead of letting the router
// answer with a redirect: a client's link with a trailing slash or a double
// slash works at once, and its token is never sent back in a Location
// (docs/decisions.md, D31). A path with escaped characters is left as it
// is, and so are the roots of the path trees ("/api/", "/static/"), which
// the router would redirect back.
func CleanPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if r.URL.RawPath != "" || p == "/" {
			next.ServeHTTP(w, r)
			return
		}
		c := Canonical(p)
		if c != "/api/" && c != "/static/" {
			c = strings.TrimSuffix(c, "/")
		}
		if c == "" {
			c = "/"
		}
		if c != p {
			u := *r.URL
			u.Path = c
			r2 := *r
			r2.URL = &u
			r = &r2
		}
		next.ServeHTTP(w, r)
	})
}

// IsLocale accepts the shapes of Password Pusher's locale codes: en,
// pt-BR, zh-CN, sr-Latn …
func IsLocale(s string) bool {
	lang, region, hasRegion := strings.Cut(s, "-")
	if len(lang) != 2 || !isLetters(lang) {
		return false
	}
	return !hasRegion || (len(region) >= 2 && len(region) <= 4 && isLetters(region))
}

func isLetters(s string) bool {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

// legacyPages are the pages of a secret link that Password Pusher also
// served under /f/, /r/ and a locale prefix.
var legacyPages = map[string]bool{"": true, "r": true, "passphrase": true, "preview": true, "audit": true}

// LegacyPage maps a page path of Password Pusher's older links to Hush's:
// /f/<token>[/<page>] and /r/<token>[/<page>] (file and URL pushes, which
// Hush serves under /p/), and /<locale>/p|f|r/<token>[/<page>] (locale
// prefixes, which Hush does not use), to /p/<token>[/<page>], with <page>
// one of r, passphrase, preview, audit. route is the request's label for
// logs and metrics, the token left out.
func LegacyPage(p string) (target, route string, ok bool) {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	label := ""
	if len(segs) >= 3 && IsLocale(segs[0]) && strings.Contains("pfr", segs[1]) && len(segs[1]) == 1 {
		label, segs = "/{locale}", segs[1:]
	} else if segs[0] != "f" && segs[0] != "r" {
		return "", "", false
	}
	token, page, ok := tokenPage(segs[1:])
	if !ok {
		return "", "", false
	}
	return "/p/" + token + page, "GET " + label + "/" + segs[0] + "/{token}" + page, true
}

// tokenPage reads what follows a prefix of LegacyPage: a token, and "" or
// "/<page>" for one of legacyPages.
func tokenPage(segs []string) (token, page string, ok bool) {
	if len(segs) == 0 || len(segs) > 2 || segs[0] == "" || strings.Contains(segs[0], ".") {
		return "", "", false
	}
	if len(segs) == 2 {
		page = segs[1]
	}
	if !legacyPages[page] {
		return "", "", false
	}
	if page != "" {
		page = "/" + page
	}
	return segs[0], page, true
}
