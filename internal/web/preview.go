package web

import (
	"html/template"
	"net/http"

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

// expirySentence says when a push expires, for people.
func expirySentence(p *push.Push) string {
	return "It expires after " + count(p.ExpireAfterViews, "view", "views") + " or " + lifetime(p) +
		", whichever comes first."
}

// shareMessage is a ready-made message for the sender to send with the
// link: what it is, when it expires, the click its retrieval step asks
// for, and that the passphrase comes another way (never the passphrase).
func shareMessage(link string, p *push.Push) string {
	msg := "I've shared a secret with you: " + link + " — it expires after " +
		count(p.ExpireAfterViews, "view", "views") + " or " + lifetime(p) + ", whichever comes first."
	if p.RetrievalStep {
		msg += ` Open the link, then click "Reveal the secret" to see it.`
	}
	if p.HasPassphrase {
		msg += " You will also need the passphrase, which I'll send you separately."
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
	u := s.currentUser(r)
	v := previewView{
		URL:           s.secretURL(r, p),
		Token:         token,
		Kind:          string(p.Kind),
		Lifetime:      lifetime(p),
		Views:         p.ExpireAfterViews,
		HasPassphrase: p.HasPassphrase,
		Owner:         u != nil && p.OwnedBy(u.ID),
		Expiry:        expirySentence(p),
	}
	v.Message = shareMessage(v.URL, p)
	if v.QR, err = qrSVG(v.URL, "QR code of the secret link"); err != nil {
		return err
	}
	s.render(w, r, "preview.html", page{Title: "The secret link", User: u, Data: v})
	return nil
}
