package web

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestAdminSendsPasswordReset: with email, an admin's "send a password
// reset" asks first, then the account gets the same reset email as from
// "Forgot your password?", delivered through the outbox to a real SMTP
// server; its link sets a new password. The overview counts the outbox, and
// the admin log names the action. Without email it is not offered.
func TestAdminSendsPasswordReset(t *testing.T) {
	h, mp, deliver := newMailHarness(t)
	a := h.signUp("admin@example.com", "password one")
	h.promote("admin@example.com")
	h.signUp("user@example.com", "password one")
	u := h.user("user@example.com")
	page := a.get(fmt.Sprintf("/admin/users/%d", u.ID))
	page.has(t, `data-action="send_reset"`, "Email a password reset link to user@example.com?")

	path := fmt.Sprintf("/admin/users/%d/send_reset", u.ID)
	ask := a.post(path, nil)
	ask.expect(t, http.StatusOK)
	ask.has(t, `name="confirm" value="yes"`)
	if got := a.get("/admin"); !strings.Contains(got.body, `id="outbox"`) || !regexp.MustCompile(`Waiting to be sent</dt><dd>0`).MatchString(got.body) {
		t.Fatalf("outbox before: %s", got.body)
	}
	done := a.post(path, url.Values{"confirm": {"yes"}})
	if done.status != http.StatusSeeOther {
		t.Fatalf("send reset: %d", done.status)
	}
	if got := a.get("/admin"); !regexp.MustCompile(`Waiting to be sent</dt><dd>1`).MatchString(got.body) {
		t.Errorf("the outbox does not count the queued reset")
	}
	deliver()
	msgs := mp.Wait(t, "user@example.com", 1, 5*time.Second)
	m := mp.Get(t, msgs[0].ID)
	link := regexp.MustCompile(`/users/password/edit\?reset_password_token=[A-Za-z0-9_-]+`).FindString(m.Text)
	if link == "" {
		t.Fatalf("no reset link in the message:\n%s", m.Text)
	}
	tok := strings.TrimPrefix(link, "/users/password/edit?reset_password_token=")
	c := h.client()
	c.get(link).expect(t, http.StatusOK)
	set := c.post("/users/password/edit", url.Values{"reset_password_token": {tok}, "password": {"password two"}, "password_confirmation": {"password two"}})
	if set.status >= 400 {
		t.Fatalf("set the new password: %d", set.status)
	}
	if r := h.client().post("/users/sign_in", url.Values{"email": {"user@example.com"}, "password": {"password two"}}); r.status != http.StatusSeeOther {
		t.Errorf("sign-in with the new password: %d", r.status)
	}
	a.get("/admin/log").has(t, "send_reset", "user@example.com")

	// Without email, it is neither offered nor done.
	plain := newHarness(t, nil)
	pa := plain.signUp("admin@example.com", "password one")
	plain.promote("admin@example.com")
	plain.signUp("user@example.com", "password one")
	pu := plain.user("user@example.com")
	pa.get(fmt.Sprintf("/admin/users/%d", pu.ID)).lacks(t, "send_reset")
	pa.get("/admin").has(t, "This server sends no email")
	if r := pa.post(fmt.Sprintf("/admin/users/%d/send_reset", pu.ID), url.Values{"confirm": {"yes"}}); r.status == http.StatusSeeOther {
		t.Error("a reset was sent without email")
	}
}
