package web

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hush/internal/i18n"
	"hush/internal/push"
	"hush/internal/service"
)

// accountView is one page of the account pages' language test: get asks
// for it under a language's prefix.
type accountPageView struct {
	name string
	get  func(prefix string) resp
}

// accountSame are the words the account pages may show unchanged in any
// language: header names, a command line, event names.
var accountSame = []string{"Webhooks", "Code", "Authorization: Bearer", "webhook-id", "webhook-timestamp",
	"webhook-signature", "ms", "Hush", "API"}

// accountSameIn are the words the account pages may show as English does
// in one language only, where that language's own word is the same.
var accountSameIn = map[string][]string{"it": {"Password"}}

// totpSecret is a second factor's secret, as the set-up shows it.
var totpSecret = regexp.MustCompile(`^[A-Z2-7]{16,}$`)

// isoInstant is a date and time in year-month-day order, which Swedish
// writes exactly as English does.
var isoInstant = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})? UTC$`)

// checkPagesTranslated renders each view in English and in every other
// shipped language, and fails on a text of English left on the others.
func checkPagesTranslated(t *testing.T, views []accountPageView, also ...string) {
	t.Helper()
	allowed := append(append(append([]string{}, sameEverywhere...), accountSame...), also...)
	allowed = append(allowed, push.HookEventNames()...)
	for _, l := range i18n.Languages() {
		allowed = append(allowed, l.Name)
	}
	for _, v := range views {
		english := v.get("/en")
		enText := visibleTexts(english.body)
		if len(enText) < 3 {
			t.Fatalf("%s: too little text in English (%d): %q", v.name, english.status, enText)
		}
		for _, l := range i18n.Languages() {
			if l.Code == i18n.Default {
				continue
			}
			allowed := append(slices.Clone(allowed), accountSameIn[l.Code]...)
			other := v.get("/" + l.Code)
			if other.status != english.status {
				t.Errorf("%s in %s: status %d, English %d", v.name, l.Code, other.status, english.status)
			}
			for _, s := range visibleTexts(other.body) {
				if slices.Contains(enText, s) && !slices.Contains(allowed, s) && !strings.Contains(s, "@example.") &&
					!strings.HasPrefix(s, "http") && !strings.HasPrefix(s, "Webhook") && !totpSecret.MatchString(s) &&
					!isoInstant.MatchString(s) {
					t.Errorf("%s in %s: %q is left in English", v.name, l.Code, s)
				}
			}
		}
	}
}

// TestAccountPagesTranslated: the sign-in, sign-up, account, second
// factor, token and webhook pages, with the errors their forms show, in
// every shipped language.
func TestAccountPagesTranslated(t *testing.T) {
	h := newHookHarness(t)
	anon := h.client()
	u := h.signUp("lang-owner@example.com", "owner password")
	hook := h.signUp("lang-hooks@example.com", "hooks password")
	hook.post("/users/webhooks", url.Values{"url": {"http://127.0.0.1:9/in"}, "events": {"push.created"}}).expect(t, http.StatusOK)
	page := hookLink.FindStringSubmatch(hook.get("/users/webhooks").body)
	if page == nil {
		t.Fatal("no webhook link")
	}
	tokened := h.signUp("lang-token@example.com", "token password")
	tokened.post("/users/token", url.Values{}).expect(t, http.StatusOK)
	get := func(c *client, path string) func(string) resp {
		return func(prefix string) resp { return c.get(prefix + path) }
	}
	post := func(c *client, path string, f url.Values) func(string) resp {
		return func(prefix string) resp { return c.post(prefix+path, f) }
	}
	// Wrong codes are limited per account and hour: each language's try
	// comes a day later.
	later := func(f func(string) resp) func(string) resp {
		return func(prefix string) resp { h.clock.Advance(24 * time.Hour); return f(prefix) }
	}
	views := []accountPageView{
		{"sign in", get(anon, "/users/sign_in")},
		{"wrong password", later(post(anon, "/users/sign_in", url.Values{"email": {"lang-owner@example.com"}, "password": {"nope"}}))},
		{"sign up", get(anon, "/users/sign_up")},
		{"short password", post(anon, "/users/sign_up", url.Values{"email": {"n@example.com"}, "password": {"short"}, "password_confirmation": {"short"}})},
		{"passwords differ", post(anon, "/users/sign_up", url.Values{"email": {"n@example.com"}, "password": {"long enough 1"}, "password_confirmation": {"long enough 2"}})},
		{"bad email", post(anon, "/users/sign_up", url.Values{"email": {"nope"}, "password": {"long enough 1"}, "password_confirmation": {"long enough 1"}})},
		{"taken email", later(post(anon, "/users/sign_up", url.Values{"email": {"lang-owner@example.com"}, "password": {"long enough 1"}, "password_confirmation": {"long enough 1"}}))},
		{"account", get(u, "/users/edit")},
		{"account wrong password", later(post(u, "/users/password", url.Values{"current_password": {"nope"}, "password": {"new password 1"}, "password_confirmation": {"new password 1"}}))},
		// The language chosen is the prefix's: the answer speaks the choice
		// (D64).
		{"account language saved", func(prefix string) resp {
			return u.post(prefix+"/users/language", url.Values{"preferred_language": {prefix[1:]}})
		}},
		{"two factor off", get(u, "/users/two_factor")},
		{"two factor set-up", post(u, "/users/two_factor/setup", url.Values{})},
		{"two factor wrong code", later(post(u, "/users/two_factor/enable", url.Values{"current_password": {"owner password"}, "code": {"000000"}}))},
		{"two factor wrong password", later(post(u, "/users/two_factor/enable", url.Values{"current_password": {"nope"}, "code": {"000000"}}))},
		{"no token", get(u, "/users/token")},
		{"a token", get(tokened, "/users/token")},
		{"webhooks", get(hook, "/users/webhooks")},
		{"webhook refused", post(hook, "/users/webhooks", url.Values{"url": {"ftp://x.example"}})},
		{"webhook", get(hook, page[1])},
	}
	checkPagesTranslated(t, views)
}

// TestAccountMessagesKnown: every refusal the account forms can show has
// a key, whose German differs from the English.
func TestAccountMessagesKnown(t *testing.T) {
	de := i18n.For("de")
	msgs := []string{service.MsgBadEmail, service.MsgBadCredentials, service.MsgWrongPassword, service.MsgEmailTaken,
		service.MsgDisabled, msgPasswordShort, msgPasswordLong, msgPasswordConfirm, service.MsgBadCode, service.MsgCodeUsed,
		service.MsgSignInExpired, service.MsgEnrolmentGone, service.MsgTwoFactorOn, service.MsgTwoFactorRequired,
		service.MsgResetInvalid, service.MsgConfirmInvalid, service.MsgBadOrUnconfirmed, service.MsgEmailNotAllowed,
		service.MsgSSOFailed, service.MsgSSOExpired, service.MsgSSOUnverified, service.MsgSSODomain, service.MsgSSONoAccount,
		service.MsgSSOLinkedOther, service.MsgPasswordOff, service.MsgSignIn, msgReceiptsOff, msgHookTurnedOff,
		msgHookWaiting, msgHookNoMessage, msgHookAdminOnly,
		"Too many sign-in attempts. Please try again in a minute.",
		"Too many sign-in attempts. Please try again in 12 minutes.",
		"Too many wrong codes. Please try again in 3 minutes.",
		"Too many accounts were created from your address. Please try again in 45 minutes.",
		"Too many emails were asked for. Please try again in a minute."}
	for _, m := range msgs {
		if got := say(de, m); got == m || strings.HasPrefix(got, "account.") {
			t.Errorf("%q has no German: %q", m, got)
		}
	}
	if got := say(de, "Too many wrong codes. Please try again in 3 minutes."); !strings.Contains(got, "3 Minuten") {
		t.Errorf("minutes: %q", got)
	}
	if got := say(de, "Something new."); got != "Something new." {
		t.Errorf("an unknown message: %q", got)
	}
	// The unexported messages are the service's own words.
	h := newHarness(t, nil)
	for _, c := range []struct{ pw, confirm, want string }{
		{"short", "short", msgPasswordShort},
		{strings.Repeat("x", 257), strings.Repeat("x", 257), msgPasswordLong},
		{"long enough 1", "long enough 2", msgPasswordConfirm},
	} {
		_, err := h.svc.SignUp(t.Context(), "m@example.com", c.pw, c.confirm, push.Meta{})
		if e, ok := err.(*push.Error); !ok || fieldMessage(e) != c.want {
			t.Errorf("sign-up with %q: %v, want %q", c.pw, err, c.want)
		}
	}
	for _, f := range []struct{ field, msg string }{{"url", "can't be blank"}, {"url", "must use https"},
		{"url", "must not name a private, loopback or link-local address"}, {"events", "can't be empty"},
		{"events", `"x" is not an event (push.created)`}} {
		if got := hookFieldMessage(de, f.field, f.msg); strings.Contains(got, f.msg) || strings.HasPrefix(got, "webhooks.") {
			t.Errorf("%s %q: %q", f.field, f.msg, got)
		}
	}
}

// TestSSOButtonLabel: without HUSH_OIDC_BUTTON_LABEL the button speaks
// the page's language; the operator's own label is kept as it is.
func TestSSOButtonLabel(t *testing.T) {
	h, _ := ssoHarness(t, service.SSORules{Label: defaultSSOLabel})
	c := h.client()
	c.get("/de/users/sign_in").has(t, ">"+i18n.For("de").T("signin.sso", nil)+"</a>")
	c.get("/en/users/sign_in").has(t, ">"+defaultSSOLabel+"</a>")
	own, _ := ssoHarness(t, service.SSORules{Label: "Sign in with Corp ID"})
	own.client().get("/de/users/sign_in").has(t, ">Sign in with Corp ID</a>")
}

// TestRefusalPagesTranslated: the refusal pages every handler falls back
// on (401, 403, 400) say the service's message in the page's language when
// the catalog knows it, and as the service wrote it when not.
func TestRefusalPagesTranslated(t *testing.T) {
	h := newHarness(t, nil)
	de := i18n.For("de")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&push.Error{Code: push.CodeUnauthenticated, Message: service.MsgSignIn}, de.T("account.msg.sign_in", nil)},
		{&push.Error{Code: push.CodeForbidden, Message: service.MsgNotDeletable}, de.T("message.not_deletable", nil)},
		{&push.Error{Code: push.CodeForbidden, Message: service.MsgNotYourOwn}, de.T("admin.not_your_own", nil)},
		{&push.Error{Code: push.CodeForbidden, Message: service.MsgLastAdmin}, de.T("account.msg.last_admin", nil)},
		{&push.Error{Code: push.CodeBadRequest, Message: "a message no catalog has"}, "a message no catalog has"},
	} {
		w := httptest.NewRecorder()
		h.web.sessions.LoadAndSave(withUserCache(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.web.fail(w, r.WithContext(context.WithValue(r.Context(), langKey{}, "de")), c.err)
		}))).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/de/", nil))
		body := w.Body.String()
		if !strings.Contains(body, html.EscapeString(c.want)) {
			t.Errorf("%v: the German page lacks %q:\n%.600s", c.err, c.want, body)
		}
		if c.want == "a message no catalog has" {
			continue
		}
		if msg := c.err.(*push.Error).Message; strings.Contains(body, html.EscapeString(msg)) {
			t.Errorf("%v: the German page shows the English %q", c.err, msg)
		}
	}
}
