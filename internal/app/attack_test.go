package app

// The attacks of the security review, replayed against the running
// program: every request goes over HTTP to `hush serve`, from real client
// addresses (loopback addresses 127.0.0.0/8, each its own client), with
// real concurrency. Each test fails on the code the review attacked.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/client"
	"hush/internal/testdb"
)

// peer is an HTTP client at its own address, with its own cookies.
type peer struct {
	t    *testing.T
	base string
	addr string
	c    *http.Client
}

// newPeer returns a client whose connections come from 127.0.0.n (n ≥ 2;
// 127.0.0.1 is the test process's default address) or, for n above 254,
// from further loopback networks.
func newPeer(t *testing.T, base string, n int) *peer {
	t.Helper()
	ip := net.IPv4(127, 0, byte(n/250), byte(2+n%250))
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 10 * time.Second}
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	return &peer{t: t, base: base, addr: ip.String(), c: &http.Client{Jar: jar, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// reply is a response with its body read.
type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("not a JSON object (%d): %.200s", r.status, r.body)
	}
	return m
}

func (p *peer) do(method, path string, body io.Reader, hdr ...string) reply {
	p.t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	res, err := (&client.Client{Base: p.base, HTTP: p.c}).Do(context.Background(), method, path, body, h)
	if err != nil {
		p.t.Errorf("%s %s: %v", method, path, err)
		return reply{}
	}
	return reply{res.Status, res.Header, string(res.Body)}
}

func (p *peer) get(path string, hdr ...string) reply { return p.do("GET", path, nil, hdr...) }

func (p *peer) form(path string, vals url.Values) reply {
	return p.do("POST", path, strings.NewReader(vals.Encode()), "Content-Type", "application/x-www-form-urlencoded")
}

func (p *peer) json(method, path string, body any, hdr ...string) reply {
	b, _ := json.Marshal(body)
	return p.do(method, path, bytes.NewReader(b), append([]string{"Content-Type", "application/json"}, hdr...)...)
}

// createPush creates a push through the API and returns its url_token.
func (p *peer) createPush(fields map[string]any, hdr ...string) string {
	p.t.Helper()
	r := p.json("POST", "/api/v2/pushes", map[string]any{"push": fields}, hdr...)
	if r.status != http.StatusCreated {
		p.t.Fatalf("create %v: %d %s", fields, r.status, r.body)
	}
	return r.obj(p.t)["url_token"].(string)
}

// signUp creates an account through the web form and stays signed in.
func (p *peer) signUp(email, password string) {
	p.t.Helper()
	r := p.form("/users/sign_up", url.Values{"email": {email}, "password": {password}, "password_confirmation": {password}})
	if r.status != http.StatusSeeOther {
		p.t.Fatalf("sign up %s: %d %.300s", email, r.status, r.body)
	}
}

func (p *peer) signIn(email, password string) reply {
	return p.form("/users/sign_in", url.Values{"email": {email}, "password": {password}})
}

// whoAmI returns the email the account page shows, or "" when the client
// is not signed in.
func (p *peer) whoAmI() string {
	p.t.Helper()
	r := p.get("/users/edit")
	if r.status != http.StatusOK {
		return ""
	}
	m := regexp.MustCompile(`Signed in as ([^<\s]+)\.</p>`).FindStringSubmatch(r.body)
	if m == nil {
		// A page that no longer says it would make every "signed out"
		// check of the attack tests pass for nothing.
		p.t.Errorf("the account page does not say who is signed in: %.300s", r.body)
		return ""
	}
	return m[1]
}

// counts tallies the statuses of concurrent requests.
type counts struct {
	mu sync.Mutex
	by map[int]int
}

func (c *counts) add(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[int]int{}
	}
	c.by[status]++
}

func (c *counts) get(status int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.by[status]
}

// burst runs n requests at once, the i-th made by fn(i).
func burst(n int, fn func(i int) int) *counts {
	c := &counts{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c.add(fn(i))
		}()
	}
	close(start)
	wg.Wait()
	return c
}

// H1: after an account is deleted, its other sessions must not become the
// next account's. Also L1: a password change ends the other sessions.
func TestAttackAccountTakeoverThroughReusedIDs(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir}
	srv := startServe(t, env)
	first, second := newPeer(t, srv.url, 1), newPeer(t, srv.url, 2)

	// Two users, so that the victim-to-be holds the highest id.
	newPeer(t, srv.url, 3).signUp("early@example.com", "password early")
	first.signUp("attacker@example.com", "password one")
	if r := second.signIn("attacker@example.com", "password one"); r.status != http.StatusSeeOther {
		t.Fatalf("second sign-in: %d", r.status)
	}
	r := first.form("/users/delete", url.Values{"current_password": {"password one"}, "confirm": {"yes"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "has been deleted") {
		t.Fatalf("delete account: %d", r.status)
	}
	// The next account, from the sign-up page and from the CLI.
	victim := newPeer(t, srv.url, 4)
	victim.signUp("victim@example.com", "password victim")
	victimTok := victim.createPush(map[string]any{"payload": "victim's secret", "note": "victim's note"},
		"Authorization", "Bearer "+apiTokenOf(t, victim))
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "cli@example.com", "--password", "password cli"); code != 0 {
		t.Fatal(errOut)
	}

	if who := second.whoAmI(); who != "" {
		t.Fatalf("the deleted account's other session is signed in as %q", who)
	}
	if r := second.get("/dashboard"); r.status != http.StatusSeeOther || strings.Contains(r.body, "victim") {
		t.Fatalf("the deleted account's session reads a dashboard: %d", r.status)
	}
	if r := second.get("/users/token"); r.status != http.StatusSeeOther {
		t.Fatalf("the deleted account's session reaches the token page: %d", r.status)
	}
	if r := second.get("/p/" + victimTok + "/audit"); r.status == http.StatusOK {
		t.Fatal("the deleted account's session reads the victim's audit log")
	}

	// L1: a password change signs out every other session.
	laptop, phone := newPeer(t, srv.url, 5), newPeer(t, srv.url, 6)
	laptop.signUp("owner@example.com", "password old")
	phone.signIn("owner@example.com", "password old")
	if phone.whoAmI() != "owner@example.com" {
		t.Fatal("the second session is not signed in")
	}
	r = laptop.form("/users/password", url.Values{"current_password": {"password old"},
		"password": {"password new"}, "password_confirmation": {"password new"}})
	if r.status != http.StatusOK {
		t.Fatalf("change password: %d", r.status)
	}
	if who := phone.whoAmI(); who != "" {
		t.Fatalf("a session survived the password change (signed in as %q)", who)
	}
	if who := laptop.whoAmI(); who != "owner@example.com" {
		t.Fatalf("the session that changed the password was signed out (%q)", who)
	}
}

// apiTokenOf creates an API token on the token page (the page makes none
// when opened) and returns it.
func apiTokenOf(t *testing.T, p *peer) string {
	t.Helper()
	r := p.form("/users/token", url.Values{"confirm": {"yes"}})
	m := regexp.MustCompile(`id="token" value="([A-Za-z0-9_-]{20,})"`).FindStringSubmatch(r.body)
	if m == nil {
		t.Fatalf("no token on the token page (%d): %.500s", r.status, r.body)
	}
	return m[1]
}

// M1: concurrent wrong guesses are all counted before any is evaluated,
// through every route a passphrase can be tried on, from one client and
// from several.
func TestAttackConcurrentPassphraseGuesses(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	owner := newPeer(t, srv.url, 1)
	fresh := func() string {
		return owner.createPush(map[string]any{"payload": "behind the door", "passphrase": "right one",
			"expire_after_views": 100, "retrieval_step": false})
	}
	routes := map[string]func(p *peer, tok, pass string) int{
		"API v2": func(p *peer, tok, pass string) int {
			return p.get("/api/v2/pushes/" + tok + "?passphrase=" + url.QueryEscape(pass)).status
		},
		"API v1": func(p *peer, tok, pass string) int {
			return p.get("/p/" + tok + ".json?passphrase=" + url.QueryEscape(pass)).status
		},
		"web form": func(p *peer, tok, pass string) int {
			r := p.form("/p/"+tok+"/passphrase", url.Values{"passphrase": {pass}})
			if r.status == http.StatusOK && !strings.Contains(r.body, "behind the door") {
				return http.StatusUnauthorized
			}
			return r.status
		},
	}
	for name, try := range routes {
		t.Run(name, func(t *testing.T) {
			// One client, 60 at once, a right guess among them: 5 evaluated.
			tok := fresh()
			one := newPeer(t, srv.url, 10)
			c := burst(60, func(i int) int {
				pass := "wrong guess"
				if i == 59 {
					pass = "right one"
				}
				return try(one, tok, pass)
			})
			// At most 5 failures; a right guess that got a slot opens the
			// push and gives its slot back.
			if c.get(401) > 5 || c.get(200) > 1 || c.get(429) < 54 {
				t.Fatalf("one client, 60 at once: 401 %d, 200 %d, 429 %d; want at most 5 failures evaluated",
					c.get(401), c.get(200), c.get(429))
			}
			// Four clients, 50 at once each: 20 evaluated for the push.
			tok = fresh()
			peers := []*peer{newPeer(t, srv.url, 11), newPeer(t, srv.url, 12), newPeer(t, srv.url, 13), newPeer(t, srv.url, 14)}
			c = burst(200, func(i int) int { return try(peers[i%4], tok, "wrong guess") })
			if c.get(401) > 20 {
				t.Fatalf("4 clients × 50 at once: %d evaluated, want at most 20", c.get(401))
			}
		})
	}
}

// A push's views are spent exactly, whichever routes its readers take at
// once: the API's retrievals (v2 and v1) claim by the link's key, reading
// the row and then choosing a claim for a view with views to come or for
// the last one; the web page claims by the push's id and the count it
// showed. 48 readers from six addresses, over all three routes, of pushes
// of 1 and 3 views: exactly that many carry the payload, and the push
// ends expired with its payload gone.
func TestAttackViewLimitAcrossRoutes(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	owner := newPeer(t, srv.url, 1)
	var readers []*peer
	for n := range 6 {
		readers = append(readers, newPeer(t, srv.url, 20+n))
	}
	routes := []func(tok string) string{
		func(tok string) string { return "/api/v2/pushes/" + tok },
		func(tok string) string { return "/p/" + tok + ".json" },
		func(tok string) string { return "/p/" + tok },
	}
	const secret = "spent-exactly-once-per-view"
	for i, route := range routes { // each route serves the payload on its own
		tok := owner.createPush(map[string]any{"payload": secret, "expire_after_views": 1, "retrieval_step": false})
		if r := readers[i].get(route(tok)); r.status != http.StatusOK || !strings.Contains(r.body, secret) {
			t.Fatalf("GET %s alone: %d %.300s", route("TOKEN"), r.status, r.body)
		}
	}
	for _, views := range []int{1, 3} {
		for round := range 10 {
			tok := owner.createPush(map[string]any{"payload": secret, "expire_after_views": views, "retrieval_step": false})
			var served atomic.Int32
			c := burst(48, func(i int) int {
				r := readers[i%len(readers)].get(routes[i%len(routes)](tok))
				if strings.Contains(r.body, secret) {
					served.Add(1)
				}
				return r.status
			})
			if got := int(served.Load()); got != views {
				t.Fatalf("%d-view push, round %d: payload served %d times over API v2, v1 and the web page (statuses %v)",
					views, round, got, c.by)
			}
			for status := range c.by {
				if status >= 500 {
					t.Fatalf("%d-view push, round %d: statuses %v", views, round, c.by)
				}
			}
			if r := readers[0].get("/api/v2/pushes/" + tok); strings.Contains(r.body, secret) || r.obj(t)["expired"] != true {
				t.Fatalf("%d-view push, round %d, after the burst: %.300s", views, round, r.body)
			}
		}
	}
}

// M1 for sign-in: 50 concurrent wrong passwords from one client are
// evaluated at most 5 times.
func TestAttackConcurrentSignIns(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	newPeer(t, srv.url, 1).signUp("target@example.com", "the real password")
	attacker := newPeer(t, srv.url, 2)
	c := burst(50, func(int) int { return attacker.signIn("target@example.com", "guess").status })
	if c.get(401) > 5 {
		t.Fatalf("50 concurrent sign-ins: %d evaluated, want at most 5 (429: %d)", c.get(401), c.get(429))
	}
	// L2: the stranger did not lock the owner out.
	if r := newPeer(t, srv.url, 3).signIn("target@example.com", "the real password"); r.status != http.StatusSeeOther {
		t.Fatalf("the owner, from another address, after a stranger's guesses: %d", r.status)
	}
}

// M2: requests that use no view — retrievals without the passphrase and
// downloads of a handed-out file link — must not fill the audit log so
// that the next real view finds the push expired.
func TestAttackAuditLogFlood(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": dir})
	admin := newPeer(t, srv.url, 1)
	apiTok := apiToken(t, map[string]string{"HUSH_DATA_DIR": dir}, "f@example.com", "password f")
	auth := []string{"Authorization", "Bearer " + apiTok}

	tok := admin.createPush(map[string]any{"payload": "guarded", "passphrase": "pw", "expire_after_views": 3})
	fileTok := admin.createPush(map[string]any{"payload": "with a file", "expire_after_views": 3,
		"files": []any{map[string]any{"filename": "a.txt", "content_base64": "aGVsbG8="}}}, auth...)
	link := admin.get("/api/v2/pushes/" + fileTok).obj(t)["files"].([]any)[0].(map[string]any)["url"].(string)
	link = strings.TrimPrefix(link, srv.url)

	// 2,100 of each, from 30 addresses, 30 at a time.
	peers := make([]*peer, 30)
	for i := range peers {
		peers[i] = newPeer(t, srv.url, 20+i)
	}
	for round := 0; round < 70; round++ {
		burst(30, func(i int) int { return peers[i].get("/api/v2/pushes/" + tok).status })
		burst(30, func(i int) int { return peers[i].get(link).status })
	}
	r := admin.get("/api/v2/pushes/" + tok + "?passphrase=pw").obj(t)
	if r["payload"] != "guarded" || r["expired"] != false {
		t.Fatalf("a real view after the flood: %v", r)
	}
	r = admin.get("/api/v2/pushes/" + fileTok).obj(t)
	if r["payload"] != "with a file" {
		t.Fatalf("a real view of the file push after the download flood: %v", r)
	}
}

// M3: an anonymous multipart body of huge field names is refused before it
// can take memory.
func TestAttackMultipartFieldNames(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	name := strings.Repeat("n", 1<<20)
	for range 48 {
		fw, _ := w.CreateFormField(name)
		fw.Write([]byte("v"))
	}
	w.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := newPeer(t, srv.url, 1).do("POST", "/api/v2/pushes", &body, "Content-Type", w.FormDataContentType())
	runtime.ReadMemStats(&after)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("48 MiB of field names: %d %.200s, want 413", r.status, r.body)
	}
	// The request body itself is 48 MiB; the server must not hold it.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 120<<20 {
		t.Errorf("the server allocated %d MiB for it", grew>>20)
	}
	// The same through the web form, with a body of its own: the client
	// may still be sending the first when the server's early 413 arrives.
	var form bytes.Buffer
	w = multipart.NewWriter(&form)
	for range 48 {
		fw, _ := w.CreateFormField(name)
		fw.Write([]byte("v"))
	}
	w.Close()
	if r := newPeer(t, srv.url, 2).do("POST", "/", &form, "Content-Type", w.FormDataContentType()); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("web form, 48 MiB of field names: %d, want 413", r.status)
	}
}

// M4: an anonymous multipart request gets the ordinary read timeout, not the
// upload deadline of a signed-in caller's files.
func TestAttackSlowAnonymousMultipart(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_READ_TIMEOUT": "1s"})
	for _, path := range []string{"/api/v2/pushes", "/"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 100000\r\n\r\n", path)
		fmt.Fprintf(c, "--B\r\nContent-Disposition: form-data; name=\"push[files][]\"; filename=\"a.txt\"\r\n\r\nslow")
		// Trickle a byte a second; the server must cut it at its read timeout.
		closed := make(chan struct{})
		go func() {
			io.Copy(io.Discard, c)
			close(closed)
		}()
		deadline := time.After(8 * time.Second)
	trickle:
		for {
			select {
			case <-closed:
				break trickle
			case <-deadline:
				t.Fatalf("%s: an anonymous multipart body is still being read after 8 s (read timeout 1 s)", path)
			case <-time.After(time.Second):
				c.Write([]byte("x"))
			}
		}
	}
}

// M5: a copy of the database holds no secret link, and with the master key
// it still reads no anonymous push.
func TestAttackStolenDatabase(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": strings.Repeat("c3", 32)}
	srv := startServe(t, env)
	p := newPeer(t, srv.url, 1)
	var toks []string
	for i := range 5 {
		toks = append(toks, p.createPush(map[string]any{"payload": fmt.Sprintf("secret number %d", i)}))
	}
	// Pushes made on the web form are remembered by the session (for their
	// preview page); an owned push keeps its link for its owner's lists.
	p.signUp("thief-proof@example.com", "password owner")
	for i := range 2 {
		r := p.form("/", url.Values{"kind": {"text"}, "payload": {fmt.Sprintf("secret number web%d", i)},
			"expire_after_days": {"1"}, "expire_after_views": {"1"}})
		m := regexp.MustCompile(`^/p/([^/]+)/preview$`).FindStringSubmatch(r.header.Get("Location"))
		if r.status != http.StatusSeeOther || m == nil {
			t.Fatalf("web create: %d %q", r.status, r.header.Get("Location"))
		}
		toks = append(toks, m[1])
	}
	srv.stop(t)
	db := rawDB(t, withDB(t, env))
	dump := dumpTables(t, db)
	for _, tok := range toks {
		if strings.Contains(dump, tok) || strings.Contains(dump, tok[8:]) {
			t.Fatalf("the database holds the link %s", tok)
		}
	}
	if strings.Contains(dump, "secret number") {
		t.Fatal("the database holds a payload in clear")
	}
}

// rawDB opens the database of a data directory (or HUSH_DATABASE_URL) as
// someone holding a copy would.
func rawDB(t *testing.T, env map[string]string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", filepath.Join(env["HUSH_DATA_DIR"], "hush.db")
	if u := env["HUSH_DATABASE_URL"]; u != "" {
		driver, dsn = "pgx", u
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// dumpTables returns the text and bytes of every column of every table.
func dumpTables(t *testing.T, db *sql.DB) string {
	return string(testdb.Dump(t, db, "pushes", "push_files", "audit_logs", "sessions", "meta", "users", "api_tokens"))
}

// L3: the whole-push cap says how long it really lasts.
func TestAttackWholePushCapMessage(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	tok := newPeer(t, srv.url, 1).createPush(map[string]any{"payload": "x", "passphrase": "right"})
	for i := range 20 {
		newPeer(t, srv.url, 10+i/5).get("/api/v2/pushes/" + tok + "?passphrase=wrong")
	}
	r := newPeer(t, srv.url, 30).get("/api/v2/pushes/" + tok + "?passphrase=right")
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("after 20 failures on the push: %d", r.status)
	}
	var secs int
	fmt.Sscan(r.header.Get("Retry-After"), &secs)
	msg := r.obj(t)["error"].(string)
	if secs < 3000 || !strings.Contains(msg, fmt.Sprintf("in %d minutes", (secs+59)/60)) {
		t.Fatalf("Retry-After %d s with %q: they disagree", secs, msg)
	}
}

// L4: the sign-up form cannot be used to sweep for accounts.
func TestAttackSignUpSweep(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	newPeer(t, srv.url, 1).signUp("known@example.com", "password known")
	sweeper := newPeer(t, srv.url, 2)
	taken := 0
	for i := range 20 {
		r := sweeper.form("/users/sign_up", url.Values{"email": {fmt.Sprintf("guess%d@example.com", i)},
			"password": {"password x"}, "password_confirmation": {"password x"}})
		if r.status == http.StatusSeeOther {
			sweeper = newPeer(t, srv.url, 2) // signed out again, same address
			continue
		}
		if r.status == http.StatusTooManyRequests {
			break
		}
		taken++
	}
	r := sweeper.form("/users/sign_up", url.Values{"email": {"known@example.com"},
		"password": {"password x"}, "password_confirmation": {"password x"}})
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("the 21st sign-up from one address asks about an address: %d", r.status)
	}
}

// L5: an IPv6 client is limited by its /64, not by each of its addresses.
func TestAttackIPv6Addresses(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_TRUSTED_PROXIES": "127.0.0.0/8"})
	p := newPeer(t, srv.url, 1)
	tok := p.createPush(map[string]any{"payload": "x", "passphrase": "right", "expire_after_views": 50})
	evaluated := 0
	for i := range 12 {
		r := p.get("/api/v2/pushes/"+tok+"?passphrase=wrong", "X-Forwarded-For", fmt.Sprintf("2001:db8:aa:bb::%x", i+1))
		if r.status == http.StatusUnauthorized {
			evaluated++
		}
	}
	if evaluated > 5 {
		t.Fatalf("12 addresses of one /64: %d guesses evaluated, want 5", evaluated)
	}
}

// L5 at the edge: the per-IP request limit counts an IPv6 /64 as one client.
func TestAttackIPv6AddressesAtTheEdge(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_TRUSTED_PROXIES": "127.0.0.0/8",
		"PWP__THROTTLING__MINUTE": "5", "PWP__THROTTLING__SECOND": "0"})
	p := newPeer(t, srv.url, 1)
	limited := 0
	for i := range 12 {
		if p.get("/api/v2/version", "X-Forwarded-For", fmt.Sprintf("2001:db8:cc:dd::%x", i+1)).status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited != 12-5 {
		t.Fatalf("12 requests from 12 addresses of one /64 with 5 a minute allowed: %d refused, want 7", limited)
	}
	if r := p.get("/api/v2/version", "X-Forwarded-For", "2001:db8:cc:de::1"); r.status != http.StatusOK {
		t.Fatalf("another /64: %d", r.status)
	}
}

// L6: a secret link never reaches the request log, whatever the path's shape.
func TestAttackNonCanonicalPathsInLog(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	p := newPeer(t, srv.url, 1)
	tok := p.createPush(map[string]any{"payload": "x", "expire_after_views": 50})
	for _, path := range []string{"//p/" + tok, "/api/v2//pushes/" + tok, "/p//" + tok + "/r", "/p/./" + tok,
		"/x/../p/" + tok, "//api/v2/pushes/" + tok + "/preview", "/P/" + tok, "/api/v9/pushes/" + tok} {
		p.get(path)
	}
	srv.stop(t)
	if strings.Contains(srv.log.String(), tok) || strings.Contains(srv.log.String(), tok[8:]) {
		t.Fatalf("the log holds the link:\n%s", srv.log.String())
	}
}

// L7: a QR payload that cannot be drawn is refused when created.
func TestAttackUndrawableQR(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	r := newPeer(t, srv.url, 1).json("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{
		"kind": "qr", "payload": strings.Repeat("😀", 1000)}})
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a QR payload of 4,000 bytes: %d %s, want 422", r.status, r.body)
	}
}

// L8: made-up methods add no metric series, even on the responses that
// never reach a router (the request rate limit's 429s).
func TestAttackMetricLabelsOfMethods(t *testing.T) {
	maddr := freeAddr(t)
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_METRICS_ADDR": maddr,
		"PWP__THROTTLING__MINUTE": "1", "PWP__THROTTLING__SECOND": "1"})
	p := newPeer(t, srv.url, 1)
	for i := range 60 {
		for _, path := range []string{"/", "/dashboard", "/users/sign_in", "/static/style.css", "/api/v2/version"} {
			p.do(fmt.Sprintf("M%dX", i), path, nil)
		}
	}
	_, text := get(t, "http://"+maddr+"/metrics")
	if regexp.MustCompile(`M\d+X`).MatchString(text) {
		t.Fatal("a made-up method became a metric label")
	}
}

// L9: a key rotation cut short must not leave serve starting with only
// the new key while data still needs the old one.
func TestAttackRotationCutShort(t *testing.T) {
	dir := t.TempDir()
	keyA, keyB := strings.Repeat("a7", 32), strings.Repeat("b8", 32)
	envA := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyA}
	srv := startServe(t, envA)
	p := newPeer(t, srv.url, 1)
	var toks []string
	for i := range 3 {
		toks = append(toks, p.createPush(map[string]any{"payload": fmt.Sprintf("p%d", i)}))
	}
	srv.stop(t)
	// The last push's payload is damaged: rotation stops there.
	db := rawDB(t, withDB(t, envA))
	if _, err := db.Exec(`UPDATE pushes SET payload = $1 WHERE id = (SELECT MAX(id) FROM pushes)`, []byte("damaged")); err != nil {
		t.Fatal(err)
	}
	rot := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB, "HUSH_MASTER_KEY_PREVIOUS": keyA}
	if code, _, _ := run(t, rot, "", "key", "rotate"); code == 0 {
		t.Fatal("rotation over a damaged value succeeded")
	}
	onlyB := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB, "HUSH_ADDR": "127.0.0.1:0"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errOut syncBuffer
	code := Main(ctx, []string{"hush", "serve"}, envFrom(withDB(t, onlyB)), strings.NewReader(""), io.Discard, &errOut)
	if code == 0 || !strings.Contains(errOut.String(), "does not match") {
		t.Fatalf("serve with the new key alone after a rotation cut short: exit %d\n%s", code, errOut.String())
	}
}

// L10: with sign-ins disabled, sign-up does not hand out a signed-in session.
func TestAttackSignUpWhileLoginsDisabled(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "PWP__DISABLE_LOGINS": "true"})
	p := newPeer(t, srv.url, 1)
	r := p.form("/users/sign_up", url.Values{"email": {"x@example.com"}, "password": {"password x"}, "password_confirmation": {"password x"}})
	if r.status == http.StatusSeeOther || p.whoAmI() != "" {
		t.Fatalf("sign-up with logins disabled: %d, signed in as %q", r.status, p.whoAmI())
	}
	if r := p.get("/users/token"); r.status == http.StatusOK {
		t.Fatal("the token page is reachable with logins disabled")
	}
}

// The master key file readable by others is warned about at start.
func TestAttackReadableMasterKeyFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(strings.Repeat("ab", 32)), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY_FILE": keyFile})
	if !strings.Contains(srv.log.String(), "can be read by other users") {
		t.Fatalf("no warning about a 0644 master key file:\n%s", srv.log.String())
	}
}
