package crashtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hush/internal/client"
	"hush/internal/hushproc"
)

// Options configure a run.
type Options struct {
	Binary   string        // path to a built hush binary
	DataDir  string        // empty data directory
	Duration time.Duration // how long to run at least
	MinKills int           // how many kills at least (the run goes on until both are met)
	Clients  int           // concurrent clients
	Logf     func(format string, args ...any)
}

// Report counts what a run did. Violations lists every broken guarantee.
type Report struct {
	Kills, Restarts      int
	Created, FilePushes  int64
	ViewsServed          int64
	UnknownOutcomes      int64 // requests cut by a kill: the server may or may not have acted
	Verified, FilesCheck int64
	IntegrityChecks      int
	Violations           []string
}

func (r *Report) String() string {
	return fmt.Sprintf("kills=%d restarts=%d pushes_created=%d (with files %d) views_served=%d unknown_outcomes=%d pushes_verified=%d files_verified=%d integrity_checks=%d violations=%d",
		r.Kills, r.Restarts, r.Created, r.FilePushes, r.ViewsServed, r.UnknownOutcomes, r.Verified, r.FilesCheck, r.IntegrityChecks, len(r.Violations))
}

// tracked is what the clients know of one acknowledged push.
type tracked struct {
	token   string
	payload string
	limit   int
	files   map[string]string // filename → SHA-256 of the upload
	served  atomic.Int64      // payload-bearing responses received
	unknown atomic.Int64      // retrieves whose outcome a kill hid
}

type runner struct {
	opt    Options
	dir    string
	token  string // the API token of the owner of every push
	url    atomic.Value
	client *http.Client

	mu     sync.Mutex
	pushes []*tracked
	rep    Report
}

func (r *runner) violate(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.rep.Violations) < 100 {
		r.rep.Violations = append(r.rep.Violations, fmt.Sprintf(format, args...))
	}
}

// Run performs one crash test.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Clients <= 0 {
		opt.Clients = 8
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	r := &runner{opt: opt, dir: opt.DataDir, client: &http.Client{Timeout: 20 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: opt.Clients * 2}}}
	if _, err := hushproc.Admin(ctx, r.spec(), "user", "create", "--email", "crash@example.com", "--password", "crash test password"); err != nil {
		return nil, err
	}
	out, err := hushproc.Admin(ctx, r.spec(), "token", "create", "--email", "crash@example.com")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	r.token = strings.TrimSpace(lines[len(lines)-1])

	proc, err := hushproc.Start(r.spec())
	if err != nil {
		return nil, err
	}
	r.url.Store(proc.URL())
	load, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range opt.Clients {
		wg.Add(1)
		go func() { defer wg.Done(); r.client1(load, i) }()
	}
	start := time.Now()
	for ctx.Err() == nil && (time.Since(start) < opt.Duration || r.rep.Kills < opt.MinKills) {
		time.Sleep(time.Duration(300+mrand.IntN(1700)) * time.Millisecond)
		proc.Kill()
		r.rep.Kills++
		if ic, err := integrityCheck(r.dir); err != nil || ic != "ok" {
			r.violate("integrity_check after kill %d: %q %v", r.rep.Kills, ic, err)
		}
		r.rep.IntegrityChecks++
		if proc, err = hushproc.Start(r.spec()); err != nil {
			stopLoad()
			wg.Wait()
			return &r.rep, fmt.Errorf("restart after kill %d: %w", r.rep.Kills, err)
		}
		r.rep.Restarts++
		r.url.Store(proc.URL())
		r.verifySample(ctx, 10)
		opt.Logf("kill %d: %d pushes, %d views served", r.rep.Kills, r.created(), atomic.LoadInt64(&r.rep.ViewsServed))
	}
	stopLoad()
	wg.Wait()
	r.verifyAll(ctx)
	proc.Stop()
	if ic, err := integrityCheck(r.dir); err != nil || ic != "ok" {
		r.violate("final integrity_check: %q %v", ic, err)
	}
	r.rep.IntegrityChecks++
	r.rep.Created = int64(r.created())
	return &r.rep, nil
}

func (r *runner) created() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pushes)
}

// client1 creates and retrieves pushes until ctx ends: 60 % retrieves.
func (r *runner) client1(ctx context.Context, id int) {
	rng := mrand.New(mrand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	for ctx.Err() == nil {
		var err error
		if rng.IntN(10) < 4 || r.created() < 5 {
			err = r.create(ctx, rng)
		} else {
			r.mu.Lock()
			p := r.pushes[rng.IntN(len(r.pushes))]
			r.mu.Unlock()
			err = r.retrieve(ctx, p)
		}
		if err != nil { // the server is down: wait for the restart
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func randomText(rng *mrand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghijklmnopqrstuvwxyz0123456789-_ "[rng.IntN(39)]
	}
	return string(b)
}

// api is a client of the running server, as its owner or anonymous.
func (r *runner) api(owner bool) *client.Client {
	c := &client.Client{Base: r.url.Load().(string), HTTP: r.client}
	if owner {
		c.Token = r.token
	}
	return c
}

// create posts one push with the owner's token: JSON text, or multipart
// with one or two files. Only a 201 makes it a tracked push.
func (r *runner) create(ctx context.Context, rng *mrand.Rand) error {
	p := &tracked{payload: "crash-" + randomText(rng, 8+rng.IntN(200)), limit: 1 + rng.IntN(3)}
	var created *client.Push
	var err error
	if rng.IntN(4) == 0 {
		p.files = map[string]string{}
		var files []client.Upload
		for i := range 1 + rng.IntN(2) {
			content := make([]byte, 1+rng.IntN(200_000))
			rand.Read(content)
			name := fmt.Sprintf("f%d-%s.bin", i, randomText(rng, 6))
			sum := sha256.Sum256(content)
			p.files[name] = hex.EncodeToString(sum[:])
			files = append(files, client.Upload{Name: name, Data: content})
		}
		created, err = r.api(true).CreateWithFiles(ctx, map[string]string{"payload": p.payload,
			"expire_after_views": strconv.Itoa(p.limit)}, files...)
	} else {
		created, err = r.api(true).Create(ctx, map[string]any{"payload": p.payload, "expire_after_views": p.limit})
	}
	var refused *client.Error
	if errors.As(err, &refused) && ctx.Err() == nil {
		r.violate("create answered %d", refused.Status)
	}
	if err != nil || created.URLToken == "" {
		return errors.New("create not acknowledged")
	}
	p.token = created.URLToken
	r.mu.Lock()
	r.pushes = append(r.pushes, p)
	if p.files != nil {
		r.rep.FilePushes++
	}
	r.mu.Unlock()
	return nil
}

// get retrieves a push, anonymously (a view) or as its owner (not a view),
// and returns it with the answer's status.
func (r *runner) get(ctx context.Context, token string, owner bool) (*client.Push, int, error) {
	p, err := r.api(owner).Retrieve(ctx, token, "")
	var other *client.Error
	if errors.As(err, &other) {
		return nil, other.Status, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return p, http.StatusOK, nil
}

// retrieve uses one view of p and counts what it was served.
func (r *runner) retrieve(ctx context.Context, p *tracked) error {
	got, status, err := r.get(ctx, p.token, false)
	if err != nil {
		// A kill, or the end of the load cancelling the request: the
		// server may have claimed the view without the answer arriving.
		p.unknown.Add(1)
		atomic.AddInt64(&r.rep.UnknownOutcomes, 1)
		return err
	}
	if status != 200 {
		r.violate("retrieve %s: status %d", p.token[:6], status)
		return nil
	}
	if got.Payload == nil {
		return nil
	}
	atomic.AddInt64(&r.rep.ViewsServed, 1)
	if n := p.served.Add(1); n > int64(p.limit) {
		r.violate("push %s served %d times, limit %d", p.token[:6], n, p.limit)
	}
	if *got.Payload != p.payload {
		r.violate("push %s served a different payload", p.token[:6])
	}
	return nil
}
