package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hush/internal/app"
	"hush/internal/config"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
)

func TestSeed(t *testing.T) {
	dir := t.TempDir()
	noEnv := func(string) string { return "" }
	seedRun := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := mainCode(context.Background(), append([]string{"-data-dir", dir}, args...), noEnv, &out, &errOut); code != 0 {
			t.Fatalf("hush-seed %v: exit %d: %s", args, code, errOut.String())
		}
		return out.String()
	}
	const active, due, payload = 25, 30, 100
	tokensFile := filepath.Join(t.TempDir(), "tokens")
	if out := seedRun("-n", "25", "-batch", "10", "-payload", "100", "-tokens", tokensFile); !strings.Contains(out, "seeded 25 active pushes in ") {
		t.Errorf("output: %s", out)
	}
	if out := seedRun("-n", "30", "-batch", "7", "-due"); !strings.Contains(out, "seeded 30 due pushes in ") {
		t.Errorf("output: %s", out)
	}

	// Open the data directory as `hush serve` would: same key, same database.
	cfg, err := config.Load(nil, func(k string) string {
		if k == "HUSH_DATA_DIR" {
			return dir
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	keys, st, err := app.OpenKeyed(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var pushes, creations int
	if err := st.DB().QueryRowContext(t.Context(), `SELECT (SELECT COUNT(*) FROM pushes),
		(SELECT COUNT(*) FROM audit_logs WHERE kind = 0 AND user_agent = 'hush-seed')`).Scan(&pushes, &creations); err != nil {
		t.Fatal(err)
	}
	if pushes != active+due || creations != active+due {
		t.Fatalf("%d pushes and %d creation entries, want %d of each", pushes, creations, active+due)
	}

	svc := service.New(service.Deps{Store: st, Keys: keys, Argon: secure.DefaultArgon()}, service.Limits{Settings: cfg.Push})
	b, err := os.ReadFile(tokensFile)
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.Fields(string(b))
	if len(toks) != active {
		t.Fatalf("%d tokens written, want %d", len(toks), active)
	}
	token := toks[active/2]
	ret, err := svc.Retrieve(t.Context(), token, "", nil, push.Meta{IP: "192.0.2.1"})
	if err != nil {
		t.Fatalf("Retrieve: %v", err)
	}
	if ret.Payload == nil || len(*ret.Payload) != payload || ret.Push.ViewsRemaining() != 4 || ret.Push.ExpireAfterDays != 7 {
		t.Fatalf("retrieved payload %v, push %+v", ret.Payload, ret.Push)
	}

	res, err := svc.Sweep(t.Context(), 0)
	if err != nil || res.Expired != due || res.Deleted != 0 {
		t.Fatalf("Sweep = %+v, %v; want the %d due pushes expired", res, err, due)
	}
	var live int
	if err := st.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pushes WHERE expired = 0`).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live != active {
		t.Errorf("%d active pushes after the sweep, want %d", live, active)
	}
}

func TestSeedRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"-n", "5", "-batch", "0"}, {"-n", "5", "-payload", "0"}, {"-bogus"}} {
		var out bytes.Buffer
		args = append([]string{"-data-dir", t.TempDir()}, args...)
		if code := mainCode(context.Background(), args, func(string) string { return "" }, &out, &out); code == 0 {
			t.Errorf("hush-seed %v succeeded", args)
		}
	}
}
