package imagetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// finalStage returns the instructions from the last `FROM scratch` on,
// without comments and blank lines.
func finalStage(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if line == "FROM scratch" {
			lines = nil
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 || lines[0] != "FROM scratch" {
		t.Fatalf("%s has no FROM scratch stage", path)
	}
	return lines
}

// TestDockerfileMatchesContainerfile keeps the source-building Dockerfile
// on the tested recipe: its build stage prepares the context with the same
// script as make image, and its final stage is deploy/image/Containerfile
// with the context read from that stage.
func TestDockerfileMatchesContainerfile(t *testing.T) {
	want := finalStage(t, "deploy/image/Containerfile")
	got := finalStage(t, "Dockerfile")
	for i, line := range got {
		line = strings.Replace(line, "--from=context ", "", 1)
		got[i] = strings.Replace(line, " /context/", " ", 1)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the Dockerfile's final stage differs from deploy/image/Containerfile:\n--- Dockerfile\n%s\n--- Containerfile\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "scripts/image-context.sh /context") {
		t.Error("the Dockerfile's build stage does not run scripts/image-context.sh /context")
	}
}

// dottedNumeric is the form of application_version (the spec's version
// record): numbers separated by dots.
var dottedNumeric = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)

// TestImageContextVersion: the binary scripts/image-context.sh builds
// reports the source's dotted numeric version, in a git checkout and in a
// context without one (the Dockerfile's, whose .dockerignore leaves .git
// out); the build's description (git describe) is only shown beside it by
// `hush version`.
func TestImageContextVersion(t *testing.T) {
	for _, c := range []struct {
		name      string
		env       []string
		described bool // git describe names the build
	}{
		{"git checkout", nil, true},
		{"no git", []string{"GIT_DIR=" + filepath.Join(t.TempDir(), "none")}, false},
	} {
		dir := t.TempDir()
		cmd := exec.Command("scripts/image-context.sh", dir)
		cmd.Dir = repoRoot
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "VERSION=") || strings.HasPrefix(kv, "BUILD=")
		}), c.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: scripts/image-context.sh: %v\n%s", c.name, err, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, "VERSION"))
		if err != nil {
			t.Fatal(err)
		}
		version := strings.TrimSpace(string(b))
		if !dottedNumeric.MatchString(version) {
			t.Errorf("%s: the context's VERSION is %q, want a dotted numeric version", c.name, version)
		}
		out, err := exec.Command(filepath.Join(dir, "rootfs", "hush"), "version").Output()
		if err != nil {
			t.Fatalf("%s: hush version: %v", c.name, err)
		}
		want := "hush " + version + "\n"
		if c.described {
			want = "hush " + version + " (build "
		}
		if got := string(out); !strings.HasPrefix(got, want) {
			t.Errorf("%s: hush version printed %q, want it to begin %q", c.name, got, want)
		}
	}
}
