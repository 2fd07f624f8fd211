package web

import (
	"net/http"
	"time"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// auditRow is one audit entry.
type auditRow struct {
	At        time.Time
	Kind      string
	IP        string
	UserAgent string
	Referrer  string
}

// auditView is what audit.html shows.
type auditView struct {
	Token     string
	URL       string
	Name      string
	Note      string
	Kind      string
	Created   time.Time
	Expired   bool
	ExpiredOn time.Time
	TimeLeft  string
	ViewsLeft int
	Rows      []auditRow
	Page      int
	Prev      int
	Next      int
}

// audit serves GET /p/{token}/audit?page=N: the audit log of one of the
// signed-in user's pushes, oldest first, with "Expire now" while active.
func (s *Server) audit(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	n := pageParam(r)
	p, events, err := s.svc.Audit(r.Context(), r.PathValue("token"), u, n)
	if push.ErrorCode(err) == push.CodeForbidden {
		s.renderError(w, r, http.StatusForbidden, "message.not_yours.title", "message.not_yours.text")
		return nil
	}
	if err != nil {
		return err
	}
	note, err := s.svc.Note(p)
	if err != nil {
		return err
	}
	loc := s.localizer(r)
	v := auditView{
		Token:     p.URLToken,
		URL:       s.secretURL(r, p),
		Name:      p.Name,
		Note:      note,
		Kind:      loc.T("create.kind."+string(p.Kind), nil),
		Created:   p.CreatedAt,
		Expired:   p.Expired,
		ExpiredOn: p.ExpiredOn,
		TimeLeft:  timeLeftIn(loc, p, s.svc.Now()),
		ViewsLeft: p.ViewsRemaining(),
		Page:      n,
		Prev:      n - 1,
	}
	if len(events) == service.PageSize && n < service.MaxPage {
		v.Next = n + 1
	}
	for _, e := range events {
		v.Rows = append(v.Rows, auditRow{At: e.CreatedAt, Kind: eventWords(loc, e.Kind), IP: e.IP,
			UserAgent: e.UserAgent, Referrer: e.Referrer})
	}
	s.render(w, r, "audit.html", page{TitleKey: "audit.title", User: u, Data: v})
	return nil
}

// eventWords says in words, in loc's language, what an audit event was:
// the catalog's audit.event.<name>, where name is Password Pusher's, which
// the API keeps (push.EventKind.String); the name itself when the catalog
// has no label for it.
func eventWords(loc *i18n.Localizer, k push.EventKind) string {
	key := "audit.event." + k.String()
	if l := loc.T(key, nil); l != key {
		return l
	}
	return k.String()
}
