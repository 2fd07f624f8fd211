package app

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hush/internal/faultproxy"
	"hush/internal/service"
	"hush/internal/testdb"
)

// storageOutage starts serve on a database it can take away: on SQLite by
// holding the write lock from another connection (with a short busy
// timeout), on PostgreSQL by a proxy that turns to refusing connections.
// It returns the server, the fault's cause as readiness names it, and the
// functions that begin and end the outage.
func storageOutage(t *testing.T) (srv *served, cause string, begin, end func()) {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir, "PWP__PW__RETRIEVAL_STEP_DEFAULT": "false"}
	if testdb.Engine() == "postgres" {
		u, err := url.Parse(testdb.PostgresURL(t))
		if err != nil {
			t.Fatal(err)
		}
		proxy, err := faultproxy.Start(u.Host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proxy.Close() })
		u.Host = proxy.Addr()
		env["HUSH_DATABASE_URL"] = u.String()
		return startServe(t, env), "unreachable",
			func() { proxy.Set(faultproxy.Refuse); proxy.Cut() },
			func() { proxy.Set(faultproxy.Pass) }
	}
	env["HUSH_SQLITE_BUSY_TIMEOUT"] = "200ms"
	srv = startServe(t, env)
	var release func()
	begin = func() {
		var err error
		if release, err = testdb.LockWrites(context.Background(), filepath.Join(dir, "hush.db")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(release)
	}
	end = func() { release() }
	return srv, "busy", begin, end
}

// TestStorageFaultAnswers takes the database away from a running server:
// every route that must write answers 503 with Retry-After and a message
// (a page on the web), never 500; readiness says which part fails while
// liveness holds; the fault is logged once, not per request; a one-view
// push asked for meanwhile keeps its view; and when the database is back
// everything works again without a restart, and the log says so.
func TestStorageFaultAnswers(t *testing.T) {
	srv, cause, begin, end := storageOutage(t)
	p := newPeer(t, srv.url, 1)
	onceTok := p.createPush(map[string]any{"payload": "read me once", "expire_after_views": 1})

	begin()
	checks := []struct {
		name string
		do   func() reply
	}{
		{"API create", func() reply {
			return p.json("POST", "/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "during"}})
		}},
		{"API retrieve", func() reply { return p.get("/api/v2/pushes/" + onceTok) }},
		{"v1 create", func() reply {
			return p.json("POST", "/p.json", map[string]any{"password": map[string]any{"payload": "during"}})
		}},
		{"v1 retrieve", func() reply { return p.get("/p/" + onceTok + ".json") }},
	}
	for _, c := range checks {
		r := c.do()
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, service.MsgUnavailable) {
			t.Errorf("%s during the outage: %d %.200s; want 503 with the message", c.name, r.status, r.body)
		}
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
			t.Errorf("%s: Retry-After %q", c.name, r.header.Get("Retry-After"))
		}
	}
	web := p.form("/", url.Values{"kind": {"text"}, "payload": {"during"}})
	if web.status != http.StatusServiceUnavailable || !strings.Contains(web.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(web.body, "try again") || web.header.Get("Retry-After") == "" {
		t.Errorf("web create during the outage: %d %s %.300s", web.status, web.header.Get("Content-Type"), web.body)
	}
	time.Sleep(1100 * time.Millisecond) // past the last readiness answer kept
	if r := p.get("/readyz"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, `"database":"`+cause+`"`) {
		t.Errorf("/readyz during the outage: %d %s", r.status, r.body)
	}
	if r := p.get("/healthz"); r.status != http.StatusOK {
		t.Errorf("/healthz during the outage: %d", r.status)
	}
	if n := strings.Count(srv.log.String(), "storage fault: requests fail until it clears"); n != 1 {
		t.Errorf("the fault was logged %d times for %d failed requests, want once:\n%s", n, len(checks)+1, srv.log.String())
	}
	if strings.Contains(srv.log.String(), "request failed") {
		t.Errorf("a storage fault was logged as a failed request (a bug):\n%s", srv.log.String())
	}

	end()
	deadline := time.Now().Add(15 * time.Second)
	for p.get("/readyz").status != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("not ready 15s after the database came back:\n%s", srv.log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := p.get("/api/v2/pushes/" + onceTok); r.status != http.StatusOK || r.obj(t)["payload"] != "read me once" {
		t.Errorf("the one-view push after the outage: %d %.200s; its view must not have been spent", r.status, r.body)
	}
	p.createPush(map[string]any{"payload": "after"})
	for !strings.Contains(srv.log.String(), "storage fault cleared") {
		if time.Now().After(deadline) {
			t.Fatalf("the end of the fault was not logged:\n%s", srv.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReleaseBuildIgnoresFaultClock: the clock shift of the fault tests
// exists only in a build with the faultclock tag; a release build pays the
// setting no heed, so no environment can move its expiry.
func TestReleaseBuildIgnoresFaultClock(t *testing.T) {
	dir := t.TempDir()
	shift := filepath.Join(dir, "clock")
	if err := os.WriteFile(shift, []byte("1000h"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_FAULT_CLOCK_FILE": shift,
		"PWP__PW__RETRIEVAL_STEP_DEFAULT": "false"})
	p := newPeer(t, srv.url, 1)
	tok := p.createPush(map[string]any{"payload": "p", "expire_after_days": 1})
	if r := p.get("/api/v2/pushes/" + tok); r.status != http.StatusOK || r.obj(t)["expired"] != false {
		t.Fatalf("a one-day push with the clock file set to 1000h: %d %.200s", r.status, r.body)
	}
}
