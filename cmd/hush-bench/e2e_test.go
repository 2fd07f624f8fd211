package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startBaseline serves the baseline on a free loopback port until the test ends.
func startBaseline(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- serveBaseline(ctx, "127.0.0.1:0", func(a net.Addr) { addr <- a }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("baseline: %v", err)
		}
	})
	select {
	case a := <-addr:
		return "http://" + a.String()
	case err := <-done:
		t.Fatalf("baseline did not start: %v", err)
	}
	return ""
}

func TestScenariosAgainstBaseline(t *testing.T) {
	url := startBaseline(t)
	for _, sc := range []string{"create", "cycle", "retrieve", "passphrase"} {
		for _, rate := range []float64{0, 2000} {
			name := sc
			if rate > 0 {
				name += "/open"
			}
			t.Run(name, func(t *testing.T) {
				res, err := run(context.Background(), runConfig{
					url: url, scenario: sc, conns: 4, dur: 300 * time.Millisecond,
					warmup: 50 * time.Millisecond, payload: 64, pids: []int{os.Getpid()}, rate: rate,
				})
				if err != nil {
					t.Fatal(err)
				}
				if res.Requests == 0 || res.Errors != 0 {
					t.Fatalf("requests %d, errors %d (%s)", res.Requests, res.Errors, res.FirstError)
				}
				if res.P50 > res.P99 || res.P99 > res.Max || res.ServerPeakRSSKiB == 0 {
					t.Errorf("inconsistent report: %+v", res)
				}
			})
		}
	}
}

// A 1-view push answers its payload once, then an expired object.
func TestBaselineHonoursViews(t *testing.T) {
	c := newClient([]string{startBaseline(t)}, 1, 16, dialectPwpush)
	ctx := context.Background()
	var buf bytes.Buffer
	token, err := c.create(ctx, c.createBody(1), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.retrieve(ctx, token, &buf); err != nil {
		t.Fatalf("first retrieve: %v", err)
	}
	err = c.retrieve(ctx, token, &buf)
	if err == nil || !strings.Contains(buf.String(), `"expired":true`) || !strings.Contains(buf.String(), `"payload":null`) {
		t.Fatalf("second retrieve: %v, %s", err, buf.String())
	}
	if _, err := c.do(ctx, "GET", "/api/v2/pushes/nope", nil, &buf); err != nil || !strings.Contains(buf.String(), "Not Found") {
		t.Errorf("unknown token: %v %s", err, buf.String())
	}
}

// A passphrase push answers as Hush does: 401 without the right passphrase
// (no view taken), the payload and the passphrase given with it.
func TestBaselinePassphrase(t *testing.T) {
	c := newClient([]string{startBaseline(t)}, 1, 16, dialectPwpush)
	ctx := context.Background()
	var buf bytes.Buffer
	token, err := c.create(ctx, c.createPassphraseBody(2, "open sesame"), &buf)
	if err != nil || !strings.Contains(buf.String(), `"passphrase":"open sesame"`) {
		t.Fatalf("create: %v %s", err, buf.String())
	}
	for _, wrong := range []string{"", "open"} {
		status, err := c.do(ctx, "GET", "/api/v2/pushes/"+token+"?passphrase="+wrong, nil, &buf)
		if err != nil || status != 401 || !strings.Contains(buf.String(), `"error":"That passphrase is incorrect."`) ||
			!strings.Contains(buf.String(), `"status":"unauthorized"`) {
			t.Fatalf("passphrase %q: %d %v %s", wrong, status, err, buf.String())
		}
	}
	if err := c.retrieveWith(ctx, token, "open sesame", &buf); err != nil ||
		!strings.Contains(buf.String(), `"passphrase":"open sesame"`) || !strings.Contains(buf.String(), `"views_remaining":1`) {
		t.Fatalf("right passphrase: %v %s", err, buf.String())
	}
	if err := c.retrieveWith(ctx, token, "open sesame", &buf); err != nil || !strings.Contains(buf.String(), `"views_remaining":0`) {
		t.Fatalf("last view: %v %s", err, buf.String())
	}
	// Used up: the expired object, whatever the passphrase.
	if status, err := c.do(ctx, "GET", "/api/v2/pushes/"+token, nil, &buf); err != nil || status != 200 ||
		!strings.Contains(buf.String(), `"payload":null`) || !strings.Contains(buf.String(), `"passphrase":null`) {
		t.Fatalf("expired: %d %v %s", status, err, buf.String())
	}
	// A push without a passphrase ignores one sent.
	plain, err := c.create(ctx, c.createBody(1), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.retrieveWith(ctx, plain, "anything", &buf); err != nil || !strings.Contains(buf.String(), `"passphrase":""`) {
		t.Fatalf("push without a passphrase: %v %s", err, buf.String())
	}
}

func TestRunRefusesRemoteAndBounds(t *testing.T) {
	for _, cfg := range []runConfig{
		{url: "http://192.0.2.1:80", scenario: "create", conns: 1, dur: time.Second, payload: 1},
		{url: "http://127.0.0.1:1", scenario: "create", conns: 1, dur: time.Hour, payload: 1},
		{url: "http://127.0.0.1:1", scenario: "create", conns: 0, dur: time.Second, payload: 1},
	} {
		if _, err := run(context.Background(), cfg); err == nil {
			t.Errorf("run(%+v) succeeded", cfg)
		}
	}
	var out, errOut bytes.Buffer
	if code := mainCode(context.Background(), []string{"baseline", "-addr", "0.0.0.0:0"}, &out, &errOut); code == 0 {
		t.Error("baseline listened on a non-loopback address")
	}
	if code := mainCode(context.Background(), []string{"run", "-url", "http://127.0.0.1:1", "-scenario", "nope", "-d", "1s"}, &out, &errOut); code == 0 {
		t.Error("an unknown scenario was accepted")
	}
}

func TestJSONReport(t *testing.T) {
	url := startBaseline(t)
	var out, errOut bytes.Buffer
	code := mainCode(context.Background(), []string{"run", "-url", url, "-scenario", "create", "-c", "2",
		"-d", "200ms", "-warmup", "0s", "-json", "-pid", strconv.Itoa(os.Getpid())}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	if strings.Count(s, "\n") != 1 || !strings.Contains(s, `"scenario":"create"`) || !strings.Contains(s, `"server_cpu_us_per_req"`) {
		t.Errorf("JSON report: %s", s)
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.WindowEndMS-r.WindowStartMS != 200 || time.Since(time.UnixMilli(r.WindowEndMS)) > time.Minute {
		t.Errorf("window %d..%d ms, want 200 ms just now", r.WindowStartMS, r.WindowEndMS)
	}
}

// With several URLs the load generator takes them in turn: two servers on
// one store each get half of the requests, and a push created through one
// is retrieved through the other.
func TestRunSpreadsOverURLs(t *testing.T) {
	b := newBaseServer()
	var mu sync.Mutex
	hits := map[string]int{}
	count := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[name]++
			mu.Unlock()
			b.handler().ServeHTTP(w, r)
		})
	}
	one, two := httptest.NewServer(count("one")), httptest.NewServer(count("two"))
	defer one.Close()
	defer two.Close()
	res, err := run(context.Background(), runConfig{url: one.URL + "," + two.URL, scenario: "cycle", conns: 3,
		dur: 300 * time.Millisecond, warmup: 50 * time.Millisecond, payload: 64})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != 0 || res.URL != one.URL+","+two.URL {
		t.Fatalf("requests %d, errors %d (%s), url %s", res.Requests, res.Errors, res.FirstError, res.URL)
	}
	mu.Lock()
	defer mu.Unlock()
	if n1, n2 := hits["one"], hits["two"]; n1 == 0 || n2 == 0 || n1 > n2+n2/10+10 || n2 > n1+n1/10+10 {
		t.Errorf("requests per server: %d and %d", n1, n2)
	}
	if _, err := run(context.Background(), runConfig{url: one.URL + ",http://192.0.2.1:80", scenario: "create",
		conns: 1, dur: time.Second, payload: 1}); err == nil {
		t.Error("a remote second URL was accepted")
	}
}
