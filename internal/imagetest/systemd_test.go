package imagetest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hush/internal/testdb"
)

// unitFile is deploy/hush.service: section → key → values, in order.
type unitFile map[string]map[string][]string

func readUnit(t *testing.T) (unitFile, string) {
	t.Helper()
	path := filepath.Join(repoRoot, "deploy", "hush.service")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("deploy/hush.service: bad line %q", line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u, string(b)
}

// TestSystemdUnit checks deploy/hush.service: it runs hush serve in a
// sandbox, with its state and key where the README says; then, where
// systemd-analyze exists (Debian's systemd), that systemd accepts the file
// without a warning and rates its exposure as OK. The unit is not started:
// that needs systemd running as the init system.
func TestSystemdUnit(t *testing.T) {
	u, text := readUnit(t)
	svc := u["Service"]
	if svc == nil || u["Unit"] == nil || u["Install"] == nil {
		t.Fatalf("deploy/hush.service lacks a [Unit], [Service] or [Install] section")
	}
	for key, want := range map[string]string{
		"ExecStart":               "/usr/local/bin/hush serve",
		"DynamicUser":             "yes",
		"StateDirectory":          "hush",
		"NoNewPrivileges":         "yes",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"PrivateDevices":          "yes",
		"RestrictSUIDSGID":        "yes",
		"CapabilityBoundingSet":   "",
		"KillSignal":              "SIGTERM",
		"LoadCredential":          "master_key:/etc/hush/master.key",
		"SystemCallArchitectures": "native",
		"MemoryDenyWriteExecute":  "yes",
		"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
		"ProtectKernelTunables":   "yes",
		"ProtectControlGroups":    "yes",
		"ProtectKernelModules":    "yes",
		"LockPersonality":         "yes",
		"RestrictNamespaces":      "yes",
		"UMask":                   "0077",
		"AmbientCapabilities":     "",
		"StateDirectoryMode":      "0700",
		"EnvironmentFile":         "-/etc/hush/hush.env",
		"Type":                    "exec",
		"Restart":                 "on-failure",
		"ProtectProc":             "invisible",
		"ProtectClock":            "yes",
		"ProtectHostname":         "yes",
		"ProtectKernelLogs":       "yes",
		"RestrictRealtime":        "yes",
		"PrivateUsers":            "yes",
		"DevicePolicy":            "closed",
		"RemoveIPC":               "yes",
		"ProcSubset":              "pid",
		"SystemCallErrorNumber":   "EPERM",
		"LimitNOFILE":             "65536",
		"RestartSec":              "2s",
	} {
		if got := svc[key]; len(got) != 1 || got[0] != want {
			t.Errorf("[Service] %s = %q, want exactly %q", key, got, want)
		}
	}
	for _, env := range []string{"HUSH_DATA_DIR=%S/hush", "HUSH_MASTER_KEY_FILE=%d/master_key", "HUSH_ADDR=:5100"} {
		if !slices.Contains(svc["Environment"], env) {
			t.Errorf("[Service] lacks Environment=%s", env)
		}
	}
	if got := svc["SystemCallFilter"]; !slices.Equal(got, []string{"@system-service", "~@privileged @resources"}) {
		t.Errorf("[Service] SystemCallFilter = %q", got)
	}
	stop, err := time.ParseDuration(strings.Join(svc["TimeoutStopSec"], ""))
	if err != nil || stop <= shutdownTimeout {
		t.Errorf("TimeoutStopSec %q must exceed HUSH_SHUTDOWN_TIMEOUT (15s) so in-flight requests can finish", svc["TimeoutStopSec"])
	}
	if got := u["Install"]["WantedBy"]; !slices.Equal(got, []string{"multi-user.target"}) {
		t.Errorf("[Install] WantedBy = %q", got)
	}

	analyze, err := exec.LookPath("systemd-analyze")
	testdb.Require(t, err == nil, "systemd-analyze not found (Debian's systemd package): the unit file was not verified by systemd")

	// systemd-analyze verify checks that ExecStart names an executable: the
	// unit is verified as written but for that path, which points at a hush
	// built here.
	dir := t.TempDir()
	bin := filepath.Join(dir, "hush")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/hush")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const execStart = "ExecStart=/usr/local/bin/hush serve"
	if !strings.Contains(text, "\n"+execStart+"\n") {
		t.Fatalf("deploy/hush.service lacks the line %s", execStart)
	}
	unit := filepath.Join(dir, "hush.service")
	if err := os.WriteFile(unit, []byte(strings.Replace(text, execStart, "ExecStart="+bin+" serve", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "verify", unit)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify deploy/hush.service: %v\n%s", err, out)
	}

	// Its exposure score, from 0 (locked down) to 10; systemd calls up to
	// 2.0 "OK".
	out, err = exec.Command(analyze, "security", "--offline=yes", unit).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security --offline=yes: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for hush\.service: ([0-9.]+) (\w+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("systemd-analyze security: exposure %s %s", m[1], m[2])
	if score > 2.0 {
		t.Errorf("exposure %.1f %s, want at most 2.0 (OK):\n%s", score, m[2], out)
	}
}
