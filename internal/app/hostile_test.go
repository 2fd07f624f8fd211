package app

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hush/internal/client"
	"hush/internal/testdb"
)

// rowCounts counts the rows hostile requests could add or change, and the
// blobs in the file store.
func rowCounts(t *testing.T, env map[string]string) string {
	t.Helper()
	driver, dsn := "sqlite", "file:"+filepath.Join(env["HUSH_DATA_DIR"], "hush.db")+"?mode=ro"
	if testdb.Engine() == "postgres" {
		driver, dsn = "pgx", withDB(t, env)["HUSH_DATABASE_URL"]
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, q := range []string{
		"SELECT COUNT(*) FROM pushes", "SELECT COUNT(*) FROM audit_logs", "SELECT COUNT(*) FROM push_files",
		"SELECT COALESCE(SUM(view_count), 0) FROM pushes", "SELECT COUNT(*) FROM pushes WHERE expired <> 0",
	} {
		var n int64
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, fmt.Sprint(n))
	}
	blobs := 0
	filepath.WalkDir(env["HUSH_DATA_DIR"], func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), "hush.db") && d.Name() != "master.key" {
			blobs++
		}
		return nil
	})
	return strings.Join(out, "/") + fmt.Sprintf(" blobs=%d", blobs)
}

type hostile struct {
	name, method, path, ctype string
	body                      []byte
	hdr                       []string
	want                      []int // any of these
}

func jsonCase(name, body string, want ...int) hostile {
	return hostile{name: name, method: "POST", path: "/api/v2/pushes", ctype: "application/json", body: []byte(body), want: want}
}

func TestHostileInput(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_MAX_JSON_BODY": "65536", "PWP__PW__RETRIEVAL_STEP_DEFAULT": "false"}
	apiToken := apiToken(t, env, "h@example.com", "hostile password")
	srv := startServe(t, env)
	_, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "victim", "expire_after_views": 3}})
	victim := obj.(map[string]any)["url_token"].(string)

	cases := []hostile{
		jsonCase("oversized body", `{"push":{"payload":"`+strings.Repeat("A", 70000)+`"}}`, 413),
		jsonCase("deeply nested JSON", `{"push":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`, 400),
		jsonCase("deeply nested payload", `{"push":{"payload":`+strings.Repeat(`{"a":`, 10000)+`1`+strings.Repeat("}", 10000)+`}}`, 400, 422),
		jsonCase("duplicate keys", `{"push":{"payload":"a","payload":"b","expire_after_views":"x"}}`, 400, 422),
		// Numbers of any size are brought into range (docs/decisions.md, D3).
		jsonCase("1e309 views", `{"push":{"payload":"a","expire_after_views":1e309}}`, 201),
		jsonCase("1e309 days", `{"push":{"payload":"a","expire_after_days":1e309}}`, 201),
		jsonCase("negative views", `{"push":{"payload":"a","expire_after_views":-1}}`, 201),
		jsonCase("zero days", `{"push":{"payload":"a","expire_after_days":0}}`, 201),
		jsonCase("huge views", `{"push":{"payload":"a","expire_after_views":9223372036854775808}}`, 201),
		jsonCase("huge days string", `{"push":{"payload":"a","expire_after_days":"99999999999999999999"}}`, 201),
		jsonCase("fractional views", `{"push":{"payload":"a","expire_after_views":1.5}}`, 201),
		jsonCase("days not a number", `{"push":{"payload":"a","expire_after_days":"1e309x"}}`, 422),
		jsonCase("days an object", `{"push":{"payload":"a","expire_after_days":{"$gt":1}}}`, 422),
		jsonCase("invalid UTF-8 in payload", "{\"push\":{\"payload\":\"a\xff\xfeb\"}}", 400),
		jsonCase("invalid UTF-8 in passphrase", "{\"push\":{\"payload\":\"a\",\"passphrase\":\"\xc3\x28\"}}", 400),
		jsonCase("invalid UTF-8 in name", "{\"push\":{\"payload\":\"a\",\"name\":\"\xed\xa0\x80\"}}", 400),
		jsonCase("invalid UTF-8 in note", "{\"push\":{\"payload\":\"a\",\"note\":\"\xf8\"}}", 400),
		jsonCase("invalid UTF-8 in kind", "{\"push\":{\"payload\":\"a\",\"kind\":\"te\xffxt\"}}", 400),
		jsonCase("NUL in kind", `{"push":{"payload":"a","kind":"text\u0000"}}`, 422),
		jsonCase("NUL in days", `{"push":{"payload":"a","expire_after_days":"3\u0000"}}`, 422),
		jsonCase("lone surrogate escape in kind", `{"push":{"payload":"a","kind":"\ud800"}}`, 422),
		jsonCase("url kind with NUL", `{"push":{"payload":"https://ex\u0000ample.com","kind":"url"}}`, 422),
		jsonCase("url kind javascript:", `{"push":{"payload":"javascript:alert(1)","kind":"url"}}`, 422),
		jsonCase("push is a string", `{"push":"payload"}`, 400),
		jsonCase("trailing garbage", `{"push":{"payload":"a"}} {"push":{}}`, 400),
		jsonCase("empty body", ``, 400, 422),
		{name: "XML content type", method: "POST", path: "/api/v2/pushes", ctype: "application/xml", body: []byte(`<push><payload>a</payload></push>`), want: []int{400}},
		{name: "multipart without boundary", method: "POST", path: "/api/v2/pushes", ctype: "multipart/form-data", body: []byte("--x\r\n"), want: []int{400}},
		{name: "multipart truncated", method: "POST", path: "/api/v2/pushes", ctype: "multipart/form-data; boundary=zz",
			body: []byte("--zz\r\nContent-Disposition: form-data; name=\"push[files][]\"; filename=\"a\"\r\n\r\nabc"), hdr: []string{"Authorization", "Bearer " + apiToken}, want: []int{400}},
		{name: "files without a token", method: "POST", path: "/api/v2/pushes", ctype: "application/json",
			body: []byte(`{"push":{"files":[{"filename":"a","content_base64":"YQ=="}]}}`), want: []int{401}},
		{name: "bad token", method: "GET", path: "/api/v2/pushes/active", hdr: []string{"Authorization", "Bearer ../../etc/passwd"}, want: []int{401}},
		{name: "token with NUL", method: "GET", path: "/api/v2/pushes/" + victim + "%00", want: []int{404}},
		{name: "token ..%2f", method: "GET", path: "/api/v2/pushes/..%2f..%2f" + victim, want: []int{404}},
		{name: "token %2e%2e", method: "GET", path: "/api/v2/pushes/%2e%2e/audit", want: []int{301, 307, 401, 404}},
		// Served as its canonical path (docs/decisions.md, D31); a preview uses no view.
		{name: "token dot-dot", method: "GET", path: "/api/v2/pushes/../pushes/" + victim + "/preview", want: []int{200}},
		{name: "look-alike active", method: "GET", path: "/api/v2/pushes/%EF%BD%81ctive", want: []int{404}},
		{name: "look-alike slash", method: "GET", path: "/api/v2/pushes/a%EF%BC%8F" + victim, want: []int{404}},
		{name: "web token %2f", method: "GET", path: "/p/x%2f" + victim + "/r", want: []int{200, 404}},
		{name: "file link traversal", method: "GET", path: "/api/v2/files/..%2f..%2fhush.db", want: []int{404}},
		{name: "file link garbage", method: "GET", path: "/api/v2/files/" + strings.Repeat("A", 4000), want: []int{404}},
		{name: "PUT pushes", method: "PUT", path: "/api/v2/pushes", ctype: "application/json", body: []byte(`{"push":{"payload":"a"}}`), want: []int{405}},
		{name: "PATCH push", method: "PATCH", path: "/api/v2/pushes/" + victim, want: []int{405}},
		{name: "DELETE version", method: "DELETE", path: "/api/v2/version", want: []int{405}},
		{name: "HEAD retrieve", method: "HEAD", path: "/api/v2/pushes/" + victim, want: []int{405}},
		{name: "TRACE web", method: "TRACE", path: "/", want: []int{404, 405}},
		{name: "PUT web secret", method: "PUT", path: "/p/" + victim, want: []int{404, 405}},
		{name: "huge page", method: "GET", path: "/api/v2/pushes/active?page=99999999999999999999", hdr: []string{"Authorization", "Bearer " + apiToken}, want: []int{400}},
		{name: "negative page", method: "GET", path: "/api/v2/pushes/active?page=-1", hdr: []string{"Authorization", "Bearer " + apiToken}, want: []int{200}},
		{name: "page a word", method: "GET", path: "/api/v2/pushes/active?page=one", hdr: []string{"Authorization", "Bearer " + apiToken}, want: []int{400}},
		{name: "oversized header", method: "GET", path: "/api/v2/version", hdr: []string{"X-Big", strings.Repeat("b", 100<<10)}, want: []int{431}},
		{name: "sign-in email invalid UTF-8", method: "POST", path: "/users/sign_in", ctype: "application/x-www-form-urlencoded", body: []byte("email=%ff%fe%40x.com&password=x"), want: []int{200, 400, 401, 422}},
		{name: "sign-up email invalid UTF-8", method: "POST", path: "/users/sign_up", ctype: "application/x-www-form-urlencoded", body: []byte("email=%ff%40x.com&password=%ff%ff%ff%ff%ff%ff%ff%ff&password_confirmation=%ff%ff%ff%ff%ff%ff%ff%ff"), want: []int{200, 303, 400, 422}},
		{name: "token invalid UTF-8", method: "GET", path: "/api/v2/pushes/%FF%9A", want: []int{404}},
		{name: "web token invalid UTF-8", method: "GET", path: "/p/%FF%9A/r", want: []int{200, 404}},
		{name: "web form invalid UTF-8", method: "POST", path: "/", ctype: "application/x-www-form-urlencoded", body: []byte("push[payload]=%ff%fe&push[kind]=text"), hdr: []string{"Origin", srv.url}, want: []int{400, 422}},
	}
	// Multipart file names with path tricks: accepted, stored by their last
	// element only, never outside the file store.
	for _, name := range []string{"../../../../tmp/evil", "..%2f..%2fevil", "a\x00b.txt", "ｅｖｉｌ／..／x", "C:\\Windows\\evil.ini"} {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		mw.WriteField("push[payload]", "files")
		fw, _ := mw.CreateFormFile("push[files][]", name)
		fw.Write([]byte("content"))
		mw.Close()
		cases = append(cases, hostile{name: "file name " + name, method: "POST", path: "/api/v2/pushes", ctype: mw.FormDataContentType(),
			body: b.Bytes(), hdr: []string{"Authorization", "Bearer " + apiToken}, want: []int{201, 400, 422}})
	}

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range cases {
		before := rowCounts(t, env)
		req, err := http.NewRequest(c.method, srv.url+c.path, bytes.NewReader(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
		for i := 0; i+1 < len(c.hdr); i += 2 {
			req.Header.Set(c.hdr[i], c.hdr[i+1])
		}
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Logf("%-34q → %d", c.name, res.StatusCode)
		if !containsInt(c.want, res.StatusCode) {
			t.Errorf("%s: status %d, want %v: %.200s", c.name, res.StatusCode, c.want, body)
		}
		after := rowCounts(t, env)
		if res.StatusCode == 201 {
			checkStoredFileNames(t, srv.url, apiToken, body)
			continue
		}
		if after != before {
			t.Errorf("%s: rows changed %s → %s", c.name, before, after)
		}
	}
	// The victim was never viewed by any of it.
	_, got := call(t, "GET", srv.url+"/api/v2/pushes/"+victim, nil)
	if m := got.(map[string]any); m["payload"] != "victim" || m["views_remaining"] != float64(2) {
		t.Errorf("victim after the attack: %v", m)
	}
	if strings.Contains(srv.log.String(), "panic") {
		t.Errorf("a handler panicked:\n%s", srv.log.String())
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// checkStoredFileNames retrieves a created file push as its owner and checks
// that its file names hold no path.
func checkStoredFileNames(t *testing.T, base, apiToken string, created []byte) {
	t.Helper()
	tok := string(bytes.SplitN(bytes.SplitN(created, []byte(`"url_token":"`), 2)[1], []byte(`"`), 2)[0])
	_, got := call(t, "GET", base+"/api/v2/pushes/"+tok, nil, "Authorization", "Bearer "+apiToken)
	for _, f := range got.(map[string]any)["files"].([]any) {
		name := f.(map[string]any)["filename"].(string)
		if strings.ContainsAny(name, "/\\\x00") || name == ".." || name == "." {
			t.Errorf("stored file name %q holds a path", name)
		}
	}
}

// TestSlowClientsAreCut: slowloris headers and bodies are cut by the server
// timeouts (shortened here through HUSH_READ_HEADER_TIMEOUT and
// HUSH_READ_TIMEOUT) and store nothing.
func TestSlowClientsAreCut(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_READ_HEADER_TIMEOUT": "300ms", "HUSH_READ_TIMEOUT": "700ms"}
	srv := startServe(t, env)
	addr := strings.TrimPrefix(srv.url, "http://")
	before := rowCounts(t, env)
	for _, c := range []struct {
		name, head string
		trickle    string
	}{
		{"slow headers", "GET /api/v2/version HTTP/1.1\r\nHost: x\r\n", "X-Slow: " + strings.Repeat("a", 200)},
		{"slow body", "POST /api/v2/pushes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n",
			`{"push":{"payload":"` + strings.Repeat("s", 400)},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		conn.Write([]byte(c.head))
		closed := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(bufio.NewReader(conn))
			closed <- string(b)
		}()
		var reply string
	trickle:
		for i := 0; i < len(c.trickle); i++ {
			select {
			case reply = <-closed:
				break trickle
			case <-time.After(50 * time.Millisecond):
				if _, err := conn.Write([]byte{c.trickle[i]}); err != nil {
					reply = <-closed
					break trickle
				}
			}
		}
		elapsed := time.Since(start)
		conn.Close()
		t.Logf("%s: cut after %v, reply %.60q", c.name, elapsed.Round(time.Millisecond), reply)
		if elapsed > 5*time.Second {
			t.Errorf("%s: the server kept a slow client for %v", c.name, elapsed)
		}
		if strings.Contains(reply, " 201 ") || strings.Contains(reply, " 500 ") {
			t.Errorf("%s: reply %q", c.name, reply)
		}
	}
	if after := rowCounts(t, env); after != before {
		t.Errorf("slow clients changed rows: %s → %s", before, after)
	}
}

// TestHalfClosedClients: a client that closes its sending half after its
// request (or in the middle of an upload) has its request's work ended, as
// one that has gone. That is no fault of the server's: the answer it may
// still read is 499, not 500, nothing is logged as an error, no view is
// spent and nothing is stored (docs/decisions.md, D33). The same holds on
// every route: API v2, v1, the web page and a multipart create.
func TestHalfClosedClients(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	c := &client.Client{Base: srv.url}
	p, err := c.Create(t.Context(), map[string]any{"payload": "half-closed", "expire_after_views": 3})
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(srv.url, "http://")
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("push[payload]", "never stored")
	mw.Close()
	served := 0 // retrieves answered in full: the server finished before it saw the close
	for name, req := range map[string]string{
		"v2 retrieve": "GET /api/v2/pushes/" + p.URLToken + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"v1 retrieve": "GET /p/" + p.URLToken + ".json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"web page":    "GET /p/" + p.URLToken + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"v2 create": "POST /api/v2/pushes HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n" +
			"Content-Length: 34\r\n\r\n{\"push\":{\"payload\":\"never kept\"}}",
		"multipart create": "POST /api/v2/pushes HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: " + mw.FormDataContentType() +
			fmt.Sprintf("\r\nContent-Length: %d\r\n\r\n", mp.Len()) + mp.String(),
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, req)
		conn.(*net.TCPConn).CloseWrite()
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			conn.Close()
			t.Errorf("%s: no answer: %v", name, err)
			continue
		}
		body, _ := io.ReadAll(res.Body)
		conn.Close()
		switch {
		case res.StatusCode >= 500:
			t.Errorf("%s: %d %s, want 499 (or the ordinary answer, when the server was faster than the close)", name, res.StatusCode, body)
		case strings.HasSuffix(name, "retrieve") && res.StatusCode == http.StatusOK && strings.Contains(string(body), "half-closed"):
			served++
		}
	}
	q, err := c.Retrieve(t.Context(), p.URLToken, "")
	if err != nil || q.ViewsRemaining != 3-served-1 {
		t.Errorf("after the half-closed requests (%d served in full): %+v %v, want %d views left", served, q, err, 3-served-1)
	}
	srv.stop(t)
	if log := srv.log.String(); strings.Contains(log, "level=ERROR") {
		t.Errorf("a half-closed client was logged as an error:\n%s", log)
	}
}
