package api

import (
	"net/http"
	"time"

	"hush/internal/push"
)

// pushJSON is the 15 keys of Password Pusher's push object plus kind, in
// its order (docs/decisions.md, D11).
type pushJSON struct {
	ExpireAfterViews  int     `json:"expire_after_views"`
	Expired           bool    `json:"expired"`
	URLToken          string  `json:"url_token"`
	DeletableByViewer *bool   `json:"deletable_by_viewer"`
	RetrievalStep     bool    `json:"retrieval_step"`
	ExpiredOn         *string `json:"expired_on"`
	Passphrase        *string `json:"passphrase"`
	CreatedAt         string  `json:"created_at"`
	UpdatedAt         string  `json:"updated_at"`
	ExpireAfterDays   int     `json:"expire_after_days"`
	DaysRemaining     int     `json:"days_remaining"`
	ViewsRemaining    int     `json:"views_remaining"`
	Deleted           bool    `json:"deleted"`
	JSONURL           string  `json:"json_url"`
	HTMLURL           string  `json:"html_url"`
	Kind              string  `json:"kind"`
}

// ownerPushJSON is the variant of create, active and expired.
type ownerPushJSON struct {
	pushJSON
	Note string `json:"note"`
	Name string `json:"name"`
}

// fileJSON is one attached file in a retrieve response.
type fileJSON struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	URL         string `json:"url"`
}

// shownPushJSON is the variant of retrieve.
type shownPushJSON struct {
	pushJSON
	Payload *string    `json:"payload"`
	Files   []fileJSON `json:"files"`
}

// timeFormat is RFC 3339 UTC with milliseconds (docs/decisions.md, D11).
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// secretURL is the html_url of a push.
func (s *Server) secretURL(r *http.Request, p *push.Push) string {
	return push.LocaleURL(s.origin(r), p.Locale, p.URLToken, p.RetrievalStep)
}

// render builds the base object. passphrase is what the caller may see: the
// one they supplied, or nil to apply the stored state (docs/decisions.md, D7).
func (s *Server) render(r *http.Request, p *push.Push, passphrase *string) pushJSON {
	now := s.svc.Now()
	o := pushJSON{
		ExpireAfterViews:  p.ExpireAfterViews,
		Expired:           p.Expired,
		URLToken:          p.URLToken,
		DeletableByViewer: p.DeletableByViewer,
		RetrievalStep:     p.RetrievalStep,
		CreatedAt:         formatTime(p.CreatedAt),
		UpdatedAt:         formatTime(p.UpdatedAt),
		ExpireAfterDays:   p.ExpireAfterDays,
		DaysRemaining:     p.DaysRemaining(now),
		ViewsRemaining:    p.ViewsRemaining(),
		Deleted:           p.Deleted,
		HTMLURL:           s.secretURL(r, p),
		Kind:              string(p.Kind),
	}
	o.JSONURL = o.HTMLURL + ".json"
	if !p.ExpiredOn.IsZero() {
		t := formatTime(p.ExpiredOn)
		o.ExpiredOn = &t
	}
	switch {
	case p.Expired:
	case passphrase != nil:
		o.Passphrase = passphrase
	case !p.HasPassphrase:
		empty := ""
		o.Passphrase = &empty
	}
	return o
}
