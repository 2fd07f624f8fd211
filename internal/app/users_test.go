package app

import (
	"bytes"
	"fmt"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"hush/internal/config"
	"hush/internal/testdb"
)

// userID is the account id of email as hush user list prints it.
func userID(t *testing.T, env map[string]string, email string) string {
	t.Helper()
	code, out, errOut := run(t, env, "", "user", "list", "--query", email)
	if code != 0 {
		t.Fatalf("user list: %d %q", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == email {
			return f[0]
		}
	}
	t.Fatalf("%s not in the list:\n%s", email, out)
	return ""
}

// blobCount is the number of files in the data directory's file store.
func blobCount(t *testing.T, env map[string]string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(env["HUSH_DATA_DIR"], "files"), func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// apiStatus is the status of an API call with the token.
func apiStatus(p *peer, token string) int {
	return p.get("/api/v2/pushes/active", "Authorization", "Bearer "+token).status
}

// TestAdminEndToEnd runs the admin CLI and the admin pages against the
// running program: an admin made on the command line, a user whose session
// and token stop at once when disabled (from the pages, and from the
// command line while serve runs), a non-admin refused on every admin route,
// the admin log naming who did what, and demotion taking effect at the
// demoted admin's next request.
func TestAdminEndToEnd(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_MASTER_KEY": strings.Repeat("5a", 32)}
	srv := startServe(t, env)
	if code, out, errOut := run(t, env, "", "user", "create", "--admin", "--email", "root@example.com", "--password", "root password 1"); code != 0 || !strings.Contains(out, "(administrator)") {
		t.Fatalf("user create --admin: %d %q %q", code, out, errOut)
	}
	admin := newPeer(t, srv.url, 1)
	if r := admin.signIn("root@example.com", "root password 1"); r.status != http.StatusSeeOther {
		t.Fatalf("admin sign-in: %d", r.status)
	}
	bob := newPeer(t, srv.url, 2)
	bob.signUp("bob@example.com", "bob password 1")
	tok := bob.form("/users/token", nil)
	m := regexp.MustCompile(`id="token" value="([^"]+)"`).FindStringSubmatch(tok.body)
	if m == nil {
		t.Fatalf("no token: %d", tok.status)
	}
	bobToken := m[1]
	if s := apiStatus(bob, bobToken); s != http.StatusOK {
		t.Fatalf("bob's token: %d", s)
	}
	bobID := userID(t, env, "bob@example.com")
	var upload bytes.Buffer
	mw := multipart.NewWriter(&upload)
	mw.WriteField("push[payload]", "the file")
	fw, _ := mw.CreateFormFile("push[files][]", "bob.txt")
	fw.Write([]byte("bob's file"))
	mw.Close()
	if r := bob.do("POST", "/api/v2/pushes", &upload, "Content-Type", mw.FormDataContentType(), "Authorization", "Bearer "+bobToken); r.status != http.StatusCreated {
		t.Fatalf("bob's file push: %d %s", r.status, r.body)
	}
	if n := blobCount(t, env); n != 1 {
		t.Fatalf("%d blobs in the file store, want bob's file", n)
	}

	// bob is no admin: every admin route, GET and POST, is refused.
	for _, p := range []string{"/admin", "/admin/users", "/admin/users/" + bobID, "/admin/log"} {
		if r := bob.get(p); r.status != http.StatusForbidden {
			t.Errorf("non-admin GET %s: %d", p, r.status)
		}
	}
	for _, a := range []string{"disable", "enable", "delete", "promote", "demote", "revoke_sessions", "revoke_token", "reset_two_factor"} {
		if r := bob.form("/admin/users/1/"+a, url.Values{"confirm": {"yes"}}); r.status != http.StatusForbidden {
			t.Errorf("non-admin POST %s: %d", a, r.status)
		}
	}

	// The overview shows the settings without the master key.
	ov := admin.get("/admin")
	if ov.status != http.StatusOK || !strings.Contains(ov.body, "HUSH_MASTER_KEY") || strings.Contains(ov.body, strings.Repeat("5a", 32)) {
		t.Fatalf("admin overview: %d, master key shown or absent", ov.status)
	}
	// Disabling asks first; confirmed, bob's session and token stop at once.
	ask := admin.form("/admin/users/"+bobID+"/disable", nil)
	if ask.status != http.StatusOK || !strings.Contains(ask.body, `name="confirm" value="yes"`) {
		t.Fatalf("unconfirmed disable: %d", ask.status)
	}
	if s := apiStatus(bob, bobToken); s != http.StatusOK {
		t.Fatalf("bob's token after an unconfirmed disable: %d", s)
	}
	if r := admin.form("/admin/users/"+bobID+"/disable", url.Values{"confirm": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("disable: %d", r.status)
	}
	if r := bob.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("bob's session after disable: %d", r.status)
	}
	if s := apiStatus(bob, bobToken); s != http.StatusUnauthorized {
		t.Errorf("bob's token after disable: %d", s)
	}
	if r := bob.signIn("bob@example.com", "bob password 1"); r.status == http.StatusSeeOther {
		t.Error("a disabled account signed in")
	}
	if code, out, _ := run(t, env, "", "user", "list"); code != 0 || !regexp.MustCompile(`bob@example\.com\s+\S+\s+disabled,token`).MatchString(out) {
		t.Errorf("user list after disable: %d\n%s", code, out)
	}

	// Enabled on the command line: the token works again, the session
	// stays ended; then disabled on the command line mid-session.
	if code, _, errOut := run(t, env, "", "user", "enable", "--email", "bob@example.com"); code != 0 {
		t.Fatalf("user enable: %d %q", code, errOut)
	}
	if s := apiStatus(bob, bobToken); s != http.StatusOK {
		t.Errorf("bob's token after enable: %d", s)
	}
	if r := bob.signIn("bob@example.com", "bob password 1"); r.status != http.StatusSeeOther {
		t.Fatalf("sign-in after enable: %d", r.status)
	}
	if r := bob.get("/dashboard"); r.status != http.StatusOK {
		t.Fatalf("bob's new session: %d", r.status)
	}
	if code, _, errOut := run(t, env, "", "user", "disable", "--email", "bob@example.com"); code != 0 {
		t.Fatalf("user disable: %d %q", code, errOut)
	}
	if r := bob.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Errorf("bob's session after user disable: %d", r.status)
	}
	if s := apiStatus(bob, bobToken); s != http.StatusUnauthorized {
		t.Errorf("bob's token after user disable: %d", s)
	}

	// Delete needs --yes; unknown accounts and verbs fail.
	if code, _, errOut := run(t, env, "", "user", "delete", "--email", "bob@example.com"); code != 1 || !strings.Contains(errOut, "--yes") {
		t.Errorf("delete without --yes: %d %q", code, errOut)
	}
	if code, _, _ := run(t, env, "", "user", "promote", "--email", "nobody@example.com"); code != 1 {
		t.Error("promote of an unknown account succeeded")
	}
	if code, _, _ := run(t, env, "", "user", "explode", "--email", "bob@example.com"); code != 2 {
		t.Error("an unknown user verb was accepted")
	}
	if code, _, errOut := run(t, env, "", "user", "delete", "--yes", "--email", "bob@example.com"); code != 0 {
		t.Fatalf("delete: %d %q", code, errOut)
	}
	if code, out, _ := run(t, env, "", "user", "list"); code != 0 || strings.Contains(out, "bob@") {
		t.Errorf("bob listed after delete:\n%s", out)
	}
	if n := blobCount(t, env); n != 0 {
		t.Errorf("%d blobs in the file store after bob was deleted, want none", n)
	}

	// The admin log names who did what to whom.
	lg := admin.get("/admin/log")
	for _, want := range []string{"root@example.com", "command line", "bob@example.com", "disable", "enable", "delete", "promote"} {
		if !strings.Contains(lg.body, want) {
			t.Errorf("admin log lacks %q", want)
		}
	}
	// Demoted on the command line, the admin's next request is refused.
	if code, _, _ := run(t, env, "", "user", "demote", "--email", "root@example.com"); code != 0 {
		t.Fatal("demote")
	}
	if r := admin.get("/admin"); r.status != http.StatusForbidden {
		t.Errorf("a demoted admin's next request: %d", r.status)
	}
}

// TestTwoFactorEndToEnd runs the second factor against the running
// program: enrolment, sign-in with a code, the same code refused again
// within its step, concurrent wrong codes held to the limit, and one
// recovery code raced by many sessions at once, which one wins.
func TestTwoFactorEndToEnd(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	srv := startServe(t, env)
	carol := newPeer(t, srv.url, 3)
	carol.signUp("carol@example.com", "carol password 1")
	setup := carol.form("/users/two_factor/setup", nil)
	sm := regexp.MustCompile(`id="totp-secret" class="secret-text">([A-Z2-7]+)<`).FindStringSubmatch(setup.body)
	if sm == nil {
		t.Fatalf("no secret on the set-up page: %d", setup.status)
	}
	secret := sm[1]
	code := func(at time.Time) string {
		c, err := totp.GenerateCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	done := carol.form("/users/two_factor/enable", url.Values{"current_password": {"carol password 1"}, "code": {code(time.Now())}})
	codes := regexp.MustCompile(`[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}`).FindAllString(done.body, -1)
	if done.status != http.StatusOK || len(codes) != 10 {
		t.Fatalf("enable: %d, %d recovery codes", done.status, len(codes))
	}

	// The password alone signs nobody in; the next step's code does (one
	// step of drift is allowed), once.
	signIn := func(p *peer) {
		t.Helper()
		if r := p.signIn("carol@example.com", "carol password 1"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/users/sign_in/two_factor" {
			t.Fatalf("password step: %d %q", r.status, r.header.Get("Location"))
		}
	}
	web := newPeer(t, srv.url, 4)
	signIn(web)
	if r := web.get("/dashboard"); r.status != http.StatusSeeOther {
		t.Fatalf("dashboard after the password alone: %d", r.status)
	}
	next := code(time.Now().Add(30 * time.Second))
	if r := web.form("/users/sign_in/two_factor", url.Values{"code": {next}}); r.status != http.StatusSeeOther {
		t.Fatalf("code step: %d", r.status)
	}
	if r := web.get("/dashboard"); r.status != http.StatusOK {
		t.Fatalf("dashboard after the code: %d", r.status)
	}
	again := newPeer(t, srv.url, 5)
	signIn(again)
	if r := again.form("/users/sign_in/two_factor", url.Values{"code": {next}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "already used") {
		t.Errorf("the same code again: %d", r.status)
	}

	// Concurrent wrong codes from one client: at most 5 are checked.
	guesser := newPeer(t, srv.url, 6)
	signIn(guesser)
	var mu sync.Mutex
	counts := map[int]int{}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := guesser.form("/users/sign_in/two_factor", url.Values{"code": {fmt.Sprintf("%06d", 100000+i*7919)}})
			mu.Lock()
			counts[r.status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if counts[http.StatusUnprocessableEntity] > 5 || counts[http.StatusTooManyRequests] < 11 {
		t.Errorf("16 concurrent wrong codes: %v, want at most 5 checked", counts)
	}

	// One recovery code, sent by six sessions at once: one signs in.
	var racers []*peer
	for i := range 6 {
		p := newPeer(t, srv.url, 10+i)
		signIn(p)
		racers = append(racers, p)
	}
	var won int
	for _, p := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.form("/users/sign_in/two_factor", url.Values{"code": {codes[0]}})
			if r.status == http.StatusSeeOther {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Errorf("one recovery code signed in %d sessions", won)
	}
}

// TestAdminFlagsAgreeWithEnvironment: an admin verb's -data-dir or
// -database-url that differs from its variable in the environment is
// refused (the variable would win, and the verb would act on another
// database than the one named); one that agrees is accepted; and a
// destructive verb names the database it acted on.
func TestAdminFlagsAgreeWithEnvironment(t *testing.T) {
	prod, staging := t.TempDir(), t.TempDir()
	prodDB := "sqlite:" + filepath.Join(prod, "hush.db")
	byDir := map[string]string{"HUSH_DATA_DIR": prod}
	byURL := map[string]string{"HUSH_DATA_DIR": prod, "HUSH_DATABASE_URL": prodDB}
	for _, env := range []map[string]string{byDir, byURL} {
		if code, _, errOut := run(t, env, "", "user", "create", "--email", "x@example.com"); code != 0 {
			t.Fatalf("user create: %d %q", code, errOut)
		}
		for _, args := range [][]string{
			{"user", "delete", "--data-dir", staging, "--email", "x@example.com", "--yes"},
			{"user", "delete", "--database-url", "sqlite:" + filepath.Join(staging, "hush.db"), "--email", "x@example.com", "--yes"},
			{"token", "create", "-data-dir", staging, "--email", "x@example.com"},
		} {
			if env["HUSH_DATABASE_URL"] == "" && slices.Contains(args, "--database-url") {
				continue // no variable to differ from (the PostgreSQL pass sets one of its own)
			}
			code, out, errOut := run(t, env, "", args...)
			if code != 2 || out != "" || !strings.Contains(errOut, "in the environment") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%v with %v: %d %q %q", args, env, code, out, errOut)
			}
		}
		if code, out, _ := run(t, env, "", "user", "list", "--data-dir", prod+"/"); code != 0 || !strings.Contains(out, "x@example.com") {
			t.Errorf("a flag that agrees with the environment: %d %q", code, out)
		}
		code, out, errOut := run(t, env, "", "user", "delete", "--email", "x@example.com", "--yes")
		where := "(in SQLite " + filepath.Join(prod, "hush.db") + ")"
		if u := withDB(t, env)["HUSH_DATABASE_URL"]; u != "" && u != prodDB {
			where = "(in PostgreSQL "
		}
		if code != 0 || !strings.Contains(out, where) {
			t.Errorf("delete: %d %q %q, want the database named %q", code, out, errOut, where)
		}
	}
}

// adminLogOf is the admin log of the database env names, newest first, one
// "actor action target" a line.
func adminLogOf(t *testing.T, env map[string]string) []string {
	t.Helper()
	cfg, err := config.Load(nil, envFrom(withDB(t, env)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStore(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	entries, _, err := st.AdminLog(t.Context(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Actor+" "+string(e.Action)+" "+e.Target)
	}
	return out
}

// TestCommandLineActionsLogged: hush user create (with --admin), hush user
// set-password and hush token create write their lines of the admin log,
// with the command line as the actor, as every other hush user action does.
func TestCommandLineActionsLogged(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"user", "create", "--admin", "--email", "a@example.com"}},
		{"a new password\n", []string{"user", "set-password", "--email", "a@example.com"}},
		{"", []string{"token", "create", "--email", "a@example.com"}},
	} {
		if code, _, errOut := run(t, env, c.stdin, c.args...); code != 0 {
			t.Fatalf("%v: %d %q", c.args, code, errOut)
		}
	}
	want := []string{"command line new_token a@example.com", "command line set_password a@example.com",
		"command line promote a@example.com", "command line create a@example.com"}
	if got := adminLogOf(t, env); !slices.Equal(got, want) {
		t.Errorf("admin log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPasswordsOffTheCommandLine: user create warns about a password given
// as an argument; --password - with nothing on stdin is refused without
// making the account; and an unexpected argument, which may be a password
// typed where a flag was meant, is never echoed.
func TestPasswordsOffTheCommandLine(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	code, out, errOut := run(t, env, "", "user", "create", "--email", "arg@example.com", "--password", "secret-in-argv")
	if code != 0 || !strings.Contains(errOut, "warning: a password given as an argument") || strings.Contains(out+errOut, "secret-in-argv") {
		t.Errorf("a password as an argument: %d %q %q", code, out, errOut)
	}
	code, out, errOut = run(t, env, "from stdin\n", "user", "create", "--email", "stdin@example.com", "--password", "-")
	if code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("a password on stdin: %d %q %q", code, out, errOut)
	}
	code, _, errOut = run(t, env, "", "user", "create", "--email", "empty@example.com", "--password", "-")
	if code != 1 || !strings.Contains(errOut, "no password on stdin") {
		t.Errorf("nothing on stdin: %d %q", code, errOut)
	}
	if _, list, _ := run(t, env, "", "user", "list"); strings.Contains(list, "empty@example.com") {
		t.Error("an account was made without its password")
	}
	for _, args := range [][]string{
		{"user", "set-password", "--email", "arg@example.com", "new-secret-pw"},
		{"user", "create", "--email", "x@example.com", "new-secret-pw"},
		{"token", "create", "--email", "arg@example.com", "new-secret-pw"},
	} {
		code, out, errOut := run(t, env, "", args...)
		if code != 2 || !strings.Contains(errOut, "unexpected argument") || strings.Contains(out+errOut, "new-secret-pw") {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
}

// TestUserActionsThatChangeNothing: an action on an account that is
// already as it would leave it says that nothing changed, claims no
// effect, and writes no line of the admin log.
func TestUserActionsThatChangeNothing(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "n@example.com"); code != 0 {
		t.Fatalf("user create: %d %q", code, errOut)
	}
	for _, c := range []struct{ verb, want string }{
		{"enable", "n@example.com is not disabled: nothing changed"},
		{"demote", "n@example.com is not an administrator: nothing changed"},
		{"reset-2fa", "n@example.com has no second factor: nothing changed"},
		{"revoke-token", "n@example.com has no API token: nothing changed"},
		{"disable", "disabled n@example.com: its sessions ended"},
		{"disable", "n@example.com is already disabled: nothing changed"},
		{"promote", "n@example.com is now an administrator"},
		{"promote", "n@example.com is already an administrator: nothing changed"},
	} {
		code, out, errOut := run(t, env, "", "user", c.verb, "--email", "n@example.com")
		if code != 0 || !strings.HasPrefix(out, c.want) {
			t.Errorf("user %s: %d %q %q, want %q", c.verb, code, out, errOut, c.want)
		}
	}
	want := []string{"command line promote n@example.com", "command line disable n@example.com", "command line create n@example.com"}
	if got := adminLogOf(t, env); !slices.Equal(got, want) {
		t.Errorf("admin log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAdminVerbWhileLocked: an admin verb that cannot take SQLite's write
// lock within the busy timeout says that another process holds it, in one
// line, instead of the driver's message.
func TestAdminVerbWhileLocked(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "hush.db")
	env := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_DATABASE_URL": "sqlite:" + db, "HUSH_SQLITE_BUSY_TIMEOUT": "200ms"}
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "l@example.com"); code != 0 {
		t.Fatalf("user create: %d %q", code, errOut)
	}
	release, err := testdb.LockWrites(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	code, out, errOut := run(t, env, "", "user", "promote", "--email", "l@example.com")
	if code != 1 || out != "" || !strings.Contains(errOut, "another process holds the database's write lock") ||
		strings.Contains(errOut, "database is locked") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("promote while locked: %d %q %q", code, out, errOut)
	}
}
