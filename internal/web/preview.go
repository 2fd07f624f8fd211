package web

import (
	"html/template"
	"net/http"

	"hush/internal/i18n"
	"hush/internal/push"
)

// previewView is what preview.html shows.
type previewView struct {
	URL           string
	QR            template.HTML
	Token         string
	Kind          string
	Lifetime      string
	Views         int
	HasPassphrase bool
	Owner         bool
	Message       string // a message to send with the link (shareMessage)
	Expiry        string // "It expires after 1 view or 7 days, whichever comes first."
}

// expirySentence says when a push expires, in loc's language.
func expirySentence(loc *i18n.Localizer, p *push.Push) string {
	return loc.N("preview.expiry", p.ExpireAfterViews, map[string]any{"Time": timeLeftIn(loc, p, p.CreatedAt)})
}

// shareMessage is a ready-made message for the sender to send with the
// link: what it is, when it expires, the click its retrieval step asks
// for, and that the passphrase comes another way (never the passphrase).
// It is written in the push's language when it has one (the recipient's
// page is in it too), else in loc's, the sender's page's.
func shareMessage(loc *i18n.Localizer, link string, p *push.Push) string {
	if l, ok := i18n.Lookup(p.Locale); ok && p.Locale != "" {
		loc = i18n.For(l.Code)
	}
	msg := loc.N("preview.share.text", p.ExpireAfterViews, map[string]any{"Link": link, "Time": timeLeftIn(loc, p, p.CreatedAt)})
	if p.RetrievalStep {
		msg += " " + loc.T("preview.share.reveal", map[string]any{"Button": loc.T("retrieval.reveal", nil)})
	}
	if p.HasPassphrase {
		msg += " " + loc.T("preview.share.passphrase", nil)
	}
	return msg
}

// secretURL is the link a recipient opens.
func (s *Server) secretURL(r *http.Request, p *push.Push) string {
	return push.LocaleURL(s.origin(r), p.Locale, p.URLToken, p.RetrievalStep)
}

// preview serves GET /p/{token}/preview: the secret link with a copy button
// and its QR code as an inline SVG, for whoever has the link, as in
// Password Pusher (its browser extension reads this page). It uses no
// view and shows nothing secret but the link its visitor already has, and
// the limits the push was given; its owner also gets the audit log's link
// (docs/decisions.md, D32). An expired or unknown link shows the expired
// page, which reveals nothing.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	p, err := s.svc.Lookup(r.Context(), token)
	if err != nil {
		return err
	}
	if p.Expired || p.LimitsReached(s.svc.Now()) {
		s.expiredPage(w, r)
		return nil
	}
	u, loc := s.currentUser(r), s.localizer(r)
	v := previewView{
		URL:           s.secretURL(r, p),
		Token:         token,
		Kind:          string(p.Kind),
		Lifetime:      timeLeftIn(loc, p, p.CreatedAt),
		Views:         p.ExpireAfterViews,
		HasPassphrase: p.HasPassphrase,
		Owner:         u != nil && p.OwnedBy(u.ID),
		Expiry:        expirySentence(loc, p),
	}
	v.Message = shareMessage(loc, v.URL, p)
	if v.QR, err = qrSVG(v.URL, loc.T("preview.qr_label", nil)); err != nil {
		return err
	}
	s.render(w, r, "preview.html", page{TitleKey: "preview.title", User: u, Data: v})
	return nil
}
