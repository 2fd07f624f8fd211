// Command hush-crashtest runs the crash test of internal/crashtest against
// a hush binary: concurrent clients, kill -9 at random moments, restarts on
// the same data directory, and checks that nothing acknowledged was lost
// and nothing was served beyond its view limit. It exits 1 on a violation.
//
//	go build -o bin/hush ./cmd/hush && go run ./cmd/hush-crashtest -bin bin/hush -duration 5m
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"hush/internal/crashtest"
)

func main() {
	bin := flag.String("bin", "bin/hush", "hush binary to test")
	duration := flag.Duration("duration", 5*time.Minute, "how long to run at least")
	kills := flag.Int("kills", 100, "how many kill -9 at least")
	clients := flag.Int("clients", 8, "concurrent clients")
	dir := flag.String("data-dir", "", "data directory (default: a new temporary one, removed on success)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	d := *dir
	if d == "" {
		var err error
		if d, err = os.MkdirTemp("", "hush-crashtest-"); err != nil {
			log.Fatal(err)
		}
	}
	rep, err := crashtest.Run(ctx, crashtest.Options{Binary: *bin, DataDir: d, Duration: *duration, MinKills: *kills,
		Clients: *clients, Logf: log.Printf})
	if err != nil {
		log.Fatalf("crash test: %v (data in %s)", err, d)
	}
	for _, v := range rep.Violations {
		fmt.Println("VIOLATION:", v)
	}
	fmt.Println(rep)
	if len(rep.Violations) > 0 {
		fmt.Println("data kept in", d)
		os.Exit(1)
	}
	if *dir == "" {
		os.RemoveAll(d)
	}
}
