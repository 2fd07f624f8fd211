package web

import (
	"net/http"
	"time"

	"hush/internal/httpx"
	"hush/internal/service"
)

// dashboardRow is one push in the dashboard.
type dashboardRow struct {
	Token     string
	Name      string
	Kind      string
	Created   time.Time
	ExpiredOn time.Time
	TimeLeft  string
	ViewsLeft int
	Views     int
	MaxViews  int
}

// dashboardView is what dashboard.html shows.
type dashboardView struct {
	Expired bool
	Rows    []dashboardRow
	Page    int
	Prev    int // 0 when there is no previous page
	Next    int // 0 when there is no next page
}

// dashboard serves GET /dashboard?tab=active|expired&page=N: the signed-in
// user's pushes, newest first, 50 per page.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	u := s.requireUser(w, r)
	if u == nil {
		return nil
	}
	expired := httpx.Query(r, "tab") == "expired"
	n := pageParam(r)
	list, err := s.svc.List(r.Context(), u, expired, n)
	if err != nil {
		return err
	}
	now, loc := s.svc.Now(), s.localizer(r)
	v := dashboardView{Expired: expired, Page: n, Prev: n - 1}
	if len(list) == service.PageSize && n < service.MaxPage {
		v.Next = n + 1
	}
	for _, l := range list {
		p := l.Push
		v.Rows = append(v.Rows, dashboardRow{
			Token:     p.URLToken,
			Name:      p.Name,
			Kind:      loc.T("create.kind."+string(p.Kind), nil),
			Created:   p.CreatedAt,
			ExpiredOn: p.ExpiredOn,
			TimeLeft:  timeLeftIn(loc, p, now),
			ViewsLeft: p.ViewsRemaining(),
			Views:     min(p.ViewCount, p.ExpireAfterViews), // a retrieval after the last view counts no view
			MaxViews:  p.ExpireAfterViews,
		})
	}
	s.render(w, r, "dashboard.html", page{TitleKey: "dashboard.title", User: u, Data: v})
	return nil
}
