package crashtest

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

var (
	duration = flag.Duration("crash.duration", 45*time.Second, "how long the crash test runs at least")
	kills    = flag.Int("crash.kills", 20, "how many kill -9 the crash test performs at least")
)

// TestCrashSafety is the short run of `make crashtest` inside `make test`.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "hush")
	if out, err := exec.Command("go", "build", "-o", bin, "hush/cmd/hush").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	rep, err := Run(context.Background(), Options{Binary: bin, DataDir: dir, Duration: *duration, MinKills: *kills, Clients: 8, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
	for _, v := range rep.Violations {
		t.Error(v)
	}
	if rep.Kills < *kills || rep.Created < 50 || rep.ViewsServed < 50 || rep.FilePushes == 0 || rep.FilesCheck == 0 {
		t.Errorf("too little load to prove anything: %s", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "hush.db")); err != nil {
		t.Error(err)
	}
}
