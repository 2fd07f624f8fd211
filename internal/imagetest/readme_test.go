package imagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readmeCommands returns the `docker …` lines of the first sh block of the
// README's "Run with Docker" section, keyed by subcommand ("volume create",
// "run", "stop", "start", "rm"), each as its arguments after `docker`. The
// image test runs exactly these lines, so the README shows what was run.
func readmeCommands(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Run with Docker\n")
	if !ok {
		t.Fatal(`README.md has no "## Run with Docker" section`)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal(`README.md's "Run with Docker" has no sh block`)
	}
	block, _, _ = strings.Cut(block, "```")
	cmds := map[string][]string{}
	for line := range strings.SplitSeq(block, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "docker" {
			continue
		}
		if strings.ContainsAny(line, `"'$\`) {
			t.Fatalf("README command %q: keep the docker lines free of quotes and variables (the test runs them)", line)
		}
		key := fields[1]
		if key == "volume" && len(fields) > 2 {
			key += " " + fields[2]
		}
		if _, dup := cmds[key]; dup {
			t.Fatalf("README's Run with Docker has two `docker %s` lines", key)
		}
		cmds[key] = fields[1:]
	}
	for _, key := range []string{"volume create", "run", "stop", "start"} {
		if cmds[key] == nil {
			t.Fatalf("README's Run with Docker has no `docker %s` line", key)
		}
	}
	return cmds
}

// readmeNames are the names the README's commands use; the test swaps in
// its own so that it never touches a user's container, volume or image.
type readmeNames struct {
	container, volume, image string
	port                     int
}

// substitute replaces the README's names in args with the test's.
func (n readmeNames) substitute(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "hush":
			a = n.container
		case a == "hush-data":
			a = n.volume
		case strings.HasPrefix(a, "hush-data:"):
			a = n.volume + strings.TrimPrefix(a, "hush-data")
		case a == "hush:latest":
			a = n.image
		case a == "127.0.0.1:5100:5100":
			a = fmt.Sprintf("127.0.0.1:%d:5100", n.port)
		}
		out[i] = a
	}
	return out
}

// TestReadmeRunCommand checks that the README's `docker run` line keeps what
// the image test relies on and what a user should not lose: detached, a
// read-only root file system, /data on a named volume, the port on the
// loopback address only, and a stop timeout above HUSH_SHUTDOWN_TIMEOUT
// (15s) so that the engine does not kill Hush while requests finish.
func TestReadmeRunCommand(t *testing.T) {
	run := readmeCommands(t)["run"]
	has := func(flag string) bool {
		for _, a := range run {
			if a == flag {
				return true
			}
		}
		return false
	}
	value := func(flag string) string {
		for i, a := range run {
			if a == flag && i+1 < len(run) {
				return run[i+1]
			}
		}
		return ""
	}
	for _, f := range []string{"-d", "--read-only"} {
		if !has(f) {
			t.Errorf("README's docker run lacks %s: %v", f, run)
		}
	}
	if v := value("-v"); v != "hush-data:/data" {
		t.Errorf("README's docker run mounts %q, want hush-data:/data", v)
	}
	if p := value("-p"); p != "127.0.0.1:5100:5100" {
		t.Errorf("README's docker run publishes %q, want 127.0.0.1:5100:5100", p)
	}
	if s, err := strconv.Atoi(value("--stop-timeout")); err != nil || s <= 15 {
		t.Errorf("README's docker run has --stop-timeout %q, want more than HUSH_SHUTDOWN_TIMEOUT's 15 seconds", value("--stop-timeout"))
	}
	if run[len(run)-1] != "hush:latest" {
		t.Errorf("README's docker run does not end with the image hush:latest: %v", run)
	}
}
