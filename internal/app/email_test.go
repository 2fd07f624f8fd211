package app

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/mailtest"
)

// mailServe runs hush serve with its email sent to a fresh Mailpit, at a
// fixed address that is its HUSH_BASE_URL (required with email).
func mailServe(t *testing.T, extra map[string]string) (*served, *mailtest.Server, map[string]string) {
	t.Helper()
	mp := mailtest.Start(t, mailtest.Options{})
	addr := freeAddr(t)
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_ADDR": addr, "HUSH_BASE_URL": "http://" + addr,
		"PWP__MAIL__SMTP_ADDRESS": mp.Host,
		"PWP__MAIL__SMTP_PORT":    strconv.Itoa(mp.Port), "PWP__MAIL__MAILER_SENDER": `"Hush" <hush@example.com>`}
	for k, v := range extra {
		env[k] = v
	}
	return startServe(t, env), mp, env
}

var linkRE = regexp.MustCompile(`https?://[^\s<>"]+`)

// linkIn returns the one link of a message's plain text that contains part.
func linkIn(t *testing.T, m mailtest.Message, part string) string {
	t.Helper()
	for _, l := range linkRE.FindAllString(m.Text, -1) {
		if strings.Contains(l, part) {
			return l
		}
	}
	t.Fatalf("no link with %q in %q", part, m.Text)
	return ""
}

// tokenFor issues an API token for email with the CLI.
func tokenFor(t *testing.T, env map[string]string, email string) string {
	t.Helper()
	code, out, errOut := run(t, env, "", "token", "create", "--email", email)
	if code != 0 {
		t.Fatalf("token create: %s", errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// The whole reset flow through the running program and a real SMTP
// server: the same answer for an address with and without an account, a
// link that works once, every other session signed out, and a link that
// stops working when the password changes another way.
func TestEmailPasswordReset(t *testing.T) {
	srv, mp, env := mailServe(t, nil)
	owner, other, stranger := newPeer(t, srv.url, 1), newPeer(t, srv.url, 2), newPeer(t, srv.url, 3)
	owner.signUp("reset@example.com", "old password 1")
	if r := other.signIn("reset@example.com", "old password 1"); r.status != http.StatusSeeOther {
		t.Fatalf("second session: %d", r.status)
	}
	if r := stranger.get("/users/sign_in"); !strings.Contains(r.body, `href="/users/password/new"`) {
		t.Errorf("the sign-in page has no reset link: %.300s", r.body)
	}

	known := stranger.form("/users/password/new", url.Values{"email": {"Reset@Example.com"}})
	unknown := stranger.form("/users/password/new", url.Values{"email": {"nobody@example.com"}})
	norm := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "reset@example.com", "X"), "nobody@example.com", "X")
	}
	if known.status != http.StatusOK || unknown.status != known.status || norm(known.body) != norm(unknown.body) {
		t.Fatalf("answers differ: %d %d\n%s\n---\n%s", known.status, unknown.status, known.body, unknown.body)
	}
	msg := mp.Wait(t, "reset@example.com", 1, 10*time.Second)[0]
	if msg.Subject != "Reset your Hush password" || !strings.Contains(msg.HTML, "/users/password/edit?reset_password_token=") {
		t.Errorf("message: %q\n%s", msg.Subject, msg.HTML)
	}
	link := linkIn(t, msg, "/users/password/edit")
	time.Sleep(300 * time.Millisecond) // the unknown address's message is handled by now: nothing went out
	if got := mp.To(t, "nobody@example.com"); len(got) != 0 {
		t.Errorf("an address without an account was emailed: %+v", got)
	}
	u, _ := url.Parse(link)
	tok := u.Query().Get("reset_password_token")

	if r := stranger.get(u.RequestURI()); r.status != http.StatusOK || !strings.Contains(r.body, "Choose a new password") {
		t.Fatalf("reset form: %d %.300s", r.status, r.body)
	}
	// The rules of a password still apply, and a refused try spends nothing.
	if r := stranger.form("/users/password/edit", url.Values{"reset_password_token": {tok}, "password": {"short"},
		"password_confirmation": {"short"}}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("short password: %d", r.status)
	}
	var wg sync.WaitGroup
	results := make([]int, 4)
	for i := range results {
		wg.Go(func() {
			r := newPeer(t, srv.url, 10+i).form("/users/password/edit", url.Values{"reset_password_token": {tok},
				"password": {"new password " + strconv.Itoa(i)}, "password_confirmation": {"new password " + strconv.Itoa(i)}})
			results[i] = r.status
		})
	}
	wg.Wait()
	winner := -1
	for i, st := range results {
		switch st {
		case http.StatusOK:
			if winner >= 0 {
				t.Fatalf("the link worked twice: %v", results)
			}
			winner = i
		case http.StatusNotFound:
		default:
			t.Errorf("reset %d: %d", i, st)
		}
	}
	if winner < 0 {
		t.Fatalf("no reset worked: %v", results)
	}
	if who := other.whoAmI(); who != "" {
		t.Errorf("another session survived the reset: %s", who)
	}
	if who := owner.whoAmI(); who != "" {
		t.Errorf("the first session survived the reset: %s", who)
	}
	if r := owner.signIn("reset@example.com", "old password 1"); r.status == http.StatusSeeOther {
		t.Error("the old password still works")
	}
	if r := owner.signIn("reset@example.com", "new password "+strconv.Itoa(winner)); r.status != http.StatusSeeOther {
		t.Errorf("the new password: %d", r.status)
	}
	if r := stranger.get(u.RequestURI()); r.status != http.StatusNotFound {
		t.Errorf("a used link: %d", r.status)
	}

	// A link asked for before the password changed another way stops
	// working: the operator's set-password here.
	stranger.form("/users/password/new", url.Values{"email": {"reset@example.com"}})
	link2 := linkIn(t, mp.Wait(t, "reset@example.com", 2, 10*time.Second)[1], "/users/password/edit")
	if code, _, errOut := run(t, env, "operator password 9\n", "user", "set-password", "--email", "reset@example.com"); code != 0 {
		t.Fatalf("set-password: %s", errOut)
	}
	u2, _ := url.Parse(link2)
	if r := stranger.form("/users/password/edit", url.Values{"reset_password_token": {u2.Query().Get("reset_password_token")},
		"password": {"attacker pass 1"}, "password_confirmation": {"attacker pass 1"}}); r.status != http.StatusNotFound {
		t.Errorf("a link from before set-password: %d", r.status)
	}
	if who := owner.whoAmI(); who != "" {
		t.Errorf("set-password left a session: %s", who)
	}
	if r := owner.signIn("reset@example.com", "operator password 9"); r.status != http.StatusSeeOther {
		t.Errorf("the operator's password: %d", r.status)
	}
	// Malformed and oversized tokens are just invalid links.
	for _, bad := range []string{"", "x", strings.Repeat("A", 5000), "%00%0d%0a", tok} {
		if r := stranger.get("/users/password/edit?reset_password_token=" + url.QueryEscape(bad)); r.status != http.StatusNotFound {
			t.Errorf("token %.20q: %d", bad, r.status)
		}
	}
	for _, bad := range []string{"a@b.example\r\nBcc: evil@example.net", "a@b.example, c@d.example", strings.Repeat("a", 300) + "@b.example",
		strings.Repeat("a", 200000) + "@b.example", "\x00@b.example", ""} {
		r := stranger.form("/users/password/new", url.Values{"email": {bad}})
		// A NUL is refused by the form's parser (400, docs/decisions.md, D61).
		if r.status != http.StatusUnprocessableEntity && r.status != http.StatusRequestEntityTooLarge &&
			(r.status != http.StatusBadRequest || !strings.Contains(bad, "\x00")) {
			t.Errorf("reset for %.30q: %d", bad, r.status)
		}
	}
}

// The address allowance: every request counts, with or without an
// account, and the answer to a refused one is the same for both.
func TestEmailResetLimit(t *testing.T) {
	srv, mp, _ := mailServe(t, nil)
	p := newPeer(t, srv.url, 1)
	p.signUp("limit@example.com", "password limit")
	statuses := func(email string) []int {
		var out []int
		for range 4 {
			out = append(out, newPeer(t, srv.url, 1).form("/users/password/new", url.Values{"email": {email}}).status)
		}
		return out
	}
	a, b := statuses("limit@example.com"), statuses("none@example.com")
	want := []int{200, 200, 200, 429}
	for i := range want {
		if a[i] != want[i] || b[i] != want[i] {
			t.Fatalf("statuses: with an account %v, without %v; want %v", a, b, want)
		}
	}
	if got := len(mp.Wait(t, "limit@example.com", 3, 10*time.Second)); got != 3 {
		t.Errorf("%d messages", got)
	}
	// Sent together, from one client: the allowance holds.
	p.signUp("burst@example.com", "password burst")
	c := burst(12, func(int) int {
		return newPeer(t, srv.url, 7).form("/users/password/new", url.Values{"email": {"burst@example.com"}}).status
	})
	if c.get(200) != 3 || c.get(429) != 9 {
		t.Errorf("a burst of 12: %d accepted, %d refused; want 3, 9", c.get(200), c.get(429))
	}
	time.Sleep(500 * time.Millisecond)
	if got := len(mp.Wait(t, "burst@example.com", 3, 10*time.Second)); got != 3 {
		t.Errorf("%d messages after the burst, want 3", got)
	}
}

// Email auto-dispatch as the API describes it: the feature flag, the
// recipients of a create, POST notify_emails with the reference's statuses
// and bodies, the audit entry, and the link that arrives working.
func TestEmailNotify(t *testing.T) {
	srv, mp, env := mailServe(t, nil)
	owner, intruder := newPeer(t, srv.url, 1), newPeer(t, srv.url, 2)
	owner.signUp("owner@example.com", "password owner")
	intruder.signUp("intruder@example.com", "password intruder")
	auth := []string{"Authorization", "Bearer " + tokenFor(t, env, "owner@example.com")}
	other := []string{"Authorization", "Bearer " + tokenFor(t, env, "intruder@example.com")}

	v := owner.get("/api/v2/version").obj(t)
	if v["api_version"] != "2.1" || v["features"].(map[string]any)["pushes"].(map[string]any)["email_auto_dispatch"] != true {
		t.Fatalf("version: %v", v)
	}
	r := owner.json("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "the notified secret",
		"notify_emails_to": "Ann@Example.org, bob@example.org", "notify_emails_to_locale": "fr", "name": "db creds",
		"retrieval_step": false}}, auth...)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	created := r.obj(t)
	if created["notify_emails_to"] != "Ann@Example.org, bob@example.org" || created["notify_emails_to_locale"] != "fr" {
		t.Errorf("create echoes %v %v", created["notify_emails_to"], created["notify_emails_to_locale"])
	}
	tok := created["url_token"].(string)
	for _, to := range []string{"ann@example.org", "bob@example.org"} {
		m := mp.Wait(t, to, 1, 10*time.Second)[0]
		// The recipients' language, French, gives the message and its link.
		if len(m.To) != 1 || m.Subject != "owner@example.com a partagé un secret avec vous" {
			t.Errorf("%s: to %v subject %q", to, m.To, m.Subject)
		}
		if strings.Contains(m.Text, "the notified secret") || strings.Contains(m.Text, "db creds") || strings.Contains(m.HTML, "db creds") {
			t.Errorf("the message carries the payload or the name:\n%s", m.Text)
		}
		// The link goes through the retrieval step (D66), although the push
		// did not ask for it, and opening it, as a mail scanner does, spends
		// no view.
		link, want := linkIn(t, m, "/p/"), strings.Replace(created["html_url"].(string), "/p/", "/fr/p/", 1)+"/r"
		if link != want {
			t.Errorf("link %s, want %s", link, want)
		}
		if r := newPeer(t, srv.url, 6).get(strings.TrimPrefix(link, srv.url)); r.status != http.StatusOK || strings.Contains(r.body, "the notified secret") {
			t.Errorf("the emailed link: %d %s", r.status, r.body)
		}
	}
	if got := newPeer(t, srv.url, 5).get("/p/" + tok + ".json").obj(t); got["payload"] != "the notified secret" ||
		got["views_remaining"] != created["expire_after_views"].(float64)-1 {
		t.Errorf("after the emailed links were opened, the first retrieval gives %v (created with %v views)", got, created["expire_after_views"])
	}

	notify := func(hdr []string, token string, body any) reply {
		return owner.json("POST", "/api/v2/pushes/"+token+"/notify_emails", body, hdr...)
	}
	// 404 for an unknown push, 401 without a user, 403 for another owner.
	if r := notify(auth, "nosuchtoken12345", map[string]any{"notify_emails_to": "c@example.org"}); r.status != http.StatusNotFound {
		t.Errorf("unknown push: %d %s", r.status, r.body)
	}
	if r := notify(nil, tok, map[string]any{"notify_emails_to": "c@example.org"}); r.status != http.StatusUnauthorized {
		t.Errorf("anonymous: %d %s", r.status, r.body)
	}
	if r := notify(other, tok, map[string]any{"notify_emails_to": "c@example.org"}); r.status != http.StatusForbidden {
		t.Errorf("another user: %d %s", r.status, r.body)
	}
	r = notify(auth, tok, map[string]any{"notify_emails_to": "carol@example.org", "notify_emails_to_locale": "de"})
	if r.status != http.StatusCreated || strings.TrimSpace(r.body) != `{"message":"Recipient(s) are added to the queue to be sent."}` {
		t.Errorf("notify: %d %s", r.status, r.body)
	}
	mp.Wait(t, "carol@example.org", 1, 10*time.Second)
	// 3 sent so far: 3 more pass the total of 5.
	r = notify(auth, tok, map[string]any{"notify_emails_to": "d@example.org,e@example.org,f@example.org"})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "You can notify up to 5 email(s) and you have already sent emails to 3 recipients") {
		t.Errorf("over the total: %d %s", r.status, r.body)
	}
	// Every request past the push's lookup counts, refused ones too: the
	// sixth of the minute is 429.
	if r := notify(auth, tok, map[string]any{}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "can't be blank") {
		t.Errorf("blank: %d %s", r.status, r.body)
	}
	if r := notify(auth, tok, map[string]any{"notify_emails_to": "g@example.org"}); r.status != http.StatusCreated {
		t.Errorf("fourth recipient: %d %s", r.status, r.body)
	}
	if r := notify(auth, tok, map[string]any{"notify_emails_to": "h@example.org"}); r.status != http.StatusCreated {
		t.Errorf("fifth recipient: %d %s", r.status, r.body)
	}
	if r := notify(auth, tok, map[string]any{"notify_emails_to": "i@example.org"}); r.status != http.StatusTooManyRequests ||
		r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "Too many email notification requests") {
		t.Errorf("sixth request in a minute: %d %s", r.status, r.body)
	}
	audit := owner.get("/api/v2/pushes/"+tok+"/audit", auth...)
	if n := strings.Count(audit.body, `"creation_email_send"`); n != 4 {
		t.Errorf("%d creation_email_send entries: %s", n, audit.body)
	}
	mp.Wait(t, "h@example.org", 1, 10*time.Second)
	if n := mp.Count(t); n != 5 {
		t.Errorf("%d messages arrived, want 5", n)
	}
}

// Attacks on auto-dispatch: header injection through addresses and the
// locale, huge and malformed lists, anonymous callers, and concurrent
// requests against the total of recipients.
func TestEmailNotifyAttacks(t *testing.T) {
	srv, mp, env := mailServe(t, nil)
	owner := newPeer(t, srv.url, 1)
	owner.signUp("attacked@example.com", "password attacked")
	auth := []string{"Authorization", "Bearer " + tokenFor(t, env, "attacked@example.com")}

	for name, fields := range map[string]map[string]any{
		"crlf in an address":  {"notify_emails_to": "a@example.org\r\nBcc: evil@example.net"},
		"angle brackets":      {"notify_emails_to": "Evil <evil@example.net>"},
		"crlf in the locale":  {"notify_emails_to": "a@example.org", "notify_emails_to_locale": "en\r\nBcc: evil@example.net"},
		"six addresses":       {"notify_emails_to": "a@x.org,b@x.org,c@x.org,d@x.org,e@x.org,f@x.org"},
		"a duplicate":         {"notify_emails_to": "a@x.org, A@x.org"},
		"stray commas":        {"notify_emails_to": "a@x.org,,b@x.org,"},
		"not a string":        {"notify_emails_to": []any{"a@x.org"}},
		"a huge list":         {"notify_emails_to": strings.Repeat("a@x.org,", 60000)},
		"a huge address":      {"notify_emails_to": strings.Repeat("a", 300) + "@x.org"},
		"a unicode local":     {"notify_emails_to": "ünï@x.org"},
		"a null byte":         {"notify_emails_to": "a\x00@x.org"},
		"a number for locale": {"notify_emails_to": "a@x.org", "notify_emails_to_locale": 5},
	} {
		fields["payload"] = "secret"
		r := owner.json("POST", "/api/v2/pushes", map[string]any{"push": fields}, auth...)
		if r.status != http.StatusUnprocessableEntity && r.status != http.StatusBadRequest && r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: %d %.300s", name, r.status, r.body)
		}
		if !strings.HasPrefix(r.body, "{") {
			t.Errorf("%s: not a JSON error: %.200s", name, r.body)
		}
	}
	// An anonymous create may not email anyone.
	if r := owner.json("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x",
		"notify_emails_to": "a@x.org"}}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("anonymous create with recipients: %d %s", r.status, r.body)
	}
	// The v1 JSON path does not take the fields (as the reference): the
	// push is made and nobody is emailed (the count below).
	if r := owner.json("POST", "/p.json", map[string]any{"password": map[string]any{"payload": "x",
		"notify_emails_to": "a@x.org\nBcc: evil@example.net"}}, auth...); r.status != http.StatusCreated {
		t.Errorf("v1 create with notify_emails_to: %d %s", r.status, r.body)
	}

	// Concurrent requests: 8 at once, 2 addresses each, on a push with none
	// sent. The minute's allowance lets 5 through; the total lets 2 of them
	// queue (4 recipients; a third would make 6).
	tok := owner.createPush(map[string]any{"payload": "race"}, auth...)
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r := owner.json("POST", "/api/v2/pushes/"+tok+"/notify_emails",
				map[string]any{"notify_emails_to": "r" + strconv.Itoa(i) + "a@x.org, r" + strconv.Itoa(i) + "b@x.org"}, auth...)
			mu.Lock()
			got[r.status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if got[201] != 2 || got[422] != 3 || got[429] != 3 {
		t.Errorf("statuses %v, want 2×201, 3×422, 3×429", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for mp.Count(t) < 4 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if n := mp.Count(t); n != 4 {
		t.Errorf("%d messages, want 4", n)
	}
	for _, m := range mp.Messages(t) {
		if len(m.To) != 1 || strings.Contains(m.To[0].Address, "evil") {
			t.Errorf("message to %v", m.To)
		}
	}
}

// Read receipts: the owner's default, the per-push fields of the API and
// the web form, each event — a view (on the one-write retrieval path too),
// wrong passphrases (once in the quiet time), an expiry by the last view
// and by hand — and nothing in them that opens the push.
func TestEmailReceipts(t *testing.T) {
	srv, mp, env := mailServe(t, nil)
	owner, visitor := newPeer(t, srv.url, 1), newPeer(t, srv.url, 2)
	owner.signUp("rcpt@example.com", "password rcpt")
	auth := []string{"Authorization", "Bearer " + tokenFor(t, env, "rcpt@example.com")}
	if r := owner.get("/users/edit"); !strings.Contains(r.body, `name="receipt_on_view"`) {
		t.Fatalf("the account page has no receipt settings: %.300s", r.body)
	}
	if r := owner.form("/users/receipts", url.Values{"receipt_on_view": {"on"}}); r.status != http.StatusOK {
		t.Fatalf("save default: %d", r.status)
	}
	// 1. The default (view), and the one-write retrieval of an anonymous
	// visitor with no passphrase and no files.
	tok1 := owner.createPush(map[string]any{"payload": "first secret", "name": "the first"}, auth...)
	if got := visitor.get("/p/" + tok1 + ".json").obj(t)["payload"]; got != "first secret" {
		t.Fatalf("view: %v", got)
	}
	m := mp.Wait(t, "rcpt@example.com", 1, 10*time.Second)[0]
	if m.Subject != "Your push \u201cthe first\u201d was viewed" {
		t.Errorf("subject %q", m.Subject)
	}
	for _, leak := range []string{tok1, "first secret"} {
		if strings.Contains(m.Text, leak) || strings.Contains(m.HTML, leak) {
			t.Errorf("the receipt holds %q:\n%s", leak, m.Text)
		}
	}

	// 2. Wrong passphrases: one receipt for two; no view receipt when the
	// push asks for none.
	tok2 := owner.createPush(map[string]any{"payload": "second", "passphrase": "open sesame", "name": "the second",
		"receipt_on_view": false, "receipt_on_failed_passphrase": true}, auth...)
	for range 2 {
		if r := visitor.get("/p/" + tok2 + ".json?passphrase=wrong"); r.status == http.StatusOK && strings.Contains(r.body, `"payload":"second"`) {
			t.Fatal("a wrong passphrase opened the push")
		}
	}
	if r := visitor.get("/p/" + tok2 + ".json?passphrase=open+sesame"); !strings.Contains(r.body, `"payload":"second"`) {
		t.Fatalf("right passphrase: %d %s", r.status, r.body)
	}

	// 3. Expiry by the last view (one-write path), and by hand.
	tok3 := owner.createPush(map[string]any{"payload": "third", "name": "the third", "expire_after_views": 1,
		"receipt_on_view": false, "receipt_on_expire": true}, auth...)
	visitor.get("/p/" + tok3 + ".json")
	tok4 := owner.createPush(map[string]any{"payload": "fourth", "name": "the fourth", "receipt_on_expire": true,
		"receipt_on_view": false}, auth...)
	if r := owner.do("DELETE", "/api/v2/pushes/"+tok4, nil, auth...); r.status != http.StatusOK {
		t.Fatalf("expire: %d %s", r.status, r.body)
	}
	// 4. The web form states each receipt: none ticked, none sent.
	if r := owner.form("/", url.Values{"kind": {"text"}, "payload": {"fifth"}, "name": {"the fifth"}}); r.status != http.StatusSeeOther {
		t.Fatalf("web create: %d %.300s", r.status, r.body)
	} else {
		tok5 := strings.TrimPrefix(strings.TrimSuffix(r.header.Get("Location"), "/preview"), "/p/")
		visitor.get("/p/" + tok5 + ".json")
	}

	got := mp.Wait(t, "rcpt@example.com", 4, 10*time.Second)
	time.Sleep(500 * time.Millisecond)
	got = mp.To(t, "rcpt@example.com")
	var subjects []string
	for _, m := range got {
		subjects = append(subjects, m.Subject)
	}
	want := []string{"Your push \u201cthe first\u201d was viewed", "A wrong passphrase was tried on your push \u201cthe second\u201d",
		"Your push \u201cthe third\u201d has expired", "Your push \u201cthe fourth\u201d has expired"}
	if strings.Join(subjects, "|") != strings.Join(want, "|") {
		t.Errorf("receipts:\n%s\nwant:\n%s", strings.Join(subjects, "\n"), strings.Join(want, "\n"))
	}
	// Anonymous pushes cannot ask for receipts.
	if r := visitor.json("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "x",
		"receipt_on_view": true}}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("anonymous receipt: %d %s", r.status, r.body)
	}
}

// PWP__ENABLE_USER_ACCOUNT_EMAILS and PWP__SIGNUP_EMAIL_REGEXP: a new
// account signs in only once its address is confirmed by a link that
// works once; an address outside the pattern cannot sign up.
func TestEmailConfirmAccounts(t *testing.T) {
	srv, mp, _ := mailServe(t, map[string]string{"PWP__ENABLE_USER_ACCOUNT_EMAILS": "true",
		"PWP__SIGNUP_EMAIL_REGEXP": `@example\.com\z`})
	p := newPeer(t, srv.url, 1)
	signUp := func(email string) reply {
		return p.form("/users/sign_up", url.Values{"email": {email}, "password": {"password new"}, "password_confirmation": {"password new"}})
	}
	if r := signUp("someone@other.org"); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "limited to certain email addresses") {
		t.Errorf("an address outside the pattern: %d %.300s", r.status, r.body)
	}
	if r := signUp("someone@example.com.evil.org"); r.status != http.StatusUnprocessableEntity {
		t.Errorf("an address that only contains the pattern: %d", r.status)
	}
	if r := signUp("new@example.com"); r.status != http.StatusOK || !strings.Contains(r.body, "Confirm your email address") {
		t.Fatalf("sign up: %d %.300s", r.status, r.body)
	}
	if who := p.whoAmI(); who != "" {
		t.Errorf("signed in before confirming: %s", who)
	}
	if r := p.signIn("new@example.com", "password new"); r.status == http.StatusSeeOther || !strings.Contains(r.body, "confirm your email address") {
		t.Errorf("sign in before confirming: %d %.300s", r.status, r.body)
	}
	first := linkIn(t, mp.Wait(t, "new@example.com", 1, 10*time.Second)[0], "/users/confirmation?")
	// Asking again sends a new link; the first stops working.
	if r := p.form("/users/confirmation/new", url.Values{"email": {"new@example.com"}}); r.status != http.StatusOK {
		t.Fatalf("ask again: %d", r.status)
	}
	second := linkIn(t, mp.Wait(t, "new@example.com", 2, 10*time.Second)[1], "/users/confirmation?")
	// Opening a link shows a button and changes nothing: a mail scanner
	// that follows it (twice, here) does not use it up.
	press := func(link string) reply {
		t.Helper()
		u, _ := url.Parse(link)
		for i := 0; i < 2; i++ {
			if r := p.get(u.RequestURI()); r.status != http.StatusOK || !strings.Contains(r.body, `id="confirm-address"`) {
				t.Fatalf("open %s: %d %.300s", link, r.status, r.body)
			}
		}
		return p.form("/users/confirmation", url.Values{"confirmation_token": {u.Query().Get("confirmation_token")},
			"password": {"password new"}})
	}
	if r := press(first); r.status != http.StatusNotFound {
		t.Errorf("the replaced link: %d", r.status)
	}
	if r := press(second); r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard" {
		t.Fatalf("confirm: %d %q %.300s", r.status, r.header.Get("Location"), r.body)
	}
	if who := p.whoAmI(); who != "new@example.com" {
		t.Errorf("after confirming, signed in as %q", who)
	}
	if r := press(second); r.status != http.StatusNotFound {
		t.Errorf("the link a second time: %d", r.status)
	}
	if r := p.signIn("new@example.com", "password new"); r.status != http.StatusSeeOther {
		t.Errorf("sign in after confirming: %d %.300s", r.status, r.body)
	}
	// A confirmed account, or none, is sent nothing more.
	p.form("/users/confirmation/new", url.Values{"email": {"new@example.com"}})
	p.form("/users/confirmation/new", url.Values{"email": {"ghost@example.com"}})
	time.Sleep(500 * time.Millisecond)
	if n := mp.Count(t); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}
}

// holdingSMTP accepts connections and says nothing: a delivery to it
// hangs until its timeout.
func holdingSMTP(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// The outbox survives a restart: a message whose delivery was cut short
// by the server's stop is given back, and the next start delivers it.
func TestEmailOutboxSurvivesRestart(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	env := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_ADDR": addr, "HUSH_BASE_URL": "http://" + addr, "PWP__MAIL__SMTP_ADDRESS": "127.0.0.1",
		"PWP__MAIL__SMTP_PORT": strconv.Itoa(holdingSMTP(t)), "PWP__MAIL__MAILER_SENDER": "hush@example.com",
		"HUSH_SMTP_READ_TIMEOUT": "30", "PWP__MAIL__SMTP_OPEN_TIMEOUT": "30"}
	srv := startServe(t, env)
	p := newPeer(t, srv.url, 1)
	p.signUp("durable@example.com", "password durable")
	// A request never waits for the SMTP server (here silent for 30 s).
	asked := time.Now()
	if r := p.form("/users/password/new", url.Values{"email": {"durable@example.com"}}); r.status != http.StatusOK {
		t.Fatalf("reset: %d", r.status)
	}
	if d := time.Since(asked); d > 3*time.Second {
		t.Errorf("the reset request took %v", d)
	}
	time.Sleep(300 * time.Millisecond) // the worker is now waiting on the silent server
	start := time.Now()
	if code := srv.stop(t); code != 0 {
		t.Fatalf("stop: %d\n%s", code, srv.log.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the stop waited %v for the delivery", d)
	}
	db := rawDB(t, withDB(t, env))
	var attempts, n int
	if err := db.QueryRow(`SELECT COUNT(*), COALESCE(MAX(attempts), 0) FROM outbox WHERE failed = 0 AND lease_until = 0`).Scan(&n, &attempts); err != nil {
		t.Fatal(err)
	}
	if n != 1 || attempts != 0 {
		t.Errorf("after the stop: %d messages given back, attempts %d; want 1, 0", n, attempts)
	}
	db.Close()

	mp := mailtest.Start(t, mailtest.Options{})
	env["PWP__MAIL__SMTP_PORT"] = strconv.Itoa(mp.Port)
	startServe(t, env)
	m := mp.Wait(t, "durable@example.com", 1, 10*time.Second)[0]
	if m.Subject != "Reset your Hush password" {
		t.Errorf("subject %q", m.Subject)
	}
}

// hush user set-password: the password comes from stdin, never an
// argument; the rules apply; an unknown address is named.
func TestUserSetPassword(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "setpw@example.com", "--password", "password first"); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"password second\n", []string{"--email", "nobody@example.com"}, "no user with email nobody@example.com"},
		{"short\n", []string{"--email", "setpw@example.com"}, "at least"},
		{"", []string{"--email", "setpw@example.com"}, "no password on stdin"},
		{"password second\n", nil, "--email is required"},
		{"password second\n", []string{"--email", "setpw@example.com", "--password", "x"}, "flag provided but not defined"},
	} {
		code, _, errOut := run(t, env, tc.stdin, append([]string{"user", "set-password"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v with %q: %d %q, want %q", tc.args, tc.stdin, code, errOut, tc.want)
		}
	}
	code, out, errOut := run(t, env, "password second\r\n", "user", "set-password", "--email", "SetPW@example.com")
	if code != 0 || !strings.Contains(out, "set a new password for setpw@example.com") {
		t.Fatalf("set-password: %d %q %q", code, out, errOut)
	}
	srv := startServe(t, env)
	p := newPeer(t, srv.url, 1)
	if r := p.signIn("setpw@example.com", "password first"); r.status == http.StatusSeeOther {
		t.Error("the old password still works")
	}
	if r := p.signIn("setpw@example.com", "password second"); r.status != http.StatusSeeOther {
		t.Errorf("the new password: %d", r.status)
	}
}

// A delivery's failure shows in the log (without the address or the
// link) and in the metrics; so does a success.
func TestEmailFailuresInLogAndMetrics(t *testing.T) {
	mp := mailtest.Start(t, mailtest.Options{Chaos: true})
	maddr, addr := freeAddr(t), freeAddr(t)
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_METRICS_ADDR": maddr, "HUSH_SWEEP_INTERVAL": "1s",
		"HUSH_ADDR": addr, "HUSH_BASE_URL": "http://" + addr,
		"HUSH_SMTP_ADDRESS": mp.Host, "HUSH_SMTP_PORT": strconv.Itoa(mp.Port), "HUSH_SMTP_FROM": "hush@example.com"})
	p := newPeer(t, srv.url, 1)
	p.signUp("metered@example.com", "password metered")
	mp.SetFailure(t, 550)
	p.form("/users/password/new", url.Values{"email": {"metered@example.com"}})
	metrics := func(want ...string) string {
		t.Helper()
		var text string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			_, text = get(t, "http://"+maddr+"/metrics")
			all := true
			for _, w := range want {
				all = all && strings.Contains(text, w)
			}
			if all {
				return text
			}
		}
		t.Errorf("metrics lack %q:\n%s", want, grepLines(text, "hush_outbox"))
		return text
	}
	metrics(`hush_outbox_deliveries_total{kind="password_reset",result="failed"} 1`, `hush_outbox_messages{state="failed"} 1`)
	log := srv.log.String()
	if !strings.Contains(log, "outbox: a message could not be delivered and is given up") || !strings.Contains(log, "kind=password_reset") {
		t.Errorf("no failure in the log:\n%s", log)
	}
	if strings.Contains(log, "metered@example.com") || strings.Contains(log, "reset_password_token") {
		t.Errorf("the log names the address or the link:\n%s", grepLines(log, "outbox"))
	}
	mp.SetFailure(t, 0)
	p.form("/users/password/new", url.Values{"email": {"metered@example.com"}})
	mp.Wait(t, "metered@example.com", 1, 10*time.Second)
	metrics(`hush_outbox_deliveries_total{kind="password_reset",result="sent"} 1`, `hush_outbox_messages{state="pending"} 0`)
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Password reset poisoning: a reset asked for with another site's name in
// the Host header still emails a link to the instance (HUSH_BASE_URL),
// and serve refuses to send email without one.
func TestEmailResetHostHeader(t *testing.T) {
	srv, mp, env := mailServe(t, nil)
	newPeer(t, srv.url, 1).signUp("victim@example.com", "password victim")
	req, _ := http.NewRequest(http.MethodPost, srv.url+"/users/password/new", strings.NewReader("email=victim%40example.com"))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Host", "evil.example")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reset: %d", res.StatusCode)
	}
	m := mp.Wait(t, "victim@example.com", 1, 10*time.Second)[0]
	link := linkIn(t, m, "/users/password/edit")
	if !strings.HasPrefix(link, env["HUSH_BASE_URL"]+"/") || strings.Contains(m.Text+m.HTML, "evil.example") {
		t.Errorf("the link names %s:\n%s", link, m.Text)
	}
	delete(env, "HUSH_BASE_URL")
	env["HUSH_ADDR"] = "127.0.0.1:0"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errOut syncBuffer
	code := Main(ctx, []string{"hush", "serve"}, envFrom(withDB(t, env)), strings.NewReader(""), io.Discard, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "needs HUSH_BASE_URL") {
		t.Errorf("serve with email and no base URL: %d %q", code, errOut.String())
	}
}

// The time of a reset request tells nothing about the address: the
// request only queues, for any address (best of 5 each, within 3× or
// 2 ms, below which a loaded machine's noise is larger than any lookup).
func TestEmailResetTimeTellsNothing(t *testing.T) {
	srv, _, _ := mailServe(t, nil)
	for i := range 5 {
		newPeer(t, srv.url, 100+i).signUp("known"+strconv.Itoa(i)+"@example.com", "password known")
	}
	best := map[string]time.Duration{}
	for i := range 5 {
		for j, who := range []string{"known", "nobody"} {
			p := newPeer(t, srv.url, 10+2*i+j)
			start := time.Now()
			r := p.form("/users/password/new", url.Values{"email": {who + strconv.Itoa(i) + "@example.com"}})
			d := time.Since(start)
			if r.status != http.StatusOK {
				t.Fatalf("%s: %d", who, r.status)
			}
			if b, ok := best[who]; !ok || d < b {
				best[who] = d
			}
		}
	}
	t.Logf("reset request, best of 5: %v", best)
	if a, b := best["known"], best["nobody"]; (a > 3*b || b > 3*a) && max(a, b)-min(a, b) > 2*time.Millisecond {
		t.Errorf("reset times differ by more than 3×: %v", best)
	}
}
