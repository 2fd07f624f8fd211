// Package httpx holds what every HTTP-facing package of Hush shares.
package httpx

import (
	"path"
	"strings"
)

// tokenPrefixes are the path prefixes followed by a secret link's token.
var tokenPrefixes = []string{"/api/v2/pushes/", "/api/v1/pushes/", "/p/", "/f/", "/r/"}

// RedactPath returns a request path as it may be logged: a url_token is a
// capability, so it is replaced by :token (under locale prefixes too), and
// so is a download link. The
// path is first put in canonical form (repeated slashes, "." and ".."
// resolved), so that a path such as //p/<token>, which the router answers
// with a redirect, is redacted like /p/<token>.
func RedactPath(p string) string {
	p = Canonical(p)
	// Locale prefixes: a shipped language's (/de/p/<token>), Password
	// Pusher's (/en/p/<token>, LegacyPage), or both at once
	// (/de/en/p/<token>, which the web redirects to its page): every one
	// is kept and what follows the last is redacted.
	locales := ""
	for {
		loc, rest, ok := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if !ok || !IsLocale(loc) {
			break
		}
		locales += "/" + loc
		p = "/" + rest
	}
	return locales + redactTokens(p)
}

// redactTokens is RedactPath of a canonical path without locale prefixes.
func redactTokens(p string) string {
	// A download link is a capability and its file name is sealed at rest.
	if strings.HasPrefix(p, "/api/v2/files/") {
		return "/api/v2/files/:token"
	}
	for _, prefix := range tokenPrefixes {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		seg, tail, slash := strings.Cut(rest, "/")
		base := strings.TrimSuffix(seg, ".json")
		if base == "active" || base == "expired" {
			return p
		}
		if slash {
			tail = "/" + tail
		}
		return prefix + ":token" + tail
	}
	return p
}

// RedactUnmatched is how the path of a request that matched no route is
// logged: its first segment only, since nothing is known of the rest.
func RedactUnmatched(p string) string {
	p = Canonical(p)
	first, rest, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	if rest == "" {
		return "/" + first
	}
	return "/" + first + "/…"
}

// Canonical cleans a URL path as the router does before matching: one
// slash between segments, "." and ".." resolved, a trailing slash kept.
func Canonical(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}
