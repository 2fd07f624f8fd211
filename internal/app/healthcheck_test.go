package app

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHealthcheckVerb(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": dir})
	addr := strings.TrimPrefix(srv.url, "http://")
	_, port, _ := net.SplitHostPort(addr)

	// HUSH_ADDR as serve reads it; an unspecified host is asked on loopback.
	for _, listen := range []string{addr, ":" + port, "0.0.0.0:" + port} {
		code, out, errOut := run(t, map[string]string{"HUSH_ADDR": listen}, "", "healthcheck")
		if code != 0 || !strings.Contains(out, "/healthz: ok") {
			t.Errorf("healthcheck with HUSH_ADDR=%s: %d %q %q", listen, code, out, errOut)
		}
	}
	// -addr is used when HUSH_ADDR is unset, and HUSH_ADDR wins over it.
	if code, _, errOut := run(t, nil, "", "healthcheck", "-addr", addr); code != 0 {
		t.Errorf("healthcheck -addr: %d %q", code, errOut)
	}
	if code, _, _ := run(t, map[string]string{"HUSH_ADDR": addr}, "", "healthcheck", "-addr", "127.0.0.1:1"); code != 0 {
		t.Errorf("HUSH_ADDR did not win over -addr: %d", code)
	}
	if code, out, errOut := run(t, map[string]string{"HUSH_ADDR": addr}, "", "healthcheck", "-ready"); code != 0 || !strings.Contains(out, `/readyz: {"database":"ok","files":"ok"}`) {
		t.Errorf("healthcheck -ready: %d %q %q", code, out, errOut)
	}

	// Without its file store the server is live but not ready (once the
	// last check, at most a second old, has lapsed).
	if err := os.RemoveAll(filepath.Join(dir, "files")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if code, _, errOut := run(t, map[string]string{"HUSH_ADDR": addr}, "", "healthcheck", "-ready"); code != 1 || !strings.Contains(errOut, "503") {
		t.Errorf("healthcheck -ready without the file store: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, map[string]string{"HUSH_ADDR": addr}, "", "healthcheck"); code != 0 {
		t.Errorf("healthcheck without the file store: %d %q", code, errOut)
	}

	// A stopped server fails the check; so do an address without a port to
	// ask and a stray argument.
	if code := srv.stop(t); code != 0 {
		t.Fatalf("serve exited with %d", code)
	}
	if code, _, errOut := run(t, map[string]string{"HUSH_ADDR": addr}, "", "healthcheck", "-timeout", "1s"); code != 1 || !strings.Contains(errOut, "connection refused") {
		t.Errorf("healthcheck of a stopped server: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, map[string]string{"HUSH_ADDR": "127.0.0.1:0"}, "", "healthcheck"); code != 1 || !strings.Contains(errOut, "no fixed port") {
		t.Errorf("healthcheck of port 0: %d %q", code, errOut)
	}
	if code, _, _ := run(t, nil, "", "healthcheck", "now"); code != 2 {
		t.Errorf("healthcheck with an argument: %d", code)
	}
}

func TestProbeAddr(t *testing.T) {
	for listen, want := range map[string]string{
		":5100":          "127.0.0.1:5100",
		"0.0.0.0:80":     "127.0.0.1:80",
		"[::]:5100":      "[::1]:5100",
		"10.0.0.7:5100":  "10.0.0.7:5100",
		"localhost:8080": "localhost:8080",
	} {
		if got, err := probeAddr(listen); err != nil || got != want {
			t.Errorf("probeAddr(%q) = %q, %v; want %q", listen, got, err, want)
		}
	}
	for _, bad := range []string{"5100", "", "host:"} {
		if got, err := probeAddr(bad); err == nil {
			t.Errorf("probeAddr(%q) = %q, want an error", bad, got)
		}
	}
}

// TestHealthcheckTimeout: a timeout that is not positive is refused as a
// usage error that names it, before anything is asked.
func TestHealthcheckTimeout(t *testing.T) {
	for _, d := range []string{"-1s", "0", "0s"} {
		code, _, errOut := run(t, map[string]string{"HUSH_ADDR": "127.0.0.1:1"}, "", "healthcheck", "-timeout", d)
		if code != 2 || !strings.Contains(errOut, "-timeout must be positive") {
			t.Errorf("-timeout %s: %d %q", d, code, errOut)
		}
	}
}
