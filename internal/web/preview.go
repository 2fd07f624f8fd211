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
	}
	if v.QR, err = qrSVG(v.URL, "QR code of the secret link"); err != nil {
		return err
	}
	s.render(w, r, "preview.html", page{Title: "The secret link", User: u, Data: v})
	return nil
}
