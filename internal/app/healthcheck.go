package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheck asks a running `hush serve` on this host whether it is live
// (/healthz) or, with -ready, ready (/readyz), and fails unless it answers
// 200 within the timeout. It is the container image's HEALTHCHECK: the
// image has no shell and no curl. The address is the one serve listens on:
// HUSH_ADDR (which wins, as for serve), else -addr, else :5100; an
// unspecified host (":5100", "0.0.0.0:5100", "[::]:5100") is asked on the
// loopback address.
func (e *env) healthcheck(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	addrFlag := fs.String("addr", "", "listen address of serve (HUSH_ADDR; default :5100)")
	ready := fs.Bool("ready", false, "check readiness (/readyz: database and file store) instead of liveness (/healthz)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := e.parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "hush healthcheck: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if *timeout <= 0 {
		fmt.Fprintf(e.stderr, "hush healthcheck: -timeout must be positive (got %s), e.g. 3s\n", *timeout)
		return errUsage
	}
	addr := strings.TrimSpace(e.getenv("HUSH_ADDR"))
	if addr == "" {
		addr = *addrFlag
	}
	if addr == "" {
		addr = ":5100"
	}
	target, err := probeAddr(addr)
	if err != nil {
		return err
	}
	path := "/healthz"
	if *ready {
		path = "/readyz"
	}
	url := "http://" + target + path
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", url, strings.TrimSpace(string(body)))
	return nil
}

// probeAddr turns a listen address into the host:port to connect to.
func probeAddr(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("healthcheck: listen address %q: %w", listen, err)
	}
	if port == "" || port == "0" {
		return "", fmt.Errorf("healthcheck: listen address %q has no fixed port to ask", listen)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port), nil
}
