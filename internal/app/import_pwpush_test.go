package app

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hush/internal/blob/s3test"
	"hush/internal/client"
	"hush/internal/pwpush"
	"hush/internal/pwpush/pwpushtest"
)

// importEnv is the environment of an import into a fresh data directory:
// Hush's (the engine under test) and the Password Pusher settings given.
func importEnv(t *testing.T, d *pwpushDeployment) map[string]string {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	maps.Copy(env, d.env)
	return withDB(t, env)
}

// noSecrets fails when any of the deployment's secrets shows in text.
func (d *pwpushDeployment) noSecrets(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range d.secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s shows a secret (%.12q…)", what, s)
		}
	}
}

// TestImportPwpush imports a Password Pusher deployment (on SQLite and on
// PostgreSQL; into the engine under test) with the hush program, and
// checks, with the program serving the imported database over HTTP, that its old links, API tokens
// and passwords work: API v2, the v1 JSON paths, downloads of files that
// were on disk and in S3, the owners' lists and audit logs, web sign-in.
func TestImportPwpush(t *testing.T) {
	s3 := s3test.Start(t)
	for _, engine := range []string{pwpushtest.SQLite, pwpushtest.Postgres} {
		t.Run("from "+engine, func(t *testing.T) {
			d := newPwpushDeployment(t, engine, "current", s3)
			env := importEnv(t, d)
			code, out, errOut := runBinary(t, env, "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
			if code != 0 {
				t.Fatalf("import: %d\n%s\n%s", code, out, errOut)
			}
			t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
			for _, want := range []string{
				"users:  3 imported (2 with their API token), 0 already there",
				"pushes: 9 imported (6 live, 3 expired), 0 already there (skipped), 0 expired left behind (--skip-expired), 0 failed",
				"audit log entries: 15 imported, 2 left out",
				"files:  3 (",
				"1 user signed in with a one-time code",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("summary lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, "importing: users 3/3 · pushes 9/9 [####################] 100%") {
				t.Errorf("no final progress line:\n%s", errOut)
			}
			d.noSecrets(t, "the import's output", out+errOut)

			// Again: nothing twice, and it says what it skipped.
			code, out, errOut = run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
			if code != 0 || !strings.Contains(out, "users:  0 imported (0 with their API token), 3 already there (skipped)") ||
				!strings.Contains(out, "pushes: 0 imported (0 live, 0 expired), 9 already there (skipped)") ||
				!strings.Contains(out, "an earlier run filled this database") {
				t.Fatalf("second run: %d\n%s\n%s", code, out, errOut)
			}
			dump := dumpTables(t, rawDB(t, env))
			d.noSecrets(t, "Hush's database", dump)
			if n := strings.Count(dump, "$2a$"); n != 2 {
				t.Errorf("%d bcrypt hashes stored, want alice's and bob's", n)
			}

			srv := startInstance(t, env)
			d.servesLinks(t, srv.url)
			d.servesTokens(t, srv.url)
			d.signsIn(t, srv.url)
			if dump := dumpTables(t, rawDB(t, env)); strings.Count(dump, "$2a$") != 0 {
				t.Error("a bcrypt hash is left after both users signed in")
			}
		})
	}
}

// runBinary runs the hush program built from cmd/hush with env alone.
func runBinary(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(hushBinary(t), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// servesLinks retrieves every imported push by its old url_token.
func (d *pwpushDeployment) servesLinks(t *testing.T, base string) {
	t.Helper()
	ctx := context.Background()
	c := &client.Client{Base: base}
	text := d.push("q2x7k0b9vyw1n3")
	if _, err := c.Retrieve(ctx, text.token, "not it"); statusOf(err) != http.StatusUnauthorized {
		t.Errorf("wrong passphrase: %v", err)
	}
	p, err := c.Retrieve(ctx, text.token, text.passphrase)
	if err != nil || p.Payload == nil || *p.Payload != text.payload || p.ViewsRemaining != text.views-text.viewed-1 ||
		!p.RetrievalStep || !strings.HasSuffix(p.HTMLURL, "/p/"+text.token+"/r") {
		t.Errorf("text push: %+v, %v", p, err)
	}

	// The v1 JSON paths, on the push sealed with the previous key.
	old := d.push("sealed_with_previous_key")
	status, body := call(t, "GET", base+"/p/"+old.token+".json?passphrase="+url.QueryEscape(old.passphrase), nil)
	if m, _ := body.(map[string]any); status != 200 || m["payload"] != old.payload {
		t.Errorf("v1 retrieve: %d %.200v", status, body)
	}
	if status, _ := call(t, "GET", base+"/p/"+old.token+"/preview.json", nil); status != 200 {
		t.Errorf("v1 preview: %d", status)
	}

	// The URL push has one view: served once, then expired.
	u := d.push("hs8fj2mc0p1z")
	if p, err := c.Retrieve(ctx, u.token, ""); err != nil || p.Payload == nil || *p.Payload != u.payload || p.Kind != "url" {
		t.Errorf("url push: %+v, %v", p, err)
	}
	if p, err := c.Retrieve(ctx, u.token, ""); err != nil || !p.Expired || p.Payload != nil {
		t.Errorf("url push after its view: %+v, %v", p, err)
	}
	qr := d.push("aaaabbbbccccdddd1")
	if p, err := c.Retrieve(ctx, qr.token, ""); err != nil || p.Kind != "qr" || *p.Payload != qr.payload || p.DaysRemaining != 1 {
		t.Errorf("qr push: %+v, %v", p, err)
	}
	d.servesFiles(t, c, "f1l3pu5h")
	d.servesFiles(t, c, "s3-file-push-0001")

	for _, tok := range []string{"expiredtoken01", "deleted-by-owner", "ran-out-of-days"} {
		p, err := c.Retrieve(ctx, tok, "")
		if err != nil || !p.Expired || p.Payload != nil || p.Deleted != d.push(tok).deleted {
			t.Errorf("expired push %s: %+v, %v", tok, p, err)
		}
	}
	if status, _ := call(t, "GET", base+"/api/v2/pushes/never-was-a-push", nil); status != 404 {
		t.Errorf("unknown token: %d", status)
	}
	// The page of the secret link, as a browser opens it.
	page := newPeer(t, base, 40).get("/p/" + qr.token)
	if page.status != 200 || !strings.Contains(page.body, "<svg") {
		t.Errorf("the qr push's page: %d", page.status)
	}
}

// servesFiles retrieves a file push and downloads each of its files.
func (d *pwpushDeployment) servesFiles(t *testing.T, c *client.Client, tok string) {
	t.Helper()
	want := d.push(tok)
	p, err := c.Retrieve(context.Background(), tok, want.passphrase)
	if err != nil || len(p.Files) != len(want.files) {
		t.Fatalf("file push %s: %+v, %v", tok, p, err)
	}
	for _, f := range p.Files {
		body, err := c.Download(context.Background(), f.URL)
		if err != nil || string(body) != string(want.files[f.Filename]) {
			t.Errorf("file %s of %s: %d bytes, %v", f.Filename, tok, len(body), err)
		}
	}
}

// servesTokens uses the old API tokens: Bearer and the legacy headers.
func (d *pwpushDeployment) servesTokens(t *testing.T, base string) {
	t.Helper()
	ctx := context.Background()
	alice := d.user("alice@example.com")
	c := &client.Client{Base: base, Token: alice.token}
	tokens := func(expired bool) []string {
		list, err := c.List(ctx, expired, 1)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		var out []string
		for _, p := range list {
			out = append(out, p.URLToken)
		}
		slices.Sort(out)
		return out
	}
	if got := tokens(false); !slices.Equal(got, []string{"f1l3pu5h", "q2x7k0b9vyw1n3", "s3-file-push-0001"}) {
		t.Errorf("alice's active pushes: %v", got)
	}
	if got := tokens(true); !slices.Equal(got, []string{"deleted-by-owner", "ran-out-of-days"}) {
		t.Errorf("alice's expired pushes: %v", got)
	}
	log, err := c.Audit(ctx, "q2x7k0b9vyw1n3", 1)
	if err != nil || len(log) < 5 || log[0].Kind != "creation" || log[0].IP != "203.0.113.1" || log[2].Kind != "failed_passphrase" {
		t.Errorf("audit log: %+v, %v", log, err)
	}
	status, body := call(t, "GET", base+"/p/q2x7k0b9vyw1n3/audit.json", nil, "X-User-Email", alice.email, "X-User-Token", alice.token)
	if m, _ := body.(map[string]any); status != 200 || len(m["views"].([]any)) < 5 {
		t.Errorf("v1 audit: %d %.300v", status, body)
	}
	carol := d.user("carol@example.org")
	status, body = call(t, "GET", base+"/api/v2/pushes/active", nil, "X-User-Email", carol.email, "X-User-Token", carol.token)
	if list, _ := body.([]any); status != 200 || len(list) != 1 || list[0].(map[string]any)["url_token"] != "aaaabbbbccccdddd1" {
		t.Errorf("carol's active pushes with the legacy headers: %d %.300v", status, body)
	}
	if status, _ := call(t, "GET", base+"/api/v2/pushes/active", nil, "Authorization", "Bearer "+alice.token+"x"); status != 401 {
		t.Errorf("a wrong token: %d", status)
	}
}

// signsIn signs in on the web with the Password Pusher passwords.
func (d *pwpushDeployment) signsIn(t *testing.T, base string) {
	t.Helper()
	for i, u := range d.users {
		p := newPeer(t, base, 50+i)
		if r := p.signIn(u.email, u.password+"x"); r.status == http.StatusSeeOther {
			t.Errorf("%s signs in with a wrong password", u.email)
		}
		r := p.signIn(strings.ToUpper(u.email[:1])+u.email[1:], u.password)
		if u.password == "" {
			if r.status == http.StatusSeeOther {
				t.Errorf("%s, who has no password, signs in", u.email)
			}
			continue
		}
		if r.status != http.StatusSeeOther || p.whoAmI() != u.email {
			t.Errorf("%s: sign-in with the old password: %d", u.email, r.status)
		}
		// Again, now on the Argon2id hash.
		q := newPeer(t, base, 60+i)
		if r := q.signIn(u.email, u.password); r.status != http.StatusSeeOther {
			t.Errorf("%s: second sign-in: %d", u.email, r.status)
		}
	}
	if m := regexp.MustCompile(`alice@example.com`).FindString(newPeer(t, base, 70).get("/dashboard").body); m != "" {
		t.Error("the dashboard shows an account without a session")
	}
}

func statusOf(err error) int {
	var e *client.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// Bad input gives one line on stderr and exit status 1: never a stack
// trace, never a secret.
func TestImportPwpushBadInput(t *testing.T) {
	d := newPwpushDeployment(t, pwpushtest.SQLite, "current", nil)
	hushDir := t.TempDir()
	notPwpush := filepath.Join(hushDir, "hush.db")
	if code, _, errOut := run(t, map[string]string{"HUSH_DATA_DIR": hushDir, "HUSH_DATABASE_URL": "sqlite:" + notPwpush}, "", "migrate"); code != 0 {
		t.Fatal(errOut)
	}
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"missing file", nil, []string{"--from", filepath.Join(t.TempDir(), "nope.sqlite3")}, "no such file"},
		{"not Password Pusher", nil, []string{"--from", notPwpush}, "not a Password Pusher database"},
		{"MySQL", nil, []string{"--from", "mysql2://u:pw@db/pwpush"}, "MySQL and MariaDB are not supported"},
		{"unreachable PostgreSQL", nil, []string{"--from", "postgres://pwpush:hunter2secret@127.0.0.1:1/pwpush"}, "connect to Password Pusher database"},
		{"wrong key", map[string]string{"PWPUSH_MASTER_KEY": strings.Repeat("ab", 32)}, []string{"--from", d.dsn}, "does not decrypt"},
		{"wrong key flag", nil, []string{"--from", d.dsn, "--pwpush-master-key", d.keys["previous"]}, "does not decrypt"},
		{"malformed key", nil, []string{"--from", d.dsn, "--pwpush-master-key", "not-hex"}, "64 hexadecimal digits"},
		{"missing key file", nil, []string{"--from", d.dsn, "--pwpush-master-key-file", "/nonexistent/key"}, "read Password Pusher master key"},
		{"storage not a directory", d.env, []string{"--from", d.dsn, "--pwpush-storage", notPwpush}, "not a directory"},
		{"unreachable bucket", map[string]string{"PWPUSH_MASTER_KEY": d.keys["current"], "PWP__FILES__S3__BUCKET": "b",
			"PWP__FILES__S3__ENDPOINT": "http://127.0.0.1:1", "PWP__FILES__S3__SECRET_ACCESS_KEY": "s3cr3t-of-the-bucket"},
			[]string{"--from", d.dsn}, "Password Pusher's S3 bucket"},
	}
	for _, c := range cases {
		env := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
		maps.Copy(env, c.env)
		code, out, errOut := run(t, env, "", append([]string{"import-pwpush"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		last := lines[len(lines)-1]
		if code != 1 || !strings.HasPrefix(last, "hush: ") || !strings.Contains(last, c.want) ||
			strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%s: %d, stderr:\n%s", c.name, code, errOut)
		}
		for _, secret := range []string{"hunter2secret", "s3cr3t-of-the-bucket", d.keys["current"], d.keys["previous"]} {
			if strings.Contains(out+errOut, secret) {
				t.Errorf("%s: the output shows a secret", c.name)
			}
		}
		if len(lines) > 2 {
			t.Errorf("%s: more than the error line:\n%s", c.name, errOut)
		}
	}
	if code, _, _ := run(t, nil, "", "import-pwpush"); code != 2 {
		t.Errorf("no --from: %d", code)
	}

	// A Hush database with users of its own is refused, untouched.
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "PWPUSH_MASTER_KEY": d.keys["current"]}
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "own@example.com", "--password", "own password"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := run(t, env, "", "import-pwpush", "--from", d.dsn)
	if code != 1 || !strings.Contains(errOut, "already holds 1 users and 0 pushes, not put there by import-pwpush") || out != "" {
		t.Errorf("a database with its own users: %d %q %q", code, out, errOut)
	}
}

// Without a master key the default key is tried; a key that does not
// decrypt leaves the pushes behind, and a later run with the key adds them.
// A push whose files cannot be read fails alone, and a later run adds it.
func TestImportPwpushKeysAndReruns(t *testing.T) {
	t.Run("default key, files found on the second run", func(t *testing.T) {
		d := newPwpushDeployment(t, pwpushtest.SQLite, "default", nil)
		env := importEnv(t, d)
		code, out, errOut := run(t, env, "", "import-pwpush", "--from", d.dsn)
		if code != 1 || !strings.Contains(errOut, "no Password Pusher master key given: trying its default key") ||
			!strings.Contains(out, "pushes: 6 imported (3 live, 3 expired), 0 already there (skipped), 0 expired left behind (--skip-expired), 1 failed") ||
			!regexp.MustCompile(`failed: push 4: file 1: blob \d+ is on the Disk service \("local"\)`).MatchString(out) ||
			!strings.Contains(errOut, "hush: 1 push could not be imported (listed above)") {
			t.Fatalf("first run: %d\n%s\n%s", code, out, errOut)
		}
		d.noSecrets(t, "the output", out+errOut)
		code, out, errOut = run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
		if code != 0 || !strings.Contains(out, "pushes: 1 imported (1 live, 0 expired), 6 already there (skipped)") ||
			!strings.Contains(out, "files:  2 (") {
			t.Fatalf("second run: %d\n%s\n%s", code, out, errOut)
		}
		srv := startServe(t, env)
		d.servesFiles(t, &client.Client{Base: srv.url}, "f1l3pu5h")
		if p, err := (&client.Client{Base: srv.url}).Retrieve(context.Background(), "q2x7k0b9vyw1n3", d.push("q2x7k0b9vyw1n3").passphrase); err != nil || *p.Payload != d.push("q2x7k0b9vyw1n3").payload {
			t.Errorf("a push under the default key: %+v, %v", p, err)
		}
	})

	t.Run("no key, then the key and --skip-expired", func(t *testing.T) {
		d := newPwpushDeployment(t, pwpushtest.SQLite, "current", nil)
		env := importEnv(t, d)
		delete(env, "PWPUSH_MASTER_KEY")
		code, out, errOut := run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
		if code != 0 || !strings.Contains(out, "users:  3 imported (2 with their API token)") ||
			!strings.Contains(out, "pushes: none imported: 8 skipped, as Password Pusher's default key does not decrypt them: run again with --pwpush-master-key") {
			t.Fatalf("without the key: %d\n%s\n%s", code, out, errOut)
		}
		code, out, errOut = run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root,
			"--pwpush-master-key", d.keys["current"], "--skip-expired")
		if code != 0 || !strings.Contains(out, "users:  0 imported (0 with their API token), 3 already there (skipped)") ||
			!strings.Contains(out, "pushes: 5 imported (5 live, 0 expired), 0 already there (skipped), 3 expired left behind (--skip-expired), 0 failed") {
			t.Fatalf("with the key: %d\n%s\n%s", code, out, errOut)
		}
		d.noSecrets(t, "the output", out+errOut)
		srv := startServe(t, env)
		c := &client.Client{Base: srv.url, Token: d.user("alice@example.com").token}
		if list, err := c.List(context.Background(), true, 1); err != nil || len(list) != 0 {
			t.Errorf("expired pushes after --skip-expired: %+v, %v", list, err)
		}
		if status, _ := call(t, "GET", srv.url+"/api/v2/pushes/expiredtoken01", nil); status != 404 {
			t.Errorf("an expired push left behind: %d", status)
		}
	})
}

// Two runs at once into one database import everything once: the second
// finds each user and push the first stored, and leaves no file behind.
func TestImportPwpushConcurrentRuns(t *testing.T) {
	d := newPwpushDeployment(t, pwpushtest.SQLite, "current", nil)
	env := importEnv(t, d)
	// The database and its key exist before the runs start, as when an
	// operator runs the import twice by mistake.
	if code, _, errOut := run(t, env, "", "migrate"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "x@example.com", "--password", "long enough"); code != 0 {
		t.Fatal(errOut)
	}
	db := rawDB(t, env)
	if _, err := db.Exec(`DELETE FROM users`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code     int
		out, err string
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			code, out, errOut := run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
			results <- result{code, out, errOut}
		}()
	}
	for range 2 {
		if r := <-results; r.code != 0 {
			t.Errorf("a run failed: %d\n%s\n%s", r.code, r.out, r.err)
		}
	}
	var users, pushes, files, tokens int
	if err := db.QueryRow(`SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM pushes), (SELECT COUNT(*) FROM push_files),
		(SELECT COUNT(*) FROM api_tokens)`).Scan(&users, &pushes, &files, &tokens); err != nil {
		t.Fatal(err)
	}
	if users != 3 || pushes != 8 || files != 2 || tokens != 2 {
		t.Errorf("after two runs at once: %d users, %d pushes, %d files, %d tokens; want 3, 8, 2, 2", users, pushes, files, tokens)
	}
	var blobs int
	filepath.WalkDir(filepath.Join(env["HUSH_DATA_DIR"], "files"), func(_ string, e fs.DirEntry, _ error) error {
		if e != nil && e.Type().IsRegular() {
			blobs++
		}
		return nil
	})
	if blobs != 2 {
		t.Errorf("%d blobs in the file store, want the 2 files", blobs)
	}
}

// On a terminal the progress line is rewritten in place, at most ten times
// a second, and ended by a newline.
func TestImportProgressLine(t *testing.T) {
	var b strings.Builder
	p := &progressLine{w: &b, tty: true, every: time.Hour}
	p.totals(pwpush.Counts{Users: 2, Pushes: 8})
	for range 2 {
		p.user()
	}
	for range 3 {
		p.push()
	}
	p.failed()
	p.done()
	want := "\r\x1b[Kimporting: users 0/2 · pushes 0/8 [....................]   0%" +
		"\r\x1b[Kimporting: users 2/2 · pushes 3/8 [##########..........]  50% · 1 failed\n"
	if b.String() != want {
		t.Errorf("progress:\n%q\nwant\n%q", b.String(), want)
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q", n, got)
		}
	}
}

// A user who joins Password Pusher after an import, at an address someone
// else took in Hush meanwhile (web sign-up, hush user create), gets no
// pushes in Hush on a later run: they are left behind with a warning that
// names the address, and the account holding it gets nothing. The users an
// import made still get their new pushes, also after migrate-data moved
// the database.
func TestImportPwpushAddressTakenMeanwhile(t *testing.T) {
	d := newPwpushDeployment(t, pwpushtest.SQLite, "current", nil)
	env := importEnv(t, d)
	if code, out, errOut := run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root); code != 0 {
		t.Fatalf("first run: %d\n%s\n%s", code, out, errOut)
	}

	// In Password Pusher: two new users with a push each, and a new push
	// of alice's.
	d.addUser(t, 4, "victim@corp.example")
	d.addUser(t, 5, "other@corp.example")
	victims := []oldPush{d.addPush(t, 100, "victims-own-push-1", 4), d.addPush(t, 101, "others-own-push-1", 5)}
	mine := d.addPush(t, 102, "alices-new-push-1", 1)
	// In Hush: someone signs up with the first address, an operator
	// creates an account with the second.
	srv := startServe(t, env)
	newPeer(t, srv.url, 3).signUp("Victim@corp.example", "squatter password 1")
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "other@corp.example", "--password", "other password 1"); code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}

	for round := range 2 {
		code, out, errOut := run(t, env, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
		t.Logf("run %d:\n%s", round+2, out)
		alices := "1 imported (1 live, 0 expired), 8 already there"
		if round == 1 {
			alices = "0 imported (0 live, 0 expired), 9 already there"
		}
		for _, want := range []string{
			"users:  0 imported (0 with their API token), 3 already there (skipped), 2 whose addresses another Hush account holds",
			"pushes: " + alices + " (skipped), 0 expired left behind (--skip-expired), 0 failed, 2 left behind",
			"warning: victim@corp.example (Password Pusher user 4) belongs to a Hush account that no import made for that user: " +
				"1 push of the user's left behind, so that account does not get it",
			"warning: other@corp.example (Password Pusher user 5) belongs to a Hush account that no import made for that user: " +
				"1 push of the user's left behind, so that account does not get it",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d lacks %q:\n%s\n%s", round+2, want, out, errOut)
			}
		}
		if code != 0 {
			t.Fatalf("run %d: %d\n%s\n%s", round+2, code, out, errOut)
		}
	}
	db := rawDB(t, env)
	var taken int
	if err := db.QueryRow(`SELECT COUNT(*) FROM pushes WHERE user_id IN
		(SELECT id FROM users WHERE email IN ('victim@corp.example', 'other@corp.example'))`).Scan(&taken); err != nil {
		t.Fatal(err)
	}
	if taken != 0 {
		t.Errorf("the accounts holding the addresses got %d pushes", taken)
	}
	for _, p := range victims {
		if status, _ := call(t, "GET", srv.url+"/api/v2/pushes/"+p.token, nil); status != http.StatusNotFound {
			t.Errorf("%s in Hush: %d", p.token, status)
		}
	}
	alice := &client.Client{Base: srv.url, Token: d.user("alice@example.com").token}
	if list, err := alice.List(context.Background(), false, 1); err != nil || !slices.ContainsFunc(list, func(p client.Push) bool {
		return p.URLToken == mine.token
	}) {
		t.Errorf("alice's new push is not in her list: %+v, %v", list, err)
	}
	srv.stop(t)

	// Moved by migrate-data (into SQLite, from either engine), the import
	// still knows the accounts it made.
	key, err := os.ReadFile(filepath.Join(env["HUSH_DATA_DIR"], "master.key"))
	if err != nil {
		t.Fatal(err)
	}
	from := env["HUSH_DATABASE_URL"]
	if from == "" {
		from = "sqlite:" + filepath.Join(env["HUSH_DATA_DIR"], "hush.db")
	}
	dir := t.TempDir()
	moved := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_DATABASE_URL": "sqlite:" + filepath.Join(dir, "hush.db"),
		"HUSH_MASTER_KEY": strings.TrimSpace(string(key))}
	maps.Copy(moved, d.env)
	if code, out, errOut := run(t, moved, "", "migrate-data", "--from", from, "--to", moved["HUSH_DATABASE_URL"]); code != 0 {
		t.Fatalf("migrate-data: %d\n%s\n%s", code, out, errOut)
	}
	bobs := d.addPush(t, 103, "bobs-new-push-1", 2)
	code, out, errOut := run(t, moved, "", "import-pwpush", "--from", d.dsn, "--pwpush-storage", d.root)
	if code != 0 || !strings.Contains(out, "users:  0 imported (0 with their API token), 3 already there (skipped), 2 whose addresses") ||
		!strings.Contains(out, "pushes: 1 imported (1 live, 0 expired), 9 already there (skipped)") {
		t.Fatalf("after migrate-data: %d\n%s\n%s", code, out, errOut)
	}
	var owner string
	movedDB, err := sql.Open("sqlite", filepath.Join(dir, "hush.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer movedDB.Close()
	if err := movedDB.QueryRow(`SELECT u.email FROM pushes p JOIN users u ON u.id = p.user_id
		WHERE p.id = (SELECT MAX(id) FROM pushes)`).Scan(&owner); err != nil || owner != "bob@example.com" {
		t.Errorf("the owner of %s after migrate-data: %q, %v", bobs.token, owner, err)
	}
}
