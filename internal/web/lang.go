package web

import (
	"context"
	"html/template"
	"net/http"
	"strings"
	"time"

	"hush/internal/i18n"
	"hush/internal/push"
)

// Languages of the pages (docs/decisions.md, D53). A page's language is,
// in order: the path's prefix (/de/p/<token>, /de/ for the create page),
// the signed-in account's choice, the browser's Accept-Language, and the
// operator's PWP__DEFAULT_LOCALE. Each shipped language has its own parsed
// set of templates, whose t and tn functions speak it, so rendering costs
// no more than a map look-up per language.

// langKey holds, in a request's context, the language its path's prefix
// named.
type langKey struct{}

// withLangPrefix serves /<code>/<rest> as /<rest> in the shipped language
// code: /de/p/<token> is the recipient's page in German, /de/ the create
// page. /de alone is the create page too: the server's edge serves every
// path without its trailing slash (docs/decisions.md, D31), so /de/
// arrives here as /de, and a redirect to /de/ would come back as /de. A
// prefix that is no shipped language is left alone (Password Pusher's old
// prefixed links, which the fallback redirects).
func withLangPrefix(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seg, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		l, ok := i18n.Lookup(seg)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		u := *r.URL
		u.Path, u.RawPath = "/"+rest, ""
		r2 := r.WithContext(context.WithValue(r.Context(), langKey{}, l.Code))
		r2.URL = &u
		next.ServeHTTP(w, r2)
	})
}

// pathLang is the language the request's path prefix named, or "".
func pathLang(r *http.Request) string {
	code, _ := r.Context().Value(langKey{}).(string)
	return code
}

// localizer is the language of the request's page.
func (s *Server) localizer(r *http.Request) *i18n.Localizer {
	if code := pathLang(r); code != "" {
		return i18n.For(code)
	}
	if u := s.sessionUser(r); u != nil && u.Language != "" {
		if l, ok := i18n.Lookup(u.Language); ok {
			return i18n.For(l.Code)
		}
	}
	if l, ok := i18n.Match(r.Header.Get("Accept-Language")); ok {
		return i18n.For(l.Code)
	}
	return i18n.For(s.settings().DefaultLocale)
}

// langPath is p under the request's language prefix, when it had one, so
// that the recipient's flow, every form and every redirect keep the
// language the address named.
func langPath(r *http.Request, p string) string {
	if code := pathLang(r); code != "" {
		return "/" + code + p
	}
	return p
}

// withLang is r in the language code, as if its address had named it; ""
// as if it had named none.
func withLang(r *http.Request, code string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), langKey{}, code))
}

// switchKey holds, in a request's context, the address (without a
// prefix) the language switch of the page that answers it leads to.
type switchKey struct{}

// switchTo is r whose page's language switch leads to p (without a
// prefix) instead of r's own address.
func switchTo(r *http.Request, p string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), switchKey{}, p))
}

// form serves a form's POST with fn. page is the address of the page the
// form is on, its wildcards named as in the route (/admin/users/{id}): a
// POST's own address takes no GET, so the language switch of every page
// that answers the form, its refusals too, leads there instead
// (docs/decisions.md, D64). A handler whose answer belongs to another page
// says so with switchTo.
func (s *Server) form(page string, fn func(http.ResponseWriter, *http.Request) error) http.Handler {
	h := s.handle(fn)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, switchTo(r, fillPath(page, r)))
	})
}

// fillPath is p with each {name} replaced by r's path value name.
func fillPath(p string, r *http.Request) string {
	var b strings.Builder
	for {
		before, rest, ok := strings.Cut(p, "{")
		b.WriteString(before)
		if !ok {
			return b.String()
		}
		name, after, _ := strings.Cut(rest, "}")
		b.WriteString(r.PathValue(name))
		p = after
	}
}

// switchPath is the address, without a prefix, that the language switch
// of r's page links: the one switchTo named, else a GET's own; a POST
// that named none (a form another site sent, an unknown address) leads to
// the create page.
func switchPath(r *http.Request) string {
	if p, ok := r.Context().Value(switchKey{}).(string); ok {
		return p
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return r.URL.Path
	}
	return "/"
}

// langLink is one entry of the footer's language switch.
type langLink struct {
	Code, Name, Dir, Href string
	Current               bool
}

// languageSwitch links the page at p (switchPath) under each shipped
// language's prefix. The request's query is left out: it may carry what
// belongs to this visit only.
func languageSwitch(p, current string) []langLink {
	langs := i18n.Languages()
	if len(langs) < 2 {
		return nil
	}
	out := make([]langLink, 0, len(langs))
	for _, l := range langs {
		out = append(out, langLink{Code: l.Code, Name: l.Name, Dir: l.Dir, Href: "/" + l.Code + p, Current: l.Code == current})
	}
	return out
}

// langFuncs are the template functions that speak loc's language.
func langFuncs(loc *i18n.Localizer) template.FuncMap {
	return template.FuncMap{
		// {{t "key"}}: a message; {{tf "key" "Name" .Value …}}: a message
		// with named placeholders given as name, value pairs. t is not
		// variadic, which spares a slice per call.
		"t":  func(key string) string { return loc.T(key, nil) },
		"tf": func(key string, args ...any) string { return loc.T(key, pairs(args)) },
		// {{tn "key" .Count …}}: a plural message for a count.
		"tn":       func(key string, n int, args ...any) string { return loc.N(key, n, pairs(args)) },
		"date":     loc.Date,
		"datetime": loc.DateTime,
		"bytes":    func(n int64) string { return sizeIn(loc, n) },
		"question": func(key string) (question, error) { return localQuestion(loc, key) },
	}
}

// pairs reads name, value, name, value … into a map; a name that is not a
// string, or a name without a value, is left out.
func pairs(args []any) map[string]any {
	if len(args) < 2 {
		return nil
	}
	m := make(map[string]any, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		if k, ok := args[i].(string); ok {
			m[k] = args[i+1]
		}
	}
	return m
}

// localQuestion is the confirmation key asks, in loc's language where the
// catalog has it (question.<key>.title, .text, .button), else in English.
func localQuestion(loc *i18n.Localizer, key string) (question, error) {
	q, err := questionFor(key)
	if err != nil {
		return q, err
	}
	k := "question." + key + "."
	if t := loc.T(k+"title", nil); t != k+"title" {
		q = question{Title: t, Text: loc.T(k+"text", nil), Button: loc.T(k+"button", nil)}
	}
	return q, nil
}

// sizeIn is humanSize in loc's language: "1 Byte", "12,5 KiB".
func sizeIn(loc *i18n.Localizer, n int64) string {
	if n < 1024 {
		return loc.N("size.bytes", int(n), nil)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	if v < 10 {
		return loc.Decimal(v, 1) + " " + unit
	}
	return loc.Decimal(v, 0) + " " + unit
}

// timeLeftIn is timeLeft in loc's language: "6 Tage", "3 Stunden".
func timeLeftIn(loc *i18n.Localizer, p *push.Push, now time.Time) string {
	n, unit := remaining(p, now)
	return loc.N("duration."+unit, n, nil)
}
