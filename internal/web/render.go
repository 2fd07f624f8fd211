package web

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"hush/internal/httpx"
	"hush/internal/i18n"
	"hush/internal/push"
)

//go:embed templates/*.html
var templateFS embed.FS

// templates maps a page file name to its template set (layout + page).
type templates map[string]*template.Template

// pageSets are the templates of each shipped language, by its code: each
// set's t, tf and tn speak that language (langFuncs). A language's set is
// parsed at its first use and then shared by every Server (executing a
// parsed template is safe for concurrent use): parsed templates are most
// of a server's live memory, which the collector scans at every cycle, so
// a server holds only the languages it has served (docs/decisions.md, D52).
var pageSets = sync.OnceValue(func() map[string]func() templates {
	out := map[string]func() templates{}
	for _, l := range i18n.Languages() {
		out[l.Code] = sync.OnceValue(func() templates { return parseTemplates(i18n.For(l.Code)) })
	}
	return out
})

var funcs = template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"datetime": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
	"question":   questionFor,
	"bytes":      humanSize,
	"invalid":    invalidAttrs,
	"fieldError": fieldError,
	"short": func(token string) string {
		if len(token) > 6 {
			return token[:6] + "…"
		}
		return token
	},
}

// parseTemplates parses every page for the language of loc.
func parseTemplates(loc *i18n.Localizer) templates {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	t := templates{}
	fm := template.FuncMap{}
	maps.Copy(fm, funcs)
	maps.Copy(fm, langFuncs(loc))
	for _, n := range names {
		base := strings.TrimPrefix(n, "templates/")
		if base == "layout.html" {
			continue
		}
		t[base] = template.Must(template.New(base).Funcs(fm).ParseFS(templateFS, "templates/layout.html", n))
	}
	return t
}

// page is what every template receives.
type page struct {
	Title      string
	User       *push.User
	Enrolling  bool   // signed in, but must set up the second factor before anything else
	Notice     string // a notice carried over from the previous request (flash)
	SignUps    bool   // the sign-up link is shown
	SignIns    bool   // the sign-in link is shown
	Mail       bool   // the server sends email: password resets, receipts
	Confirm    bool   // new accounts confirm their address
	Error      string
	Field      string // the form field Error is about: it has the focus and is marked invalid
	Data       any
	Status     int
	RetryAfter time.Duration
	Brand      *brandView // the operator's branding (brand.go)
	Disclaimer bool       // the page shows the brand's disclaimer

	// TitleKey, when set, is the catalog key of the title, which render
	// writes into Title in the page's language.
	TitleKey string
	// NoSwitch leaves out the language switch: on a page whose address
	// cannot be opened again without a cost (the secret, which a view
	// claimed), and on one that shows something once (a new API token,
	// recovery codes, a webhook's secret), which the switch would lose
	// (docs/decisions.md, D67).
	NoSwitch bool

	Lang      i18n.Language // the page's language: <html lang dir>
	Prefix    string        // the request's language prefix ("/de"), kept by the recipient's links
	Languages []langLink    // the footer's language switch
}

// tabs is what the admin pages' tabs ("adminnav") are drawn from: the
// current tab, and the page's prefix, which their links keep.
type tabs struct{ Current, Prefix string }

// Tab is the admin pages' tabs with current marked:
// {{template "adminnav" ($.Tab "users")}}.
func (p page) Tab(current string) tabs { return tabs{Current: current, Prefix: p.Prefix} }

// render writes a page with the status p.Status (200 when 0).
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	if p.User == nil {
		u := s.sessionUser(r)
		p.Enrolling = s.mustEnrol(r, u)
		if !p.Enrolling {
			p.User = u
		}
	}
	if p.Notice == "" {
		p.Notice = s.popFlash(r)
	}
	p.SignUps = !s.disableSignups && s.svc.PasswordSignIn()
	p.SignIns = !s.disableLogins
	p.Mail, p.Confirm = s.svc.MailEnabled(), s.svc.ConfirmEmail()
	p.Brand = &s.brand
	p.Disclaimer = name == "create.html" || name == "secret.html"
	loc := s.localizer(r)
	p.Lang = loc.Lang()
	if code := pathLang(r); code != "" {
		p.Prefix = "/" + code
	}
	if !p.NoSwitch {
		p.Languages = languageSwitch(switchPath(r), p.Lang.Code)
	}
	if p.TitleKey != "" {
		p.Title = loc.T(p.TitleKey, nil)
	}
	var buf bytes.Buffer
	set, ok := s.pages[p.Lang.Code]
	var t *template.Template
	if ok {
		t, ok = set()[name]
	}
	if !ok {
		s.log.Error("missing template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log.Error("render page", "name", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if p.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((p.RetryAfter+time.Second-1)/time.Second)))
	}
	if p.Status == 0 {
		p.Status = http.StatusOK
	}
	w.WriteHeader(p.Status)
	w.Write(buf.Bytes())
}

// renderError shows a message page. A title or message that is a catalog
// key is written in the page's language; any other text is shown as it is.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	s.renderMessage(w, r, page{Title: title, Status: status, Data: msg})
}

// renderMessage shows message.html with p, whose Title and Data (the
// message) are written in the page's language where they are catalog keys.
func (s *Server) renderMessage(w http.ResponseWriter, r *http.Request, p page) {
	loc := s.localizer(r)
	p.Title = loc.T(p.Title, nil)
	if msg, ok := p.Data.(string); ok {
		p.Data = loc.T(msg, nil)
	}
	s.render(w, r, "message.html", p)
}

// expiredPage is the one page for expired and unknown links (200), so that a
// link's existence is never revealed.
func (s *Server) expiredPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, "expired.html", page{TitleKey: "expired.title"})
}

// fail maps an error to a page: the one place where codes meet statuses.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *push.Error
	if !errors.As(err, &e) {
		if e = s.svc.Fault(r.Context(), err); e == nil {
			if httpx.ClientGone(r) {
				w.WriteHeader(httpx.StatusClientClosed) // nobody to show a page to
				return
			}
			s.log.Error("web request failed", "path", httpx.RedactPath(r.URL.Path), "err", err)
			s.renderError(w, r, http.StatusInternalServerError, "message.error.title", "message.error.text")
			return
		}
	}
	switch e.Code {
	case push.CodeUnavailable:
		s.renderMessage(w, r, page{Title: "message.unavailable.title", Status: http.StatusServiceUnavailable,
			Data: "message.unavailable.text", RetryAfter: e.RetryAfter})
	case push.CodeStorageFull:
		s.renderError(w, r, http.StatusInsufficientStorage, "message.storage_full.title", "message.storage_full.text")
	case push.CodeNotFound:
		s.expiredPage(w, r)
	case push.CodeUnauthenticated:
		s.renderError(w, r, http.StatusUnauthorized, "message.sign_in.title", s.sayIn(r, e.Message))
	case push.CodeForbidden:
		s.renderError(w, r, http.StatusForbidden, "message.forbidden.title", s.sayIn(r, e.Message))
	case push.CodeTooMany:
		s.renderMessage(w, r, page{Title: "message.too_many.title", Status: http.StatusTooManyRequests,
			Data: tooManyText(s.localizer(r), e), RetryAfter: e.RetryAfter})
	case push.CodeTooLarge:
		s.renderError(w, r, http.StatusRequestEntityTooLarge, "message.too_large.title", "message.too_large.form")
	case push.CodeInvalid:
		msg := fieldMessage(err)
		if msg == "" {
			msg = e.Message
		}
		s.renderError(w, r, http.StatusUnprocessableEntity, "message.invalid.title", msg)
	default:
		s.renderError(w, r, http.StatusBadRequest, "message.bad_request.title", s.sayIn(r, e.Message))
	}
}

// tooManyText says, in loc's language, when to try again after e: in
// whole minutes, a part counting as one. Without a wait, e's own message.
func tooManyText(loc *i18n.Localizer, e *push.Error) string {
	if e.RetryAfter <= 0 {
		return e.Message
	}
	return loc.N("message.too_many.text", int((e.RetryAfter+time.Minute-1)/time.Minute), nil)
}

// notFound answers 404. Its language switch leads to each language's
// create page: what is not found here is not found under another prefix
// either, since the prefix changes only the language (docs/decisions.md,
// D67).
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	s.renderError(w, switchTo(r, "/"), http.StatusNotFound, "message.not_found.title", "message.not_found.text")
	return nil
}

// redirect answers 303 See Other, the right answer to a form POST, to the
// page to (an address of this site) under the request's language prefix:
// where the address named a language, the next page speaks it too.
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, langPath(r, to), http.StatusSeeOther)
}

// invalidAttrs marks the form field name when it is field, the one an
// error is about: invalid, described by the error's message (describedBy,
// with any hint of its own), and focused when the page loads, so that a
// keyboard or screen reader user lands on what to fix.
func invalidAttrs(field, name, describedBy string) template.HTMLAttr {
	if field == "" || field != name {
		return ""
	}
	return template.HTMLAttr(`aria-invalid="true" aria-describedby="` + template.HTMLEscapeString(describedBy) + `" autofocus`)
}

// fieldError is the message of a field's errors, with the id
// (name+"-error") its field's aria-describedby names.
func fieldError(errs map[string][]string, name string) template.HTML {
	msgs := errs[name]
	if len(msgs) == 0 {
		return ""
	}
	return template.HTML(`<p class="field-error" id="` + template.HTMLEscapeString(name) + `-error">` +
		template.HTMLEscapeString(strings.Join(msgs, " ")) + `</p>`)
}

// formOrder is the order of the create form's fields: the first with an
// error gets the focus.
var formOrder = []string{"files", "payload", "expire_after_days", "expire_after_views", "expire_after_duration",
	"passphrase", "name", "note", "notify_emails_to"}

// firstInvalid is the field of errs that comes first in order, else the
// first by name ("" without errors).
func firstInvalid(errs map[string][]string, order []string) string {
	for _, f := range order {
		if len(errs[f]) > 0 {
			return f
		}
	}
	first := ""
	for f, msgs := range errs {
		if len(msgs) > 0 && (first == "" || f < first) {
			first = f
		}
	}
	return first
}
