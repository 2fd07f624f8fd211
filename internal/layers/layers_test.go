package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// graph asks the go command for the imports and dependencies of every
// package of the module (tests excluded: they may reach further).
func graph(t *testing.T) map[string]Package {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "hush/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	g := map[string]Package{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list: odd line %q", sc.Text())
		}
		g[parts[0]] = Package{Imports: strings.Fields(parts[1]), Deps: strings.Fields(parts[2])}
	}
	return g
}

// TestLayers fails when a package imports across the layers.
func TestLayers(t *testing.T) {
	for _, breach := range Check(Rules, graph(t)) {
		t.Error(breach)
	}
}

// TestCheckFindsBreaches proves the check can fail: a web package that
// imports the store, a service that reaches net/http through another
// package, and a rule about a package that is not there.
func TestCheckFindsBreaches(t *testing.T) {
	bad := map[string]Package{
		"hush/internal/web":     {Imports: []string{"hush/internal/service", "hush/internal/store", "net/http"}},
		"hush/internal/service": {Imports: []string{"hush/internal/blob"}, Deps: []string{"hush/internal/blob", "net/http"}},
	}
	got := Check([]Rule{
		{Package: "hush/internal/web", Internal: []string{"hush/internal/service"}},
		{Package: "hush/internal/service", NeverDeps: []string{"net/http", "mime/multipart"}},
		{Package: "hush/internal/gone"},
	}, bad)
	want := []string{
		"hush/internal/gone: not in the build",
		"hush/internal/service depends on net/http",
		"hush/internal/web imports hush/internal/store; it may import only hush/internal/service",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Check found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
