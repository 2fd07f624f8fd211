// Package imagetest builds the Hush container image the way `make image`
// does (scripts/image.sh: deploy/image/Containerfile on an empty base) and
// runs it with docker or podman, checking what a user of the image meets:
// health, a create and a retrieve, a non-root process on a read-only root
// file system, data kept on a volume across restarts, a graceful SIGTERM,
// the image's size and contents, and two instances sharing PostgreSQL as in
// deploy/compose.yaml. It also checks deploy/hush.service, the systemd unit.
//
// Without a container engine the image tests are skipped, or fail when
// HUSH_REQUIRE_ALL=1 (as in CI, whose .ci/run installs podman and runc).
package imagetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hush/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// repoRoot is the top of the repository (the tests run in their package's
// directory).
const repoRoot = "../.."

// engine is the container engine the tests drive.
type engine struct {
	name string
	// runFlags go right after `run`: what this host needs beyond the
	// README's command line (see runFlagsFor).
	runFlags []string
}

// findEngine returns docker when its daemon answers, else podman when it
// works; without either the test is skipped (failed under HUSH_REQUIRE_ALL=1).
func findEngine(t *testing.T) *engine {
	t.Helper()
	want := os.Getenv("CONTAINER_ENGINE")
	var tried []string
	if want != "" && want != "docker" && want != "podman" {
		tried = append(tried, "CONTAINER_ENGINE="+want+" is neither docker nor podman")
	}
	for _, name := range []string{"docker", "podman"} {
		if want != "" && name != want {
			continue
		}
		if _, err := exec.LookPath(name); err != nil {
			tried = append(tried, name+": not installed")
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, name, "info").CombinedOutput()
		cancel()
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s info: %v: %s", name, err, firstLine(out)))
			continue
		}
		return &engine{name: name, runFlags: runFlagsFor(name)}
	}
	testdb.Require(t, false, "no container engine ("+strings.Join(tried, "; ")+
		"); install docker with a running daemon, or Debian's podman and runc")
	return nil
}

// runFlagsFor is what `run` needs on this host beyond the README's command
// line. Podman as root in a container sandbox (as in CI) cannot raise the
// default rlimits of its containers, and Debian's runc is the runtime that
// works there; neither flag changes what the container does.
func runFlagsFor(name string) []string {
	if name != "podman" {
		return nil
	}
	flags := []string{"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}
	if _, err := os.Stat("/usr/sbin/runc"); err == nil {
		flags = append([]string{"--runtime", "/usr/sbin/runc"}, flags...)
	}
	return flags
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// run runs the engine with args and returns its stdout; a failure carries
// stderr.
func (e *engine) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", e.name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// must runs the engine and fails the test on an error.
func (e *engine) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := e.run(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runArgs turns a `docker run …` argument list into this engine's, with the
// host's extra flags after `run`.
func (e *engine) runArgs(args []string) []string {
	if len(args) == 0 || args[0] != "run" {
		return args
	}
	out := append([]string{"run"}, e.runFlags...)
	return append(out, args[1:]...)
}

// removeOnCleanup removes the container (and its anonymous volumes) when the
// test ends, after printing its log if the test failed.
func (e *engine) removeOnCleanup(t *testing.T, name string) {
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := exec.Command(e.name, "logs", name).CombinedOutput()
			t.Logf("log of container %s:\n%s", name, out)
		}
		if out, err := exec.Command(e.name, "rm", "-f", "-v", name).CombinedOutput(); err != nil {
			t.Logf("%s rm -f -v %s: %v: %s", e.name, name, err, out)
		}
	})
}

// imageInfo is the part of `image inspect` the tests read. Docker keeps the
// health check in Config.Healthcheck, podman at the top as HealthCheck
// (JSON field names match case-insensitively).
type imageInfo struct {
	Size   int64
	Config struct {
		User         string
		Env          []string
		Entrypoint   []string
		Cmd          []string
		WorkingDir   string
		ExposedPorts map[string]any
		Volumes      map[string]any
		Labels       map[string]string
		Healthcheck  *healthConfig
	}
	Healthcheck *healthConfig
}

type healthConfig struct {
	Test     []string
	Interval time.Duration
	Timeout  time.Duration
}

func (e *engine) inspectImage(t *testing.T, image string) imageInfo {
	t.Helper()
	var infos []imageInfo
	if err := json.Unmarshal([]byte(e.must(t, "image", "inspect", image)), &infos); err != nil || len(infos) != 1 {
		t.Fatalf("image inspect %s: %v (%d results)", image, err, len(infos))
	}
	return infos[0]
}

// containerState is the part of `inspect` on a container the tests read.
type containerState struct {
	State struct {
		Status   string
		Running  bool
		Pid      int
		ExitCode int
		Health   *struct{ Status string }
	}
}

func (e *engine) inspect(t *testing.T, name string) containerState {
	t.Helper()
	var states []containerState
	if err := json.Unmarshal([]byte(e.must(t, "inspect", "--type", "container", name)), &states); err != nil || len(states) != 1 {
		t.Fatalf("inspect %s: %v (%d results)", name, err, len(states))
	}
	return states[0]
}

// builtImage is the image the tests run, built once by scripts/image.sh.
type builtImage struct {
	tag       string
	version   string // the source's version, as the binary and the labels report it
	buildTime time.Duration
}

// buildImage runs scripts/image.sh, as `make image` does, into a fresh tag
// that is removed when the test ends.
func buildImage(t *testing.T, e *engine) *builtImage {
	t.Helper()
	tag := "hush-test:" + randomName()
	ctxDir := t.TempDir()
	cmd := exec.Command("scripts/image.sh")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "IMAGE="+tag, "CONTAINER_ENGINE="+e.name, "IMAGE_CONTEXT="+ctxDir)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/image.sh: %v\n%s", err, out)
	}
	b := &builtImage{tag: tag, buildTime: time.Since(start)}
	t.Cleanup(func() {
		if out, err := exec.Command(e.name, "rmi", "-f", tag).CombinedOutput(); err != nil {
			t.Logf("%s rmi %s: %v: %s", e.name, tag, err, out)
		}
	})
	v, err := os.ReadFile(filepath.Join(ctxDir, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	b.version = strings.TrimSpace(string(v))
	return b
}

// randomName is a short random suffix for containers, volumes and tags.
func randomName() string {
	b := make([]byte, 5)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
