// Command hush runs the Hush secret-sharing service and its admin verbs.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"hush/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Main(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
