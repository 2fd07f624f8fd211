package web

import (
	"html/template"
	"net/http"

	"hush/internal/httpx"
	"hush/internal/push"
)

// previewView is what preview.html shows.
type previewView struct {
	URL           string
	QR            template.HTML
	Token         string
	Kind          string
	Days          int
	Views         int
	HasPassphrase bool
	Owner         bool
}

// secretURL is the link a recipient opens.
func (s *Server) secretURL(r *http.Request, p *push.Push) string {
	return httpx.SecretURL(s.origin(r), p.URLToken, p.RetrievalStep)
}

// preview serves GET /p/{token}/preview: the secret URL with a copy button
// and a QR code of it, for the push's creator only. Anyone else sees the
// expired page, which reveals nothing.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) error {
	token := r.PathValue("token")
	p, err := s.svc.Lookup(r.Context(), token)
	if err != nil {
		return err
	}
	u := s.currentUser(r)
	owner := u != nil && p.OwnedBy(u.ID)
	if p.Expired || !(owner || s.createdHere(r, token)) {
		s.expiredPage(w, r)
		return nil
	}
	v := previewView{
		URL:           s.secretURL(r, p),
		Token:         token,
		Kind:          string(p.Kind),
		Days:          p.ExpireAfterDays,
		Views:         p.ExpireAfterViews,
		HasPassphrase: p.HasPassphrase,
		Owner:         owner,
	}
	if v.QR, err = qrSVG(v.URL, "QR code of the secret link"); err != nil {
		return err
	}
	s.render(w, r, "preview.html", page{Title: "Your secret link", User: u, Data: v})
	return nil
}
