package web

import (
	"net/http"
	"time"

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
		s.renderError(w, r, http.StatusForbidden, "Not your push", "Only the creator of a push can read its audit log.")
		return nil
	}
	if err != nil {
		return err
	}
	note, err := s.svc.Note(p)
	if err != nil {
		return err
	}
	v := auditView{
		Token:     p.URLToken,
		URL:       s.secretURL(r, p),
		Name:      p.Name,
		Note:      note,
		Kind:      string(p.Kind),
		Created:   p.CreatedAt,
		Expired:   p.Expired,
		ExpiredOn: p.ExpiredOn,
		TimeLeft:  timeLeft(p, s.svc.Now()),
		ViewsLeft: p.ViewsRemaining(),
		Page:      n,
		Prev:      n - 1,
	}
	if len(events) == service.PageSize && n < service.MaxPage {
		v.Next = n + 1
	}
	for _, e := range events {
		v.Rows = append(v.Rows, auditRow{At: e.CreatedAt, Kind: eventWords(e.Kind), IP: e.IP,
			UserAgent: e.UserAgent, Referrer: e.Referrer})
	}
	s.render(w, r, "audit.html", page{Title: "Audit log", User: u, Data: v})
	return nil
}

// eventLabels say in words what each audit event was; the API keeps
// Password Pusher's names (push.EventKind.String).
var eventLabels = map[push.EventKind]string{
	push.EventCreation:          "Created",
	push.EventView:              "Viewed",
	push.EventFailedView:        "Opened after it had expired",
	push.EventExpire:            "Expired",
	push.EventFailedPassphrase:  "Wrong or missing passphrase",
	push.EventAdminView:         "Viewed by an administrator",
	push.EventOwnerView:         "Viewed by you",
	push.EventCreationEmailSend: "Link emailed to recipients",
	push.EventFileUpload:        "File attached",
	push.EventFileDownload:      "File downloaded",
}

// eventWords is the label of k, or its name when it has none.
func eventWords(k push.EventKind) string {
	if l, ok := eventLabels[k]; ok {
		return l
	}
	return k.String()
}
