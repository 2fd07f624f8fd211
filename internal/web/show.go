package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"hush/internal/httpx"
	"hush/internal/push"
	"hush/internal/service"
)

// show serves GET /p/{token}: it claims a view and shows the secret. A
// passphrase-protected push first sends the visitor to the passphrase form.
func (s *Server) show(w http.ResponseWriter, r *http.Request) error {
	// HEAD must never count a view (docs/decisions.md, D15).
	if httpx.RefuseHEAD(w, r, "GET", nil) {
		return nil
	}
	if speculative(r) {
		// A browser loading the page before the person asks for it (a
		// prefetch or prerender) would spend a view. Refused, it loads the
		// page again if the person does open it (docs/decisions.md, D66).
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusServiceUnavailable)
		return nil
	}
	if linkPreviewer(r.UserAgent()) {
		// A chat or mail service fetches a link for its preview as soon as
		// it is posted; it gets the retrieval step's page (D66).
		return s.retrievalStep(w, r)
	}
	token := r.PathValue("token")
	p, err := s.svc.Lookup(r.Context(), token)
	if err != nil {
		return err
	}
	if p.HasPassphrase && !p.Expired && !p.LimitsReached(s.svc.Now()) {
		http.Redirect(w, r, langPath(r, "/p/"+token+"/passphrase"), http.StatusFound)
		return nil
	}
	var qr template.HTML
	res, err := s.svc.RetrieveWith(r.Context(), s.retrieveRequest(r, token, "", &qr))
	if err != nil {
		return err
	}
	s.showRetrieval(w, r, res, qr)
	return nil
}

// speculative reports whether r is a load the browser makes ahead of the
// person: Sec-Purpose (prefetch, prefetch;prerender), and the older Purpose,
// X-Purpose and X-Moz headers that browsers sent for the same.
func speculative(r *http.Request) bool {
	for _, h := range [...]string{"Sec-Purpose", "Purpose", "X-Purpose", "X-Moz"} {
		v := strings.ToLower(r.Header.Get(h))
		if strings.Contains(v, "prefetch") || strings.Contains(v, "prerender") || strings.Contains(v, "preview") {
			return true
		}
	}
	return false
}

// previewers are parts of the user agents with which chat, social and mail
// services fetch a posted link for its preview, lower case.
var previewers = [...]string{"slackbot", "slack-imgproxy", "twitterbot", "facebookexternalhit", "facebot",
	"discordbot", "telegrambot", "whatsapp", "linkedinbot", "skypeuripreview", "microsoftpreview",
	"mattermost-bot", "redditbot", "pinterestbot", "embedly", "iframely", "vkshare", "viber", "applebot",
	"googlebot", "bingbot"}

// linkPreviewer reports whether ua is one of the previewers'.
func linkPreviewer(ua string) bool {
	ua = strings.ToLower(ua)
	for _, p := range previewers {
		if strings.Contains(ua, p) {
			return true
		}
	}
	return false
}

// retrieveRequest is the retrieval a recipient's page makes. A QR push is
// drawn before its view is claimed (into *qr): a payload that cannot be
// drawn fails the request with no view used.
func (s *Server) retrieveRequest(r *http.Request, token, passphrase string, qr *template.HTML) service.RetrieveRequest {
	return service.RetrieveRequest{Token: token, Passphrase: passphrase, User: s.currentUser(r), Meta: s.meta(r),
		Check: func(kind push.Kind, payload string) error {
			if kind != push.KindQR {
				return nil
			}
			svg, err := qrSVG(payload, s.localizer(r).T("secret.qr_label", nil))
			if err != nil {
				return errUndrawable
			}
			*qr = svg
			return nil
		}}
}

// errUndrawable refuses a QR push whose payload cannot be drawn (created
// before such payloads were refused at creation).
var errUndrawable = &push.Error{Code: push.CodeInvalid, Message: "This QR code cannot be drawn: its text is too long for a QR code."}

// secretView is what secret.html shows.
type secretView struct {
	Token     string
	Kind      string
	Payload   string
	QR        template.HTML
	TimeLeft  string
	ViewsLeft int
	Deletable bool
	Blur      bool
	Files     []fileView
}

// fileView is one file of a push: its download link is the API's, which
// serves it for push.FileLinkTTL without counting a view.
type fileView struct {
	Name string
	Size string
	URL  string
}

// showRetrieval renders the outcome of a retrieval: the expired page, a
// redirect for a URL push, or the secret (with the QR code drawn before the
// view was claimed).
func (s *Server) showRetrieval(w http.ResponseWriter, r *http.Request, res *service.Retrieval, qr template.HTML) {
	if res.Payload == nil {
		s.expiredPage(w, r)
		return
	}
	p := res.Push
	if p.Kind == push.KindURL && r.Method == http.MethodGet {
		// The target learns nothing of where the link came from, not
		// even this site's origin.
		w.Header().Set("Referrer-Policy", "no-referrer")
		http.Redirect(w, r, *res.Payload, http.StatusSeeOther)
		return
	}
	// After the passphrase form, a URL push is shown as a link: the pages'
	// CSP (form-action 'self') stops a form's redirect to another site.
	loc := s.localizer(r)
	v := secretView{
		Token:     p.URLToken,
		Kind:      string(p.Kind),
		Payload:   *res.Payload,
		TimeLeft:  timeLeftIn(loc, p, s.svc.Now()),
		ViewsLeft: p.ViewsRemaining(),
		Deletable: p.DeletableByViewer != nil && *p.DeletableByViewer && p.ViewsRemaining() > 0,
		Blur:      s.blur[p.Kind],
	}
	for _, f := range res.Files {
		v.Files = append(v.Files, fileView{Name: f.Name, Size: sizeIn(loc, f.Size), URL: httpx.FileURL(s.origin(r), f.Token, f.Name)})
	}
	v.QR = qr
	// The switch is left out: its links would claim another view.
	s.render(w, r, "secret.html", page{TitleKey: "secret.title", Data: v, NoSwitch: true})
}

// humanSize writes a byte count for people: "0 bytes", "1 byte", "12.5 KiB".
func humanSize(n int64) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	if v < 10 {
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}
