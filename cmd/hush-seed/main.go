// Command hush-seed fills a Hush data directory with pushes, for the scale
// measurements of docs/performance.md (make bench-scale). It is a
// development tool, not part of the hush binary.
//
//	hush-seed -data-dir DIR -n N [-due] [-batch 10000] [-payload 64]
//
// It opens the database and the master key as `hush serve` does (the same
// HUSH_ and PWP__ environment; a master key is generated into a new data
// directory), migrates, and stores N anonymous text pushes of 7 days and 5
// views through the service's own sealing and the store's own insert, each
// with its creation audit entry, -batch pushes per transaction. With -due
// they are created 8 days ago, so they are past their day limit but not yet
// expired: the next sweep must expire them.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"hush/internal/app"
	"hush/internal/config"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := mainCode(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// The pushes seeded: the defaults of a text push.
const (
	seedDays  = 7
	seedViews = 5
	maxN      = 100_000_000
	maxBatch  = 100_000
)

type options struct {
	dataDir string
	n       int
	due     bool
	batch   int
	payload int
	tokens  string
}

func mainCode(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hush-seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.dataDir, "data-dir", "", "data directory (default: HUSH_DATA_DIR, else ./data)")
	fs.IntVar(&o.n, "n", 0, "number of pushes to store")
	fs.BoolVar(&o.due, "due", false, "create them 8 days ago: past their 7-day limit, for the sweeper to expire")
	fs.IntVar(&o.batch, "batch", 10_000, "pushes per transaction")
	fs.IntVar(&o.payload, "payload", 64, "payload size in bytes")
	fs.StringVar(&o.tokens, "tokens", "", "also write the secret links' url_tokens to this file, one per line\n"+
		"(the database keeps none of them)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := seed(ctx, o, getenv, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "hush-seed: %v\n", err)
		return 1
	}
	return 0
}

// check refuses options out of their ranges.
func (o options) check() error {
	switch {
	case o.n < 1 || o.n > maxN:
		return fmt.Errorf("-n %d: want 1 to %d", o.n, maxN)
	case o.batch < 1 || o.batch > maxBatch:
		return fmt.Errorf("-batch %d: want 1 to %d", o.batch, maxBatch)
	case o.payload < 1 || o.payload > push.MaxTextPayload:
		return fmt.Errorf("-payload %d: want 1 to %d", o.payload, push.MaxTextPayload)
	}
	return nil
}

// state names the pushes seeded, for the messages.
func (o options) state() string {
	if o.due {
		return "due"
	}
	return "active"
}

func seed(ctx context.Context, o options, getenv func(string) string, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	cfg, err := config.Load(nil, func(k string) string {
		if k == "HUSH_DATA_DIR" && o.dataDir != "" {
			return o.dataDir
		}
		return getenv(k)
	})
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	keys, st, err := app.OpenKeyed(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := service.New(service.Deps{Store: st, Keys: keys, Argon: secure.DefaultArgon()}, service.Limits{Settings: cfg.Push})
	where, _ := cfg.SQLitePath()
	if where == "" {
		where = "the PostgreSQL database"
	}
	fmt.Fprintf(stdout, "seeding %d %s pushes into %s, %d per transaction\n", o.n, o.state(), where, o.batch)
	if o.tokens == "" {
		return seedAll(ctx, svc, o, stdout, io.Discard)
	}
	f, err := os.OpenFile(o.tokens, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	if err := seedAll(ctx, svc, o, stdout, w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// seedAll stores the pushes in batches, reporting progress every second,
// and writes their tokens to tokens.
func seedAll(ctx context.Context, svc *service.Service, o options, stdout, tokens io.Writer) error {
	payload := rand.Text()
	for len(payload) < o.payload {
		payload += rand.Text()
	}
	days, views := seedDays, seedViews
	req := &push.CreateRequest{Payload: payload[:o.payload], ExpireAfterDays: &days, ExpireAfterViews: &views}
	meta := push.Meta{IP: "127.0.0.1", UserAgent: "hush-seed"}
	start := time.Now()
	last := start
	for done := 0; done < o.n; {
		at := time.Now()
		if o.due {
			at = at.Add(-(seedDays + 1) * push.Day)
		}
		k := min(o.batch, o.n-done)
		toks, err := svc.Seed(ctx, req, k, at, meta)
		if err != nil {
			return fmt.Errorf("after %d pushes: %w", done, err)
		}
		for _, tok := range toks {
			if _, err := io.WriteString(tokens, tok+"\n"); err != nil {
				return err
			}
		}
		done += k
		if now := time.Now(); now.Sub(last) >= time.Second || done == o.n {
			last = now
			fmt.Fprintf(stdout, "%d/%d pushes, %.1fs, %.0f pushes/s\n", done, o.n,
				now.Sub(start).Seconds(), float64(done)/now.Sub(start).Seconds())
		}
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "seeded %d %s pushes in %.1fs (%.0f pushes/s)\n", o.n, o.state(), elapsed.Seconds(),
		float64(o.n)/elapsed.Seconds())
	return nil
}
