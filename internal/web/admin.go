package web

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"hush/internal/httpx"
	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// The admin pages, under /admin, for accounts with the admin role: the
// instance overview, the accounts (search, and on each its actions), and
// the admin log. Anyone else signed in gets 403 on every route, GET or
// POST; a visitor is sent to sign in. Every action asks for confirmation
// first and is logged with who did it (docs/decisions.md, D41).

// Setting is one setting in force, as the admin overview shows it: never a
// secret (those show only whether they are set).
type Setting struct {
	Name  string
	Value string
}

// requireAdmin returns the signed-in admin, or answers for anyone else and
// returns nil.
func (s *Server) requireAdmin(w http.ResponseWriter, r *http.Request) *push.User {
	u := s.requireUser(w, r)
	if u != nil && !u.Admin {
		loc := s.localizer(r)
		s.renderError(w, r, http.StatusForbidden, loc.T("admin.not_allowed", nil), loc.T("admin.only_admins", nil))
		return nil
	}
	return u
}

// adminOverviewView is what admin.html shows.
type adminOverviewView struct {
	Stats            *service.Stats
	Mail             bool // the server sends email: Outbox counts its outbox
	Outbox           service.OutboxStats
	Version          string
	Settings         []Setting
	RequireTwoFactor bool
}

// adminOverview serves GET /admin.
func (s *Server) adminOverview(w http.ResponseWriter, r *http.Request) error {
	u := s.requireAdmin(w, r)
	if u == nil {
		return nil
	}
	st, err := s.svc.Stats(r.Context())
	if err != nil {
		return err
	}
	v := adminOverviewView{Stats: st, Mail: s.svc.MailEnabled(), Version: s.version, Settings: s.inForce,
		RequireTwoFactor: s.svc.RequireTwoFactor()}
	if v.Mail {
		if v.Outbox, err = s.svc.Outbox(r.Context()); err != nil {
			return err
		}
	}
	s.render(w, r, "admin.html", page{TitleKey: "admin.title", User: u, Data: v})
	return nil
}

// pager is the paging of a list: page numbers of the neighbours, 0 for none.
type pager struct {
	Page, Prev, Next, Total int
}

func newPager(page, total int) pager {
	p := pager{Page: page, Total: total}
	if page > 1 {
		p.Prev = page - 1
	}
	if page*service.PageSize < total && page < service.MaxPage {
		p.Next = page + 1
	}
	return p
}

// adminUsersView is what admin_users.html shows.
type adminUsersView struct {
	Query string
	Rows  []adminUserRow
	pager
}

// adminUserRow is one account of the list, with the catalog key of how it
// signs in.
type adminUserRow struct {
	service.UserSummary
	SignInKey string
}

// signInKey is the catalog key of how an account signs in, from the
// summary's English words (store.UserSummary.SignsIn).
func signInKey(methods string) string {
	switch methods {
	case "password and SSO":
		return "admin.signs_in.both"
	case "SSO":
		return "admin.signs_in.sso"
	case "password":
		return "admin.signs_in.password"
	}
	return "admin.signs_in.none"
}

// maxQuery bounds the search text: no email is longer.
const maxQuery = 254

// adminUsers serves GET /admin/users?q=…&page=….
func (s *Server) adminUsers(w http.ResponseWriter, r *http.Request) error {
	u := s.requireAdmin(w, r)
	if u == nil {
		return nil
	}
	q := httpx.Query(r, "q")
	if !push.StorableText(q) {
		// Compared with a text column, which holds neither (docs/decisions.md, D61).
		return errFormUnreadable
	}
	if len(q) > maxQuery {
		q = q[:maxQuery]
	}
	n := pageParam(r)
	rows, total, err := s.svc.ListUsers(r.Context(), q, n)
	if err != nil {
		return err
	}
	v := adminUsersView{Query: q, Rows: make([]adminUserRow, 0, len(rows)), pager: newPager(n, total)}
	for _, row := range rows {
		v.Rows = append(v.Rows, adminUserRow{UserSummary: row, SignInKey: signInKey(row.SignsIn())})
	}
	s.render(w, r, "admin_users.html", page{TitleKey: "admin.users.title", User: u, Data: v})
	return nil
}

// adminActionView is one action offered on an account.
type adminActionView struct {
	Action   push.AdminAction
	Question question
	Danger   bool
}

// adminUserView is what admin_user.html shows.
type adminUserView struct {
	Target       *push.User
	TokenCreated time.Time
	SignIn       service.SignInMethods
	SignInKey    string // the catalog key of SignIn.Methods
	Self         bool   // the admin's own account: no actions here
	Actions      []adminActionView
}

// targetOf reads the account an admin route names; nil after answering 404.
func (s *Server) targetOf(w http.ResponseWriter, r *http.Request) (*push.User, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, s.notFound(w, r)
	}
	t, err := s.svc.UserByID(r.Context(), id)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, s.notFound(w, r)
	}
	return t, err
}

// adminUser serves GET /admin/users/{id}: the account and its actions.
func (s *Server) adminUser(w http.ResponseWriter, r *http.Request) error {
	u := s.requireAdmin(w, r)
	if u == nil {
		return nil
	}
	t, err := s.targetOf(w, r)
	if t == nil {
		return err
	}
	created, err := s.svc.TokenCreated(r.Context(), t)
	if err != nil {
		return err
	}
	signIn, err := s.svc.SignInMethodsOf(r.Context(), t)
	if err != nil {
		return err
	}
	v := adminUserView{Target: t, TokenCreated: created, SignIn: signIn, SignInKey: signInKey(signIn.Methods), Self: t.ID == u.ID}
	if !v.Self {
		loc := s.localizer(r)
		for _, a := range offeredActions(t, !created.IsZero(), s.svc.MailEnabled()) {
			v.Actions = append(v.Actions, adminActionView{Action: a, Question: adminQuestion(loc, a, t.Email),
				Danger: a != push.AdminEnable && a != push.AdminPromote})
		}
	}
	s.render(w, r, "admin_user.html", page{Title: t.Email, User: u, Data: v})
	return nil
}

// offeredActions are the actions that would change something for t; a
// password reset is offered where the server sends email.
func offeredActions(t *push.User, hasToken, mail bool) []push.AdminAction {
	var out []push.AdminAction
	if t.Disabled() {
		out = append(out, push.AdminEnable)
	} else {
		out = append(out, push.AdminDisable, push.AdminRevokeSessions)
	}
	if mail {
		out = append(out, push.AdminSendReset)
	}
	if hasToken {
		out = append(out, push.AdminRevokeToken)
	}
	if t.HasTwoFactor() {
		out = append(out, push.AdminResetTwoFactor)
	}
	if t.Admin {
		out = append(out, push.AdminDemote)
	} else {
		out = append(out, push.AdminPromote)
	}
	return append(out, push.AdminDelete)
}

// adminDone says what an action did, for the next page: the catalog has
// admin.done.<action> for each, with the account's {{.Email}}, and
// admin.unchanged.<action> for each that can find the account as it would
// leave it, which changes nothing and is not logged (docs/decisions.md,
// D41): another admin may have acted since the page was shown.
func adminDone(loc *i18n.Localizer, action push.AdminAction, res push.AdminResult) string {
	key := "admin.done."
	if !res.Changed {
		key = "admin.unchanged."
	}
	return loc.T(key+string(action), map[string]any{"Email": res.Target})
}

// adminAct serves POST /admin/users/{id}/{action}, once confirmed.
func (s *Server) adminAct(w http.ResponseWriter, r *http.Request) error {
	u := s.requireAdmin(w, r)
	if u == nil {
		return nil
	}
	action := push.AdminAction(r.PathValue("action"))
	if !slices.Contains(push.AdminActions, action) {
		return s.notFound(w, r)
	}
	if err := parseForm(w, r); err != nil {
		return err
	}
	t, err := s.targetOf(w, r)
	if t == nil {
		return err
	}
	loc := s.localizer(r)
	if t.ID == u.ID {
		s.renderError(w, r, http.StatusForbidden, loc.T("admin.not_allowed", nil), loc.T("admin.not_your_own", nil))
		return nil
	}
	back := "/admin/users/" + strconv.FormatInt(t.ID, 10)
	if !s.confirmed(w, r, adminQuestion(loc, action, t.Email), back, false) {
		return nil
	}
	res, err := s.administer(r, push.AdminActor{ID: u.ID, Name: u.Email, IP: s.meta(r).IP}, action, t.ID)
	switch push.ErrorCode(err) {
	case "":
	case push.CodeNotFound:
		return s.notFound(w, r)
	default:
		return err
	}
	s.flash(r, adminDone(loc, action, res))
	if action == push.AdminDelete {
		back = "/admin/users"
	}
	redirect(w, r, back)
	return nil
}

// administer does action on the account targetID for actor. A password
// reset link is always sent, so it always changes something.
func (s *Server) administer(r *http.Request, actor push.AdminActor, action push.AdminAction, targetID int64) (push.AdminResult, error) {
	if action == push.AdminSendReset {
		email, err := s.svc.AdminSendReset(r.Context(), actor, targetID, s.origin(r))
		return push.AdminResult{Target: email, Changed: true}, err
	}
	return s.svc.Administer(r.Context(), actor, action, targetID)
}

// adminLogView is what admin_log.html shows.
type adminLogView struct {
	Rows []adminLogRow
	pager
}

// adminLogRow is one line of the admin log, with its action's label in the
// page's language (the stored name where the catalog has none).
type adminLogRow struct {
	push.AdminEntry
	Label string
}

// actionLabel is how the admin log names action in loc's language.
func actionLabel(loc *i18n.Localizer, action push.AdminAction) string {
	key := "admin.action." + string(action)
	if l := loc.T(key, nil); l != key {
		return l
	}
	return string(action)
}

// adminLog serves GET /admin/log: who did what to which account, when.
func (s *Server) adminLog(w http.ResponseWriter, r *http.Request) error {
	u := s.requireAdmin(w, r)
	if u == nil {
		return nil
	}
	n := pageParam(r)
	rows, total, err := s.svc.AdminLog(r.Context(), n)
	if err != nil {
		return err
	}
	loc := s.localizer(r)
	v := adminLogView{Rows: make([]adminLogRow, 0, len(rows)), pager: newPager(n, total)}
	for _, e := range rows {
		v.Rows = append(v.Rows, adminLogRow{AdminEntry: e, Label: actionLabel(loc, e.Action)})
	}
	s.render(w, r, "admin_log.html", page{TitleKey: "admin.log.title", User: u, Data: v})
	return nil
}
