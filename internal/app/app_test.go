package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/client"
	"hush/internal/testdb"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func envFrom(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestMain(m *testing.M) { testdb.Main(m) }

var pgByDir sync.Map // data dir → PostgreSQL URL, when the engine is postgres

// withDB adds HUSH_DATABASE_URL when the tests run on PostgreSQL: one
// database per data directory, so a test's commands share it.
func withDB(t *testing.T, env map[string]string) map[string]string {
	dir := env["HUSH_DATA_DIR"]
	if testdb.Engine() != "postgres" || dir == "" || env["HUSH_DATABASE_URL"] != "" {
		return env
	}
	u, ok := pgByDir.Load(dir)
	if !ok {
		u, _ = pgByDir.LoadOrStore(dir, testdb.PostgresURL(t))
	}
	out := map[string]string{"HUSH_DATABASE_URL": u.(string)}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// run executes one hush command line and returns its status and output.
func run(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb syncBuffer
	env = withDB(t, env)
	code := Main(context.Background(), append([]string{"hush"}, args...), envFrom(env), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

type served struct {
	url    string
	log    *syncBuffer
	cancel context.CancelFunc
	done   chan int
}

var listenRE = regexp.MustCompile(`msg=listening addr=(\S+)|"msg":"listening","addr":"([^"]+)"`)

// startServe runs `hush serve` on 127.0.0.1:0 and waits until it listens.
func startServe(t *testing.T, env map[string]string) *served {
	t.Helper()
	// The request rate limit is off unless a test sets it: tests send bursts.
	full := map[string]string{"HUSH_ADDR": "127.0.0.1:0", "PWP__THROTTLING__MINUTE": "0", "PWP__THROTTLING__SECOND": "0"}
	for k, v := range withDB(t, env) {
		full[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{log: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- Main(ctx, []string{"hush", "serve"}, envFrom(full), strings.NewReader(""), io.Discard, s.log)
	}()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenRE.FindStringSubmatch(s.log.String()); m != nil {
			s.url = "http://" + m[1] + m[2]
			t.Cleanup(func() { s.stop(t) })
			return s
		}
		select {
		case code := <-s.done:
			t.Fatalf("serve exited with %d:\n%s", code, s.log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve did not start:\n%s", s.log.String())
	return nil
}

// stop shuts the server down and returns its exit status.
func (s *served) stop(t *testing.T) int {
	t.Helper()
	if s.cancel == nil {
		return 0
	}
	s.cancel()
	s.cancel = nil
	select {
	case code := <-s.done:
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
		return -1
	}
}

// call sends a JSON request and decodes a JSON object or array response.
func call(t *testing.T, method, url string, body any, hdr ...string) (int, any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	res, err := (&client.Client{}).Do(context.Background(), method, url, rd, h)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if len(res.Body) > 0 {
		if err := json.Unmarshal(res.Body, &v); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, url, res.Body)
		}
	}
	return res.Status, v
}

func TestVersionAndUsage(t *testing.T) {
	code, out, _ := run(t, nil, "", "version")
	if code != 0 || out != "hush "+Version+"\n" {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, errOut := run(t, nil, "", "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown verb: %d %q", code, errOut)
	}
	// A group without its subcommand, or with a wrong one, names those it takes.
	for _, args := range [][]string{{"user"}, {"user", "frob"}} {
		code, _, errOut := run(t, nil, "", args...)
		if code != 2 || !strings.Contains(errOut, `"user" takes one of: create, delete,`) || !strings.Contains(errOut, "set-password") {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
	if code, out, _ := run(t, nil, "", "serve", "-h"); code != 0 || !strings.Contains(out, "PWP__ALLOW_ANONYMOUS") {
		t.Errorf("serve -h: %d %q", code, out)
	}
}

func TestInvalidSettingsStopStartup(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, value string }{
		{"PWP__PW__EXPIRE_AFTER_DAYS_MAX", "abc"},
		{"PWP__ALLOW_ANONYMOUS", "maybe"},
		{"PWP__PURGE_AFTER", "soon"},
		{"HUSH_MASTER_KEY", "short"},
		{"HUSH_LOG_LEVEL", "loud"},
	} {
		code, _, errOut := run(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_ADDR": "127.0.0.1:0", c.name: c.value}, "", "serve")
		if code != 1 || !strings.Contains(errOut, c.name) {
			t.Errorf("%s=%s: exit %d, stderr %q", c.name, c.value, code, errOut)
		}
		if c.name == "HUSH_MASTER_KEY" && strings.Contains(errOut, c.value) {
			t.Errorf("the master key value was printed: %q", errOut)
		}
	}
}

func TestUserAndTokenVerbs(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir}
	srv := startServe(t, env) // the admin verbs work while serve runs

	if code, out, errOut := run(t, env, "", "user", "create", "--email", "Alice@Example.com", "--password", "correct horse"); code != 0 || !strings.Contains(out, "alice@example.com") {
		t.Fatalf("user create: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "alice@example.com", "--password", "another one"); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("duplicate: %d %q", code, errOut)
	}
	// Taken, with a password that would be refused too: the address is what is said.
	if code, _, errOut := run(t, env, "", "user", "create", "--email", "alice@example.com", "--password", "short"); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("duplicate with a short password: %d %q", code, errOut)
	}
	for _, bad := range []string{"", "not-an-email", "a@b", "Alice <a@example.com>"} {
		if code, _, errOut := run(t, env, "", "user", "create", "--email", bad, "--password", "long enough"); code != 1 || !strings.Contains(errOut, "invalid email") {
			t.Errorf("email %q: %d %q", bad, code, errOut)
		}
	}
	if code, _, errOut := run(t, env, "from stdin 123\n", "user", "create", "--email", "bob@example.com", "--password", "-"); code != 0 {
		t.Errorf("password from stdin: %d %q", code, errOut)
	}
	if code, _, _ := run(t, env, "", "token", "create", "--email", "nobody@example.com"); code != 1 {
		t.Error("token for an unknown user succeeded")
	}

	token := func() string {
		code, out, errOut := run(t, env, "", "token", "create", "--email", "alice@example.com")
		if code != 0 {
			t.Fatalf("token create: %d %q", code, errOut)
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		return lines[len(lines)-1]
	}
	first := token()
	if len(first) != 43 || strings.Contains(first, " ") {
		t.Fatalf("the last line is not the token alone: %q", first)
	}
	status, _ := call(t, "GET", srv.url+"/api/v2/pushes/active", nil, "Authorization", "Bearer "+first)
	if status != 200 {
		t.Fatalf("new token: %d", status)
	}
	second := token()
	if status, _ := call(t, "GET", srv.url+"/api/v2/pushes/active", nil, "Authorization", "Bearer "+first); status != 401 {
		t.Errorf("revoked token: %d", status)
	}
	if status, _ := call(t, "GET", srv.url+"/api/v2/pushes/active", nil, "Authorization", "Bearer "+second); status != 200 {
		t.Errorf("regenerated token: %d", status)
	}
	// Tokens are stored as digests only (checked in the SQLite file).
	if testdb.Engine() != "sqlite" {
		return
	}
	db, _ := os.ReadFile(filepath.Join(dir, "hush.db"))
	wal, _ := os.ReadFile(filepath.Join(dir, "hush.db-wal"))
	for _, tok := range []string{first, second} {
		if bytes.Contains(db, []byte(tok)) || bytes.Contains(wal, []byte(tok)) {
			t.Error("an API token is stored in plaintext")
		}
	}
	if code, out, _ := run(t, env, "", "migrate"); code != 0 || !strings.Contains(out, "up to date") {
		t.Errorf("migrate: %d %q", code, out)
	}
}

func TestMasterKeyGeneratedAndKept(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir}
	srv := startServe(t, env)
	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": `{"database":"ok","files":"ok"}` + "\n"} {
		res, err := http.Get(srv.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(b) != want {
			t.Errorf("%s: %d %q", path, res.StatusCode, b)
		}
	}
	if !strings.Contains(srv.log.String(), "generated a master key") {
		t.Errorf("no warning about the generated key:\n%s", srv.log.String())
	}
	fi, err := os.Stat(filepath.Join(dir, "master.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("master.key: %v %v", fi, err)
	}
	_, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "survives restarts"}})
	tok := obj.(map[string]any)["url_token"].(string)
	if code := srv.stop(t); code != 0 {
		t.Fatalf("graceful shutdown exited %d", code)
	}
	if !strings.Contains(srv.log.String(), "msg=stopped") {
		t.Errorf("no clean stop logged:\n%s", srv.log.String())
	}
	srv2 := startServe(t, env)
	if strings.Contains(srv2.log.String(), "generated a master key") {
		t.Error("a second key was generated")
	}
	_, got := call(t, "GET", srv2.url+"/api/v2/pushes/"+tok, nil)
	if got.(map[string]any)["payload"] != "survives restarts" {
		t.Errorf("after restart: %v", got)
	}
}

func TestKeyRotate(t *testing.T) {
	dir := t.TempDir()
	keyA := strings.Repeat("a1", 32)
	keyB := strings.Repeat("b2", 32)
	envA := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyA}
	srv := startServe(t, envA)
	apiToken := apiToken(t, envA, "k@example.com", "long enough")
	var toks []string
	for _, p := range []map[string]any{
		{"payload": "plain one", "note": "a note"},
		{"payload": "guarded", "passphrase": "pass phrase"},
		{"files": []any{map[string]any{"filename": "k.txt", "content_base64": "a2V5IGZpbGU="}}},
	} {
		status, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": p}, "Authorization", "Bearer "+apiToken)
		if status != 201 {
			t.Fatalf("create: %d %v", status, obj)
		}
		toks = append(toks, obj.(map[string]any)["url_token"].(string))
	}
	srv.stop(t)

	// The new key alone does not match the data: serve refuses to start.
	wrong := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB, "HUSH_ADDR": "127.0.0.1:0"}
	if code, _, errOut := run(t, wrong, "", "serve"); code != 1 || !strings.Contains(errOut, "does not match this database") {
		t.Errorf("serve with the wrong key: %d %q", code, errOut)
	}
	if code, _, _ := run(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB}, "", "key", "rotate"); code != 1 {
		t.Error("rotate without the previous key succeeded")
	}

	rot := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB, "HUSH_MASTER_KEY_PREVIOUS": keyA}
	code, out, errOut := run(t, rot, "", "key", "rotate")
	// payloads (3), the note, the file key and the links of the three
	// owned pushes
	if code != 0 || !strings.Contains(out, "re-sealed 8 values") {
		t.Fatalf("key rotate: %d %q %q", code, out, errOut)
	}
	if _, out, _ := run(t, rot, "", "key", "rotate"); !strings.Contains(out, "re-sealed 0 values") {
		t.Errorf("second rotate: %q", out)
	}
	srv2 := startServe(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB})
	if _, got := call(t, "GET", srv2.url+"/api/v2/pushes/"+toks[0], nil); got.(map[string]any)["payload"] != "plain one" {
		t.Errorf("after rotation: %v", got)
	}
	if _, got := call(t, "GET", srv2.url+"/api/v2/pushes/"+toks[1]+"?passphrase=pass+phrase", nil); got.(map[string]any)["payload"] != "guarded" {
		t.Errorf("passphrase push after rotation: %v", got)
	}
	if body := firstFile(t, srv2.url, toks[2]); string(body) != "key file" {
		t.Errorf("file after rotation: %q", body)
	}
}

// firstFile retrieves a push anonymously (a view) and downloads its first
// file.
func firstFile(t *testing.T, base, tok string) []byte {
	t.Helper()
	c := &client.Client{Base: base}
	p, err := c.Retrieve(context.Background(), tok, "")
	if err != nil || len(p.Files) == 0 {
		t.Fatalf("retrieve %s: %+v, %v", tok, p, err)
	}
	body, err := c.Download(context.Background(), p.Files[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestVerbHelp: -h, -help and --help on a verb print its flags on stdout
// and exit 0; a flag it does not take is still a usage error (exit 2).
func TestVerbHelp(t *testing.T) {
	for _, args := range [][]string{
		{"user", "create", "--help"}, {"user", "set-password", "-h"}, {"user", "delete", "-help"},
		{"user", "list", "--help"}, {"token", "create", "-h"}, {"migrate", "--help"}, {"key", "rotate", "-h"},
		{"migrate-data", "--help"}, {"healthcheck", "-h"}, {"import-pwpush", "--help"},
	} {
		code, out, errOut := run(t, nil, "", args...)
		if code != 0 || !strings.Contains(out, "-data-dir") && !strings.Contains(out, "-from") && !strings.Contains(out, "-addr") || errOut != "" {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	if code, out, errOut := run(t, nil, "", "user", "create", "--frobnicate"); code != 2 || out != "" || !strings.Contains(errOut, "not defined") {
		t.Errorf("an unknown flag: %d %q %q", code, out, errOut)
	}
}
