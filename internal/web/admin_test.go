package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// promote makes an account an admin, as `hush user promote` does.
func (h *harness) promote(email string) *push.User {
	h.t.Helper()
	u := h.user(email)
	if _, err := h.svc.Administer(context.Background(), push.AdminActor{Name: "test"}, push.AdminPromote, u.ID); err != nil {
		h.t.Fatal(err)
	}
	return h.user(email)
}

// adminRoutes are every admin route, GET and POST, for the account id.
func adminRoutes(id int64) (gets, posts []string) {
	gets = []string{"/admin", "/admin/users", "/admin/users?q=a", fmt.Sprintf("/admin/users/%d", id), "/admin/log"}
	for _, a := range push.AdminActions {
		posts = append(posts, fmt.Sprintf("/admin/users/%d/%s", id, a))
	}
	return gets, posts
}

// TestAdminPagesRefuseOthers: a signed-in non-admin gets 403 on every admin
// route, GET and POST, confirmed or not, and nothing happens; a visitor is
// sent to sign in.
func TestAdminPagesRefuseOthers(t *testing.T) {
	h := newHarness(t, nil)
	h.signUp("admin@example.com", "password one")
	h.promote("admin@example.com")
	user := h.signUp("user@example.com", "password one")
	victim := h.signUp("victim@example.com", "password one")
	v := h.user("victim@example.com")
	gets, posts := adminRoutes(v.ID)
	for _, p := range gets {
		user.get(p).expect(t, http.StatusForbidden)
		if r := h.client().get(p); r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/sign_in" {
			t.Errorf("visitor GET %s: %d %q", p, r.status, r.header.Get("Location"))
		}
	}
	for _, p := range posts {
		for _, form := range []url.Values{nil, {"confirm": {"yes"}}} {
			r := user.post(p, form)
			r.expect(t, http.StatusForbidden)
			r.lacks(t, "confirm")
			if r := h.client().post(p, form); r.status != http.StatusSeeOther {
				t.Errorf("visitor POST %s: %d", p, r.status)
			}
		}
	}
	after := h.user("victim@example.com")
	if after.Disabled() || after.Admin || after.AuthEpoch != v.AuthEpoch {
		t.Fatalf("a non-admin changed an account: %+v", after)
	}
	victim.get("/dashboard").expect(t, http.StatusOK)
	if _, n, _ := h.svc.AdminLog(context.Background(), 1); n != 1 {
		t.Errorf("%d admin log entries, want only the promotion", n)
	}
	user.get("/dashboard").lacks(t, `href="/admin"`)
}

// TestAdminPages: the overview, the search, an account's page with its
// actions; every action asks first, happens only once confirmed, takes
// effect at once and is logged.
func TestAdminPages(t *testing.T) {
	h := newHarness(t, nil)
	a := h.signUp("admin@example.com", "password one")
	admin := h.promote("admin@example.com")
	victim := h.signUp("victim@example.com", "password one")
	v := h.user("victim@example.com")
	vTok, _ := h.svc.ReplaceToken(context.Background(), v)
	h.create(v, fields{"payload": "p", "kind": "text"})
	h.create(nil, fields{"payload": "https://example.com/", "kind": "url"})
	api := func(tok string) int {
		req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v2/pushes/active", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		return h.client().do(req).status
	}

	over := a.get("/admin")
	over.expect(t, http.StatusOK)
	over.has(t, "<dt>Accounts</dt><dd>2</dd>", "<dt>Administrators</dt><dd>1</dd>", "<td>text</td><td>1</td><td>0</td>",
		"<td>url</td><td>1</td><td>0</td>", "<dt>Database</dt>")
	a.get("/dashboard").has(t, `href="/admin"`)

	list := a.get("/admin/users?q=VICT")
	list.expect(t, http.StatusOK)
	list.has(t, "victim@example.com", fmt.Sprintf(`href="/admin/users/%d"`, v.ID), "1 account match")
	list.lacks(t, "admin@example.com</a>")
	a.get("/admin/users?q="+url.QueryEscape(`<script>`)).has(t, "&lt;script&gt;")
	a.get("/admin/users?q="+strings.Repeat("x", 5000)).expect(t, http.StatusOK)

	page := a.get(fmt.Sprintf("/admin/users/%d", v.ID))
	page.expect(t, http.StatusOK)
	for _, act := range []push.AdminAction{push.AdminDisable, push.AdminRevokeSessions, push.AdminRevokeToken, push.AdminPromote, push.AdminDelete} {
		page.has(t, fmt.Sprintf(`action="/admin/users/%d/%s"`, v.ID, act))
	}
	page.has(t, `data-confirm-title="Disable victim@example.com?"`)
	page.lacks(t, "/enable\"", "/demote\"", "/reset_two_factor\"")

	disable := fmt.Sprintf("/admin/users/%d/disable", v.ID)
	ask := a.post(disable, nil)
	ask.expect(t, http.StatusOK)
	ask.has(t, "Disable victim@example.com?", `name="confirm" value="yes"`, fmt.Sprintf(`href="/admin/users/%d"`, v.ID))
	if h.user("victim@example.com").Disabled() {
		t.Fatal("an unconfirmed disable disabled")
	}
	done := a.post(disable, url.Values{"confirm": {"yes"}})
	if done.status != http.StatusSeeOther || done.header.Get("Location") != fmt.Sprintf("/admin/users/%d", v.ID) {
		t.Fatalf("disable: %d %q", done.status, done.header.Get("Location"))
	}
	a.get(done.header.Get("Location")).has(t, "victim@example.com: disabled and signed out everywhere.", "Disabled since", "/enable\"")
	// At once: the session, the token, a new sign-in.
	if r := victim.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("a disabled account's session: %d", r.status)
	}
	if s := api(vTok); s != http.StatusUnauthorized {
		t.Errorf("a disabled account's token: %d", s)
	}
	si := h.client().post("/users/sign_in", url.Values{"email": {"victim@example.com"}, "password": {"password one"}})
	si.expect(t, http.StatusForbidden)
	si.has(t, "This account is disabled.")

	a.post(fmt.Sprintf("/admin/users/%d/enable", v.ID), url.Values{"confirm": {"yes"}})
	if s := api(vTok); s != http.StatusOK {
		t.Errorf("the token after enable: %d", s)
	}
	a.post(fmt.Sprintf("/admin/users/%d/revoke_token", v.ID), url.Values{"confirm": {"yes"}})
	if s := api(vTok); s != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d", s)
	}
	victim = h.client()
	victim.post("/users/sign_in", url.Values{"email": {"victim@example.com"}, "password": {"password one"}})
	a.post(fmt.Sprintf("/admin/users/%d/revoke_sessions", v.ID), url.Values{"confirm": {"yes"}})
	if r := victim.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("a session after revoke_sessions: %d", r.status)
	}
	a.post(fmt.Sprintf("/admin/users/%d/promote", v.ID), url.Values{"confirm": {"yes"}})
	if !h.user("victim@example.com").Admin {
		t.Error("promote did not")
	}
	a.post(fmt.Sprintf("/admin/users/%d/demote", v.ID), url.Values{"confirm": {"yes"}})
	del := a.post(fmt.Sprintf("/admin/users/%d/delete", v.ID), url.Values{"confirm": {"yes"}})
	if del.status != http.StatusSeeOther || del.header.Get("Location") != "/admin/users" {
		t.Fatalf("delete: %d %q", del.status, del.header.Get("Location"))
	}
	if _, err := h.svc.UserByEmail(context.Background(), "victim@example.com"); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("deleted account: %v", err)
	}
	a.get(fmt.Sprintf("/admin/users/%d", v.ID)).expect(t, http.StatusNotFound)
	a.post(fmt.Sprintf("/admin/users/%d/enable", v.ID), url.Values{"confirm": {"yes"}}).expect(t, http.StatusNotFound)

	log := a.get("/admin/log")
	log.expect(t, http.StatusOK)
	for _, act := range []string{"disable", "enable", "revoke_token", "revoke_sessions", "promote", "demote", "delete"} {
		log.has(t, "<td>admin@example.com</td><td data-action=\""+act+"\">")
	}
	if _, n, _ := h.svc.AdminLog(context.Background(), 1); n != 8 {
		t.Errorf("%d admin log entries, want 8", n)
	}

	// Malformed addresses.
	for _, p := range []string{"/admin/users/abc", "/admin/users/0", "/admin/users/-1", "/admin/users/99999999999999999999"} {
		a.get(p).expect(t, http.StatusNotFound)
	}
	a.post(fmt.Sprintf("/admin/users/%d/explode", admin.ID), url.Values{"confirm": {"yes"}}).expect(t, http.StatusNotFound)
}

// TestAdminSelfAndLastAdmin: an admin cannot act on their own account from
// the admin pages (so the pages can never leave the instance without an
// admin); a demoted admin's open page acts no more; cross-site forms are
// refused.
func TestAdminSelfAndLastAdmin(t *testing.T) {
	h := newHarness(t, nil)
	a := h.signUp("admin@example.com", "password one")
	admin := h.promote("admin@example.com")
	self := a.get(fmt.Sprintf("/admin/users/%d", admin.ID))
	self.expect(t, http.StatusOK)
	self.has(t, "This is your own account")
	self.lacks(t, `class="admin-action"`)
	for _, act := range push.AdminActions {
		r := a.post(fmt.Sprintf("/admin/users/%d/%s", admin.ID, act), url.Values{"confirm": {"yes"}})
		r.expect(t, http.StatusForbidden)
	}
	if got := h.user("admin@example.com"); !got.Admin || got.Disabled() {
		t.Fatalf("the admin acted on themselves: %+v", got)
	}
	a.get("/dashboard").expect(t, http.StatusOK)

	// Two admins; b demotes a while a's pages are open.
	b := h.signUp("b@example.com", "password one")
	bu := h.promote("b@example.com")
	b.post(fmt.Sprintf("/admin/users/%d/demote", admin.ID), url.Values{"confirm": {"yes"}})
	r := a.post(fmt.Sprintf("/admin/users/%d/disable", bu.ID), url.Values{"confirm": {"yes"}})
	r.expect(t, http.StatusForbidden)
	if h.user("b@example.com").Disabled() {
		t.Fatal("a demoted admin disabled another")
	}

	// Cross-site form posts are refused before anything happens.
	h.promote("admin@example.com")
	for _, hdr := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "https://evil.example"}} {
		r := a.post(fmt.Sprintf("/admin/users/%d/disable", bu.ID), url.Values{"confirm": {"yes"}}, hdr...)
		r.expect(t, http.StatusForbidden)
		r.has(t, "sent from another site")
	}
	if h.user("b@example.com").Disabled() {
		t.Fatal("a cross-site form disabled an account")
	}
}

// TestLastAdminKeepsTheirAccount: the only enabled admin cannot delete
// their account on the account page — refused before the question and when
// confirmed with the right password — while an admin with another one left
// can, and that deletion is in the admin log.
func TestLastAdminKeepsTheirAccount(t *testing.T) {
	h := newHarness(t, nil)
	a := h.signUp("admin@example.com", "password one")
	admin := h.promote("admin@example.com")
	tok := h.create(admin, fields{"payload": "kept"})
	msg := html.EscapeString(service.MsgLastAdmin)
	for _, form := range []url.Values{{"current_password": {"password one"}}, {"current_password": {"password one"}, "confirm": {"yes"}}} {
		r := a.post("/users/delete", form)
		r.expect(t, http.StatusForbidden)
		r.has(t, msg)
		r.lacks(t, "Your account has been deleted")
	}
	if got := h.user("admin@example.com"); !got.Admin || got.Disabled() {
		t.Fatalf("the last admin after the refusals: %+v", got)
	}
	if _, err := h.svc.Lookup(context.Background(), tok); err != nil {
		t.Fatalf("the last admin's push after the refusals: %v", err)
	}
	a.get("/dashboard").expect(t, http.StatusOK)

	b := h.signUp("b@example.com", "password one")
	h.promote("b@example.com")
	del := a.post("/users/delete", url.Values{"current_password": {"password one"}, "confirm": {"yes"}})
	del.expect(t, http.StatusOK)
	del.has(t, "Your account has been deleted")
	log, _, err := h.svc.AdminLog(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if e := log[0]; e.Action != push.AdminDelete || e.ActorID != admin.ID || e.TargetID != admin.ID || e.Target != "admin@example.com" {
		t.Fatalf("the newest admin log entry is %+v, want the admin's deletion of their account", e)
	}
	b.post("/users/delete", url.Values{"current_password": {"password one"}, "confirm": {"yes"}}).expect(t, http.StatusForbidden)
	if got := h.user("b@example.com"); !got.Admin {
		t.Fatalf("the admin left: %+v", got)
	}
}

// TestAdminActionsThatChangeNothing: every admin action that can find the
// account as it would leave it — another admin acted since the page was
// shown — says so on the next page, in the page's language, instead of
// saying it was done, and writes no line of the admin log (D41).
func TestAdminActionsThatChangeNothing(t *testing.T) {
	h := newHarness(t, nil)
	a := h.signUp("admin@example.com", "password one")
	h.promote("admin@example.com")
	h.signUp("victim@example.com", "password one")
	v := h.user("victim@example.com")
	ctx := context.Background()
	if _, err := h.svc.ReplaceToken(ctx, v); err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"Email": v.Email}
	for _, action := range []push.AdminAction{push.AdminDisable, push.AdminEnable, push.AdminPromote, push.AdminDemote,
		push.AdminRevokeToken, push.AdminResetTwoFactor} {
		// The other admin's action, from the command line.
		if _, err := h.svc.Administer(ctx, push.AdminActor{Name: "test"}, action, v.ID); err != nil {
			t.Fatal(err)
		}
		_, logged, _ := h.svc.AdminLog(ctx, 1)
		for _, l := range i18n.Languages() {
			r := a.post(fmt.Sprintf("/%s/admin/users/%d/%s", l.Code, v.ID, action), url.Values{"confirm": {"yes"}})
			if r.status != http.StatusSeeOther {
				t.Fatalf("%s in %s: %d", action, l.Code, r.status)
			}
			loc := i18n.For(l.Code)
			page := a.get(r.header.Get("Location"))
			page.has(t, `<p class="notice" role="status">`+html.EscapeString(loc.T("admin.unchanged."+string(action), data))+"</p>")
			page.lacks(t, html.EscapeString(loc.T("admin.done."+string(action), data)))
		}
		if _, n, _ := h.svc.AdminLog(ctx, 1); n != logged {
			t.Errorf("%s: the admin log grew from %d to %d lines", action, logged, n)
		}
	}
	// In English, as the command line says it; a change still says it was done.
	r := a.post(fmt.Sprintf("/admin/users/%d/disable", v.ID), url.Values{"confirm": {"yes"}})
	a.get(r.header.Get("Location")).has(t, "victim@example.com: disabled and signed out everywhere.")
	r = a.post(fmt.Sprintf("/admin/users/%d/disable", v.ID), url.Values{"confirm": {"yes"}})
	a.get(r.header.Get("Location")).has(t, "victim@example.com: already disabled; nothing changed.")
}
