// Package faults runs fault scenarios against a built hush binary: the
// database locked by another process, a full disk, PostgreSQL stopped and
// frozen, one of two instances killed, the S3 server gone mid-transfer,
// kill -9 during key rotation, floods of idle and slow connections, and the
// clock carried past expiry. Each scenario checks the promises that must
// hold through a fault — no acknowledged push lost, no view over its limit,
// no view spent for a client that had gone, recovery without a restart —
// and the answers promised while it lasts (503 with Retry-After, 507,
// readiness), and reports its figures. Everything runs on loopback; every
// process started is stopped. `make faults` runs the long versions;
// TestFaults, part of `make test`, the short ones.
package faults

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"hush/internal/client"
	"hush/internal/hushproc"
)

// Options configure a run.
type Options struct {
	// Binary is hush built with -tags faultclock.
	Binary string
	// Long runs the scenarios at the scale of the original fault run
	// (minutes); otherwise they take seconds each.
	Long bool
	// Dir returns a fresh scratch directory.
	Dir func() string
	// Postgres returns the URL of a fresh PostgreSQL database.
	Postgres func() string
	// S3 returns the endpoint (host:port), access key, secret key and a
	// fresh bucket of an S3-compatible server.
	S3 func() (endpoint, access, secret, bucket string)
	// Logf reports progress.
	Logf func(format string, args ...any)
}

// Outcome is what one scenario found.
type Outcome struct {
	Name  string
	Fault string // the fault, as the table shows it
	// Result says what clients and operators saw, with the figures.
	Result     string
	Violations []string
}

// Scenario is one fault.
type Scenario struct {
	Name  string
	Fault string
	run   func(ctx context.Context, w *world) (string, error)
}

// Scenarios are every fault, in the order of the table of
// docs/reliability.md.
var Scenarios = []Scenario{
	{"sqlite-lock", "SQLite database locked by another process", sqliteLock},
	{"disk-full", "disk full (data directory on a full filesystem)", diskFull},
	{"postgres-down", "PostgreSQL stopped under load", postgresDown},
	{"postgres-frozen", "PostgreSQL frozen (connections accepted, nothing answered)", postgresFrozen},
	{"instance-kill", "one of two instances killed (kill -9) under load", instanceKill},
	{"s3-down", "S3 server gone mid-transfer", s3Down},
	{"rotate-kill", "kill -9 during `hush key rotate`", rotateKill},
	{"connection-flood", "floods of idle and slow connections", connectionFlood},
	{"clock-jump", "clock carried past expiry (faultclock build)", clockJump},
}

// Run runs one scenario.
func Run(ctx context.Context, opt Options, s Scenario) Outcome {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	w := &world{opt: opt, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}},
		created: map[string]*tracked{}}
	defer w.cleanup()
	result, err := s.run(ctx, w)
	if err != nil {
		w.violate("scenario could not run: %v", err)
	}
	if n := w.status(http.StatusInternalServerError); n > 0 {
		w.violate("%d answers were 500", n)
	}
	return Outcome{Name: s.Name, Fault: s.Fault, Result: result, Violations: w.violations}
}

// Table renders outcomes as the Markdown table of docs/reliability.md.
func Table(outs []Outcome) string {
	var b strings.Builder
	b.WriteString("| fault | outcome | promises |\n|---|---|---|\n")
	for _, o := range outs {
		held := "held"
		if len(o.Violations) > 0 {
			held = "**broken**: " + strings.Join(o.Violations, "; ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", o.Fault, o.Result, held)
	}
	return b.String()
}

// world is what one scenario works with: its processes, its clients and
// what it has been promised.
type world struct {
	opt Options
	hc  *http.Client

	mu         sync.Mutex
	procs      []*hushproc.Proc
	cleanups   []func()
	created    map[string]*tracked
	statuses   map[int]int
	violations []string
}

// tracked is a push the server acknowledged (201).
type tracked struct {
	payload string
	views   int
	served  int // 200s that carried the payload
}

func (w *world) violate(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.violations) < 20 {
		w.violations = append(w.violations, fmt.Sprintf(format, args...))
	}
}

func (w *world) onCleanup(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cleanups = append(w.cleanups, f)
}

func (w *world) cleanup() {
	for _, p := range w.procs {
		if !p.Exited() {
			p.Stop()
		}
	}
	for i := len(w.cleanups) - 1; i >= 0; i-- {
		w.cleanups[i]()
	}
}

// env is the environment of the scenario's hush processes, with extra
// settings (KEY=value) last.
func (w *world) env(extra ...string) []string {
	base := []string{
		"PATH=" + os.Getenv("PATH"),
		"HUSH_ADDR=127.0.0.1:0",
		"HUSH_LOG_LEVEL=info",
		"HUSH_MASTER_KEY=" + strings.Repeat("f4", 32),
		"PWP__THROTTLING__MINUTE=0",
		"PWP__THROTTLING__SECOND=0",
		"PWP__PW__RETRIEVAL_STEP_DEFAULT=false",
	}
	return append(base, extra...)
}

// start runs hush serve with env and keeps it for the cleanup.
func (w *world) start(spec hushproc.Spec) (*hushproc.Proc, error) {
	p, err := hushproc.Start(spec)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.procs = append(w.procs, p)
	w.mu.Unlock()
	return p, nil
}

// client is an anonymous API client of base.
func (w *world) client(base string) *client.Client { return &client.Client{Base: base, HTTP: w.hc} }

func (w *world) count(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.statuses == nil {
		w.statuses = map[int]int{}
	}
	w.statuses[status]++
}

func (w *world) status(code int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.statuses[code]
}

// statusLine summarises the answers seen, e.g. "201×40 503×12".
func (w *world) statusLine() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var codes []int
	for c := range w.statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		name := strconv.Itoa(c)
		if c == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%s×%d", name, w.statuses[c]))
	}
	return strings.Join(parts, " ")
}

// answer is one request's outcome: its status (0 when there was none:
// the client gave up or the connection failed) and headers.
type answer struct {
	status int
	header http.Header
	push   *client.Push
}

// statusOf reads the status of a client call's error.
func statusOf(err error) (int, http.Header) {
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Status, nil
	}
	return 0, nil
}

// create creates a text push of views views through base, within timeout,
// and tracks it when acknowledged.
func (w *world) create(ctx context.Context, base, payload string, views int, timeout time.Duration) answer {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := w.client(base).Do(ctx, "POST", "/api/v2/pushes",
		strings.NewReader(fmt.Sprintf(`{"push":{"payload":%q,"expire_after_views":%d}}`, payload, views)),
		http.Header{"Content-Type": {"application/json"}})
	a := answer{}
	if err == nil {
		a.status, a.header = res.Status, res.Header
	}
	w.count(a.status)
	w.checkRetryAfter("create", a)
	if a.status == http.StatusCreated {
		var p client.Push
		if err := jsonUnmarshal(res.Body, &p); err != nil {
			w.violate("create: 201 without a push: %v", err)
			return a
		}
		a.push = &p
		w.mu.Lock()
		w.created[p.URLToken] = &tracked{payload: payload, views: views}
		w.mu.Unlock()
	}
	return a
}

// retrieve retrieves tok through base within timeout and counts a view
// served when the payload came back.
func (w *world) retrieve(ctx context.Context, base, tok string, timeout time.Duration) answer {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := w.client(base).Do(ctx, "GET", "/api/v2/pushes/"+tok, nil, nil)
	a := answer{}
	if err == nil {
		a.status, a.header = res.Status, res.Header
	}
	w.count(a.status)
	w.checkRetryAfter("retrieve", a)
	if a.status != http.StatusOK {
		return a
	}
	var p client.Push
	if err := jsonUnmarshal(res.Body, &p); err != nil {
		w.violate("retrieve: 200 without a push: %v", err)
		return a
	}
	a.push = &p
	if p.Payload != nil {
		w.mu.Lock()
		if t := w.created[tok]; t != nil {
			t.served++
			if *p.Payload != t.payload {
				w.violations = append(w.violations, "a push came back with another payload")
			}
			if t.served > t.views {
				w.violations = append(w.violations, fmt.Sprintf("a push of %d views was served %d times", t.views, t.served))
			}
		}
		w.mu.Unlock()
	}
	return a
}

// checkRetryAfter: a 503 says when to try again.
func (w *world) checkRetryAfter(what string, a answer) {
	if a.status != http.StatusServiceUnavailable {
		return
	}
	if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || s < 1 {
		w.violate("%s: 503 without Retry-After", what)
	}
}

// verifyAll checks every acknowledged push through base: one with views
// left still serves its payload, one served up to its limit is gone.
func (w *world) verifyAll(ctx context.Context, base string) int {
	w.mu.Lock()
	toks := make([]string, 0, len(w.created))
	for tok := range w.created {
		toks = append(toks, tok)
	}
	w.mu.Unlock()
	checked := 0
	for _, tok := range toks {
		w.mu.Lock()
		t := *w.created[tok]
		w.mu.Unlock()
		a := w.retrieve(ctx, base, tok, 30*time.Second)
		switch {
		case t.served < t.views && (a.status != http.StatusOK || a.push == nil || a.push.Payload == nil):
			w.violate("an acknowledged push with views left did not serve its payload (status %d)", a.status)
		case t.served >= t.views && a.push != nil && a.push.Payload != nil:
			w.violate("a push was served beyond its %d views", t.views)
		}
		checked++
	}
	return checked
}

// waitReady polls base/readyz until it answers 200 and returns how long
// that took.
func (w *world) waitReady(ctx context.Context, base string, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for time.Since(start) < limit {
		if st := w.readyz(ctx, base); st.status == http.StatusOK {
			return time.Since(start), nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0, fmt.Errorf("not ready %v after the fault ended", limit)
}

// readiness is an answer of /readyz.
type readiness struct {
	status int
	body   string
}

// readyz asks base/readyz (within 5 s) and returns the answer and body.
func (w *world) readyz(ctx context.Context, base string) (a readiness) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := w.client(base).Do(ctx, "GET", "/readyz", nil, nil)
	if err == nil {
		a.status, a.body = res.Status, strings.TrimSpace(string(res.Body))
	}
	return a
}

// scale picks the short or the long figure.
func (w *world) scale(short, long int) int {
	if w.opt.Long {
		return long
	}
	return short
}

func (w *world) scaleD(short, long time.Duration) time.Duration {
	if w.opt.Long {
		return long
	}
	return short
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
