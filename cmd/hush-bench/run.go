package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runConfig is what `hush-bench run` was asked to do.
type runConfig struct {
	url      string // one server, or several behind the load generator: comma-separated, taken in turn
	dialect  string // the servers' API: pwpush or yopass
	scenario string
	conns    int
	dur      time.Duration
	warmup   time.Duration
	payload  int
	pids     []int   // the server's processes, each counted with its descendants
	rate     float64 // iterations per second; 0 = closed loop
	label    string
}

// Bounds that keep every run short and local.
const (
	maxDuration    = 10 * time.Minute
	maxWarmup      = time.Minute
	maxConns       = 4096
	maxPayload     = 1 << 20
	readyTimeout   = 10 * time.Second
	prepareTimeout = time.Minute
	drainGrace     = time.Second // in-flight requests may finish after the window, then are cancelled
)

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg runConfig
	fs.StringVar(&cfg.url, "url", "", "server to load: http://127.0.0.1:PORT (loopback only); several, comma-separated, are taken in turn")
	fs.StringVar(&cfg.dialect, "dialect", dialectPwpush, "the server's API: pwpush (Password Pusher API v2: Hush, the baseline) or yopass")
	fs.StringVar(&cfg.scenario, "scenario", "create", scenarioNames)
	fs.IntVar(&cfg.conns, "c", 32, "concurrent workers (connections)")
	fs.DurationVar(&cfg.dur, "d", 10*time.Second, "measured duration")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "load before the measured window, not counted")
	fs.IntVar(&cfg.payload, "payload", 64, "payload size in bytes")
	fs.Var((*pidList)(&cfg.pids), "pid", "server process ids, comma-separated: report their CPU time per request and their RSS,\neach counted with the processes it started (database backends)")
	fs.Float64Var(&cfg.rate, "rate", 0, "open loop: start this many iterations per second (latency from the intended start)")
	fs.StringVar(&cfg.label, "label", "", "a name for the server, copied into the report")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	res, err := run(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		return res.writeJSON(stdout)
	}
	res.writeText(stdout)
	return nil
}

// validate checks the bounds of cfg; no dialect means pwpush.
func (cfg *runConfig) validate() error {
	if cfg.dialect == "" {
		cfg.dialect = dialectPwpush
	}
	switch {
	case cfg.url == "":
		return errors.New("-url is required")
	case cfg.dialect != dialectPwpush && cfg.dialect != dialectYopass:
		return fmt.Errorf("-dialect %q: want %s or %s", cfg.dialect, dialectPwpush, dialectYopass)
	case !knownScenario(cfg.scenario):
		return fmt.Errorf("-scenario %q: want %s", cfg.scenario, scenarioNames)
	}
	if err := cfg.checkBounds(); err != nil {
		return err
	}
	_, err := checkLoopbackURLs(cfg.url)
	return err
}

// checkBounds checks the numbers of cfg.
func (cfg *runConfig) checkBounds() error {
	switch {
	case cfg.conns < 1 || cfg.conns > maxConns:
		return fmt.Errorf("-c %d: want 1 to %d", cfg.conns, maxConns)
	case cfg.dur <= 0 || cfg.dur > maxDuration:
		return fmt.Errorf("-d %v: want more than 0 and at most %v", cfg.dur, maxDuration)
	case cfg.warmup < 0 || cfg.warmup > maxWarmup:
		return fmt.Errorf("-warmup %v: want 0 to %v", cfg.warmup, maxWarmup)
	case cfg.payload < 1 || cfg.payload > maxPayload:
		return fmt.Errorf("-payload %d: want 1 to %d", cfg.payload, maxPayload)
	case cfg.rate < 0 || cfg.rate > 1e7:
		return fmt.Errorf("-rate %v: want 0 (closed loop) to 1e7", cfg.rate)
	}
	return nil
}

// pidList is the value of -pid: process ids, comma-separated.
type pidList []int

func (p *pidList) String() string {
	s := make([]string, len(*p))
	for i, pid := range *p {
		s[i] = strconv.Itoa(pid)
	}
	return strings.Join(s, ",")
}

func (p *pidList) Set(v string) error {
	*p = nil
	for f := range strings.SplitSeq(v, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || pid <= 0 {
			return fmt.Errorf("%q: want process ids, comma-separated", v)
		}
		*p = append(*p, pid)
	}
	return nil
}

// run performs one measurement: wait for the server, prepare the scenario,
// load for warmup + dur, and report the window.
func run(ctx context.Context, cfg runConfig) (*result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	bases, _ := checkLoopbackURLs(cfg.url)
	c := newClient(bases, cfg.conns, cfg.payload, cfg.dialect)
	defer c.close()
	if len(cfg.pids) > 0 {
		if _, err := readTrees(cfg.pids); err != nil {
			return nil, fmt.Errorf("-pid: %w", err)
		}
	}
	if err := c.ready(ctx, readyTimeout); err != nil {
		return nil, err
	}
	sc, err := newScenario(cfg.scenario, c)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, prepareTimeout)
	err = sc.prepare(pctx, cfg.conns)
	cancel()
	if err != nil {
		return nil, err
	}

	start := time.Now()
	from := start.Add(cfg.warmup)
	to := from.Add(cfg.dur)
	lctx, cancel := context.WithDeadline(ctx, to.Add(drainGrace))
	defer cancel()
	workers := make([]*worker, cfg.conns)
	var (
		wg  sync.WaitGroup
		seq atomic.Int64
	)
	for i := range workers {
		w := &worker{from: from, to: to}
		workers[i] = w
		wg.Go(func() {
			if cfg.rate > 0 {
				openLoop(lctx, sc, w, start, cfg.rate, &seq)
			} else {
				for lctx.Err() == nil && time.Now().Before(to) {
					sc.op(lctx, w, time.Now())
				}
			}
		})
	}

	var snap [2]snapshot
	for i, at := range []time.Time{from, to} {
		if !sleepUntil(ctx, at) {
			cancel()
			wg.Wait()
			return nil, ctx.Err()
		}
		if snap[i], err = takeSnapshot(cfg.pids); err != nil {
			cancel()
			wg.Wait()
			return nil, err
		}
	}
	wg.Wait()
	return newResult(cfg, strings.Join(bases, ","), sc, workers, snap), nil
}

// openLoop starts iteration i at start + i/rate, whatever the server's pace;
// the workers take the slots in turn, so a slow answer delays the iterations
// behind it and their latency, measured from the intended start, shows it.
func openLoop(ctx context.Context, sc scenario, w *worker, start time.Time, rate float64, seq *atomic.Int64) {
	for ctx.Err() == nil {
		i := seq.Add(1) - 1
		at := start.Add(time.Duration(float64(i) * float64(time.Second) / rate))
		if !at.Before(w.to) || !sleepUntil(ctx, at) {
			return
		}
		sc.op(ctx, w, at)
	}
}

// sleepUntil waits until t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// snapshot is the CPU time of the server's processes (when known), of this
// process and of the whole machine.
type snapshot struct {
	server  treeUsage
	self    procCPU
	machine uint64
}

func takeSnapshot(pids []int) (snapshot, error) {
	var s snapshot
	var err error
	if s.self, err = readCPU("self"); err != nil {
		return s, err
	}
	if s.machine, err = readMachineBusy(); err != nil {
		return s, err
	}
	if len(pids) == 0 {
		return s, nil
	}
	s.server, err = readTrees(pids)
	return s, err
}
