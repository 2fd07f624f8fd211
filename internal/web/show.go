package web

import (
	"html/template"
	"net/http"

	"hush/internal/push"
	"hush/internal/service"
)

// show serves GET /p/{token}: it claims a view and shows the secret. A
// passphrase-protected push first sends the visitor to the passphrase form.
func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		// HEAD must never count a view (D15).
		w.Header().Set("Allow", "GET")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	token := r.PathValue("token")
	p, err := s.Service.Lookup(r.Context(), token)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if p.HasPassphrase && !p.Expired && !p.LimitsReached(s.Service.Now()) {
		http.Redirect(w, r, "/p/"+token+"/passphrase", http.StatusFound)
		return
	}
	res, err := s.Service.Retrieve(r.Context(), token, "", s.currentUser(r), s.meta(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.showRetrieval(w, r, res)
}

// secretView is what secret.html shows.
type secretView struct {
	Token     string
	Kind      string
	Payload   string
	QR        template.HTML
	DaysLeft  int
	ViewsLeft int
	Deletable bool
	Blur      bool
	Files     []fileView
}

// fileView is one file of a file push.
type fileView struct {
	Name string
	Size string
	URL  string
}

// showRetrieval renders the outcome of a retrieval: the expired page, a
// redirect for a URL push, or the secret.
func (s *Server) showRetrieval(w http.ResponseWriter, r *http.Request, res *service.Retrieval) {
	if res.Payload == nil {
		s.expiredPage(w, r)
		return
	}
	p := res.Push
	if p.Kind == push.KindURL {
		http.Redirect(w, r, *res.Payload, http.StatusSeeOther)
		return
	}
	v := secretView{
		Token:     p.URLToken,
		Kind:      string(p.Kind),
		Payload:   *res.Payload,
		DaysLeft:  p.DaysRemaining(s.Service.Now()),
		ViewsLeft: p.ViewsRemaining(),
		Deletable: p.DeletableByViewer != nil && *p.DeletableByViewer && p.ViewsRemaining() > 0,
		Blur:      p.Kind == push.KindText,
	}
	if p.Kind == push.KindQR {
		svg, err := qrSVG(v.Payload, "QR code of the secret")
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v.QR = svg
	}
	s.render(w, r, "secret.html", page{Title: "Your secret", Data: v})
}
