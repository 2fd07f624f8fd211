package app

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"hush/internal/testdb"
)

var (
	buildOnce sync.Once
	hushBin   string
	buildErr  error
)

// hushBinary builds cmd/hush once per test run.
func hushBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hush-bin-")
		if err != nil {
			buildErr = err
			return
		}
		hushBin = filepath.Join(dir, "hush")
		out, err := exec.Command("go", "build", "-o", hushBin, "hush/cmd/hush").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return hushBin
}

// instance is one hush serve process.
type instance struct {
	url string
	cmd *exec.Cmd
	log *syncBuffer
}

var addrRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startInstance runs `hush serve` as its own process.
func startInstance(t *testing.T, env map[string]string) *instance {
	t.Helper()
	cmd := exec.Command(hushBinary(t), "serve")
	cmd.Env = []string{"HUSH_ADDR=127.0.0.1:0", "HUSH_LOG_LEVEL=info", "PATH=" + os.Getenv("PATH"),
		"PWP__THROTTLING__MINUTE=0", "PWP__THROTTLING__SECOND=0"} // tests send bursts
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &instance{cmd: cmd, log: &syncBuffer{}}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			in.log.Write([]byte(sc.Text() + "\n"))
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() { in.stop() })
	select {
	case addr := <-found:
		in.url = "http://" + addr
	case <-time.After(20 * time.Second):
		t.Fatalf("instance did not start:\n%s", in.log.String())
	}
	return in
}

func (in *instance) stop() {
	if in.cmd.ProcessState == nil {
		in.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { in.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			in.cmd.Process.Kill()
			<-done
		}
	}
}

// twoInstances starts two processes sharing one PostgreSQL database and
// master key, each with its own data directory.
func twoInstances(t *testing.T, extra map[string]string) (a, b *instance, env map[string]string) {
	t.Helper()
	onlyOnPostgresPass(t)
	env = map[string]string{
		"HUSH_DATABASE_URL": testdb.PostgresURL(t),
		"HUSH_MASTER_KEY":   strings.Repeat("c3", 32),
		"HUSH_DATA_DIR":     t.TempDir(),
	}
	for k, v := range extra {
		env[k] = v
	}
	a = startInstance(t, env)
	envB := map[string]string{}
	for k, v := range env {
		envB[k] = v
	}
	envB["HUSH_DATA_DIR"] = t.TempDir()
	b = startInstance(t, envB)
	return a, b, env
}

func TestTwoInstancesExactViewLimits(t *testing.T) {
	a, b, _ := twoInstances(t, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	for _, views := range []int{1, 3} {
		if views > 1 {
			rounds = max(rounds/5, 1)
		}
		for round := 0; round < rounds; round++ {
			_, obj := call(t, "POST", a.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "once", "expire_after_views": views}})
			tok := obj.(map[string]any)["url_token"].(string)
			var served atomic.Int32
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := 0; i < 64; i++ {
				base := a.url
				if i%2 == 1 {
					base = b.url
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					res, err := client.Get(base + "/api/v2/pushes/" + tok)
					if err != nil {
						t.Error(err)
						return
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						t.Errorf("status %d: %s", res.StatusCode, body)
					}
					if strings.Contains(string(body), `"payload":"once"`) {
						served.Add(1)
					}
				}()
			}
			close(start)
			wg.Wait()
			if got := int(served.Load()); got != views {
				t.Fatalf("%d-view push, round %d: served %d times across two instances", views, round, got)
			}
		}
	}
}

func TestTwoInstancesShareLimitsAndSessions(t *testing.T) {
	a, b, _ := twoInstances(t, nil)
	_, obj := call(t, "POST", a.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "p", "passphrase": "right", "expire_after_views": 50}})
	path := "/api/v2/pushes/" + obj.(map[string]any)["url_token"].(string) + "?passphrase="
	// Failed passphrases count in the database: five spread over both
	// instances block the client on either.
	for i := 0; i < 5; i++ {
		base := []string{a.url, b.url}[i%2]
		if status, _ := call(t, "GET", base+path+"wrong", nil); status != 401 {
			t.Fatalf("guess %d: %d", i, status)
		}
	}
	for _, base := range []string{a.url, b.url} {
		if status, _ := call(t, "GET", base+path+"right", nil); status != 429 {
			t.Errorf("after five failures via both instances, %s answers %d", base, status)
		}
	}

	// A web session made on one instance is valid on the other.
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"email": {"web@example.com"}, "password": {"a long password 1"}, "password_confirmation": {"a long password 1"}}
	req, _ := http.NewRequest("POST", a.url+"/users/sign_up", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", a.url)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
		t.Fatalf("sign up on A: %d", res.StatusCode)
	}
	res, err = client.Get(b.url + "/users/edit")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "web@example.com") {
		t.Errorf("account page on B with A's session: %d", res.StatusCode)
	}
}

func TestTwoSweepersNeverDoubleProcess(t *testing.T) {
	onlyOnPostgresPass(t)
	dbURL := testdb.PostgresURL(t)
	env := map[string]string{"HUSH_DATABASE_URL": dbURL, "HUSH_MASTER_KEY": strings.Repeat("d4", 32), "HUSH_DATA_DIR": t.TempDir()}
	if code, _, errOut := run(t, env, "", "migrate"); code != 0 {
		t.Fatal(errOut)
	}
	// 300 pushes already past their day limit, written straight into the table.
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	past := time.Now().Add(-48 * time.Hour).UnixMilli()
	const due = 300
	for i := 0; i < due; i++ {
		_, err := db.Exec(`INSERT INTO pushes (token_key, kind, payload, expire_after_days, expire_after_views,
			retrieval_step, expires_at, created_at, updated_at) VALUES ($1, 'text', $2, 1, 5, 0, $3, $4, $4)`,
			"due"+strconv.Itoa(i), []byte("sealed"), past+int64(24*time.Hour/time.Millisecond), past)
		if err != nil {
			t.Fatal(err)
		}
	}
	a := startInstance(t, env)
	envB := map[string]string{"HUSH_DATA_DIR": t.TempDir()}
	for k, v := range env {
		if k != "HUSH_DATA_DIR" {
			envB[k] = v
		}
	}
	b := startInstance(t, envB)
	deadline := time.Now().Add(10 * time.Second)
	var left int
	for time.Now().Before(deadline) {
		db.QueryRow(`SELECT COUNT(*) FROM pushes WHERE expired = 0`).Scan(&left)
		if left == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.stop()
	b.stop()
	if left != 0 {
		t.Fatalf("%d pushes still active", left)
	}
	total := 0
	re := regexp.MustCompile(`msg="swept pushes" expired=(\d+)`)
	for _, in := range []*instance{a, b} {
		for _, m := range re.FindAllStringSubmatch(in.log.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			total += n
		}
	}
	if total != due {
		t.Errorf("the two sweepers expired %d pushes in total, want exactly %d", total, due)
	}
}

func TestKeyRotationWhileTwoInstancesServe(t *testing.T) {
	onlyOnPostgresPass(t)
	keyA, keyB := strings.Repeat("a5", 32), strings.Repeat("b6", 32)
	dbURL := testdb.PostgresURL(t)
	envA := map[string]string{"HUSH_DATABASE_URL": dbURL, "HUSH_MASTER_KEY": keyA, "HUSH_DATA_DIR": t.TempDir()}
	first := startInstance(t, envA)
	var toks []string
	for i := 0; i < 20; i++ {
		_, obj := call(t, "POST", first.url+"/api/v2/pushes", map[string]any{"push": map[string]any{
			"payload": fmt.Sprint("secret ", i), "note": "n", "expire_after_views": 10}})
		toks = append(toks, obj.(map[string]any)["url_token"].(string))
	}
	first.stop()

	// Both instances know the new key and the old one while rotation runs.
	rot := map[string]string{"HUSH_DATABASE_URL": dbURL, "HUSH_MASTER_KEY": keyB, "HUSH_MASTER_KEY_PREVIOUS": keyA}
	a := startInstance(t, merge(rot, "HUSH_DATA_DIR", t.TempDir()))
	b := startInstance(t, merge(rot, "HUSH_DATA_DIR", t.TempDir()))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var failures atomic.Int32
	for _, in := range []*instance{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				status, obj := call(t, "POST", in.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "during"}})
				if status != 201 {
					failures.Add(1)
					continue
				}
				_, got := call(t, "GET", in.url+"/api/v2/pushes/"+obj.(map[string]any)["url_token"].(string), nil)
				if got.(map[string]any)["payload"] != "during" {
					failures.Add(1)
				}
			}
		}()
	}
	code, out, errOut := run(t, merge(rot, "HUSH_DATA_DIR", t.TempDir()), "", "key", "rotate", "-settle", "0")
	cancel()
	wg.Wait()
	if code != 0 || failures.Load() != 0 {
		t.Fatalf("rotate: exit %d %q %q; %d failed requests while rotating", code, out, errOut, failures.Load())
	}
	a.stop()
	b.stop()
	// The old key is gone: everything reads with the new one alone.
	only := startInstance(t, map[string]string{"HUSH_DATABASE_URL": dbURL, "HUSH_MASTER_KEY": keyB, "HUSH_DATA_DIR": t.TempDir()})
	for i, tok := range toks {
		_, obj := call(t, "GET", only.url+"/api/v2/pushes/"+tok, nil)
		if obj.(map[string]any)["payload"] != fmt.Sprint("secret ", i) {
			t.Fatalf("push %d after rotation: %v", i, obj)
		}
	}
}

func merge(env map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for key, val := range env {
		out[key] = val
	}
	return out
}

// onlyOnPostgresPass runs the multi-instance tests once, in the PostgreSQL
// pass of make test, instead of in both passes.
func onlyOnPostgresPass(t *testing.T) {
	if testdb.Engine() != "postgres" {
		t.Skip("multi-instance tests run in the PostgreSQL pass (HUSH_TEST_ENGINE=postgres)")
	}
}

// TestKeyRotationPastARunningInstance: `hush key rotate` run while an
// instance serves with the old key alone (the README's order reversed).
// That instance notices, stops sealing and is not ready; what it cannot
// open it answers 503 without spending a view or a passphrase guess; and
// once restarted with the new key alone, nothing was lost.
func TestKeyRotationPastARunningInstance(t *testing.T) {
	if testdb.Engine() == "postgres" {
		t.Skip("runs in the SQLite pass")
	}
	keyA, keyB := strings.Repeat("a7", 32), strings.Repeat("b8", 32)
	dir := t.TempDir()
	old := startInstance(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyA})
	create := func(in *instance, push map[string]any) (int, string) {
		status, obj := call(t, "POST", in.url+"/api/v2/pushes", map[string]any{"push": push})
		if status != 201 {
			return status, ""
		}
		return status, obj.(map[string]any)["url_token"].(string)
	}
	_, plain := create(old, map[string]any{"payload": "one view", "expire_after_views": 1})
	_, guarded := create(old, map[string]any{"payload": "guarded", "passphrase": "open sesame", "expire_after_views": 1})

	rot := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB, "HUSH_MASTER_KEY_PREVIOUS": keyA}
	if code, out, errOut := run(t, rot, "", "key", "rotate", "-settle", "0"); code != 0 {
		t.Fatalf("rotate: exit %d %q %q", code, out, errOut)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		status, obj := call(t, "GET", old.url+"/readyz", nil)
		if status == 503 && obj.(map[string]any)["master_key"] == "rotated" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the instance on the old key is still ready: %d %v\n%s", status, obj, old.log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(old.log.String(), "restart it with the new key") {
		t.Errorf("no log line tells the operator what to do:\n%s", old.log.String())
	}
	for _, path := range []string{"/api/v2/pushes/" + plain, "/p/" + plain + ".json"} {
		if status, _ := call(t, "GET", old.url+path, nil); status != 503 {
			t.Errorf("GET %s on the instance without the new key: %d, want 503", path, status)
		}
	}
	if res, err := http.Get(old.url + "/p/" + plain); err != nil || res.StatusCode != 503 {
		t.Errorf("the web page on the instance without the new key: %v %v, want 503", res, err)
	} else {
		res.Body.Close()
	}
	for i := 0; i < 7; i++ { // more than the 5 guesses a minute
		if status, _ := call(t, "GET", old.url+"/api/v2/pushes/"+guarded+"?passphrase=open+sesame", nil); status != 503 {
			t.Fatalf("passphrase retrieval %d on the instance without the new key: %d, want 503", i, status)
		}
	}
	if status, _ := create(old, map[string]any{"payload": "sealed under the old key"}); status != 503 {
		t.Errorf("create on the instance without the new key: %d, want 503", status)
	}
	// Ten refused retrievals, one line telling the operator (at most one a minute).
	if n := strings.Count(old.log.String(), "does not hold: start it with that key"); n != 1 {
		t.Errorf("%d log lines about the missing key, want 1:\n%s", n, old.log.String())
	}
	old.stop()

	// The new key alone opens everything, and nothing was spent.
	only := startInstance(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_MASTER_KEY": keyB})
	if _, obj := call(t, "GET", only.url+"/api/v2/pushes/"+plain, nil); obj.(map[string]any)["payload"] != "one view" {
		t.Errorf("the one-view push after the 503s: %v", obj)
	}
	if _, obj := call(t, "GET", only.url+"/api/v2/pushes/"+guarded+"?passphrase=open+sesame", nil); obj.(map[string]any)["payload"] != "guarded" {
		t.Errorf("the passphrase push after the 503s: %v", obj)
	}
}
