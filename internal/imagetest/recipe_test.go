package imagetest

import (
	"os"
	"path/filepath"
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
