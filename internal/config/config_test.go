package config

import (
	"errors"
	"flag"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hush/internal/push"
)

// envMap returns a getenv backed by m.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

const (
	testKey  = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	testKey2 = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
)

func mustLoad(t *testing.T, args []string, env map[string]string) *Config {
	t.Helper()
	c, err := Load(args, envMap(env))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	c := mustLoad(t, nil, nil)
	want := &Config{
		Addr:              ":5100",
		DataDir:           "./data",
		SQLiteSync:        "normal",
		SQLiteBusyTimeout: 10 * time.Second,
		LogFormat:         "text",
		LogLevel:          slog.LevelInfo,
		MaxJSONBody:       13 << 20,
		MaxFileSize:       100 << 20,
		MaxPushSize:       1 << 30,
		SweepInterval:     time.Minute,
		ShutdownTimeout:   15 * time.Second,
		Push:              push.DefaultSettings(),
		CORSOrigins:       []string{"*"},
		PasswordSignIn:    true,
		Hardening:         DefaultHardening(),
		Brand:             defaultBrand(),
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestEnvBeatsFlag(t *testing.T) {
	args := []string{"-addr", ":8080", "-log-level", "debug"}
	c := mustLoad(t, args, map[string]string{"HUSH_ADDR": ":9090"})
	if c.Addr != ":9090" {
		t.Errorf("Addr = %q, want env value :9090", c.Addr)
	}
	if c.LogLevel != slog.LevelDebug {
		t.Errorf("LogLevel = %v, want flag value debug", c.LogLevel)
	}
	c = mustLoad(t, args, map[string]string{"HUSH_ADDR": ""})
	if c.Addr != ":8080" {
		t.Errorf("Addr = %q, want flag value :8080 when env empty", c.Addr)
	}
}

func TestFlagsAndEnv(t *testing.T) {
	c := mustLoad(t, []string{
		"-data-dir", "/var/hush", "-database-url", "postgres://u:p@db/hush",
		"-base-url", "https://hush.example.com/", "-log-format", "JSON",
	}, map[string]string{
		"HUSH_MAX_JSON_BODY":    "1024",
		"HUSH_SWEEP_INTERVAL":   "30s",
		"HUSH_SHUTDOWN_TIMEOUT": "2s",
	})
	if c.DataDir != "/var/hush" || c.DatabaseURL != "postgres://u:p@db/hush" ||
		c.BaseURL != "https://hush.example.com" || c.LogFormat != "json" ||
		c.MaxJSONBody != 1024 || c.SweepInterval != 30*time.Second || c.ShutdownTimeout != 2*time.Second {
		t.Errorf("unexpected config %+v", c)
	}
}

func TestFlagErrors(t *testing.T) {
	if _, err := Load([]string{"-nope"}, envMap(nil)); err == nil {
		t.Error("unknown flag: want error")
	}
	if _, err := Load([]string{"extra"}, envMap(nil)); err == nil {
		t.Error("positional argument: want error")
	}
	if _, err := Load([]string{"-h"}, envMap(nil)); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: got %v, want flag.ErrHelp", err)
	}
}

func TestBaseURLAlias(t *testing.T) {
	c := mustLoad(t, nil, map[string]string{"PWP__OVERRIDE_BASE_URL": "http://a.example"})
	if c.BaseURL != "http://a.example" {
		t.Errorf("alias: BaseURL = %q", c.BaseURL)
	}
	c = mustLoad(t, []string{"-base-url", "http://c.example"}, map[string]string{
		"PWP__OVERRIDE_BASE_URL": "http://a.example",
		"HUSH_BASE_URL":          "http://b.example/",
	})
	if c.BaseURL != "http://b.example" {
		t.Errorf("HUSH_BASE_URL should win: BaseURL = %q", c.BaseURL)
	}
}

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		name, value string
	}{
		{"PWP__ALLOW_ANONYMOUS", "maybe"},
		{"PWP__PW__ENABLE_RETRIEVAL_STEP", "2"},
		{"PWP__PW__EXPIRE_AFTER_DAYS_MAX", "abc"},
		{"PWP__QR__EXPIRE_AFTER_VIEWS_MIN", "1.5"},
		{"PWP__FILES__MAX_FILE_UPLOADS", "-1"},
		{"PWP__URL__EXPIRE_AFTER_DAYS_MIN", "0"},
		{"PWP__FILES__EXPIRE_AFTER_DAYS_MAX", "4000"},
		{"PWP__QR__EXPIRE_AFTER_VIEWS_MAX", "1000001"},
		{"PWP__PW__EXPIRE_AFTER_VIEWS_DEFAULT", "101"},
		{"PWP__URL__EXPIRE_AFTER_VIEWS_MAX", "3"},
		{"PWP__PURGE_AFTER", "soon"},
		{"HUSH_LOG_LEVEL", "verbose"},
		{"HUSH_LOG_FORMAT", "xml"},
		{"HUSH_DATABASE_URL", "mysql://db/hush"},
		{"HUSH_DATABASE_URL", "sqlite:"},
		{"HUSH_SQLITE_SYNC", "extra"},
		{"HUSH_SQLITE_SYNC", "off"},
		{"HUSH_SQLITE_BUSY_TIMEOUT", "0"},
		{"HUSH_SQLITE_BUSY_TIMEOUT", "10"},
		{"HUSH_BASE_URL", "ftp://example.com"},
		{"HUSH_BASE_URL", "/relative"},
		{"HUSH_BASE_URL", "https://"},
		{"HUSH_TRUSTED_PROXIES", "10.0.0.0/33"},
		{"HUSH_TRUSTED_PROXIES", "proxy.local"},
		{"HUSH_MAX_JSON_BODY", "0"},
		{"HUSH_MAX_JSON_BODY", "2MB"},
		{"HUSH_MAX_FILE_SIZE", "-1"},
		{"HUSH_MAX_PUSH_SIZE", "1G"},
		{"HUSH_SWEEP_INTERVAL", "500ms"},
		{"HUSH_SHUTDOWN_TIMEOUT", "-1s"},
		{"HUSH_SHUTDOWN_TIMEOUT", "15"},
		{"HUSH_MASTER_KEY_PREVIOUS", testKey + ",short"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			_, err := Load(nil, envMap(map[string]string{tt.name: tt.value}))
			if err == nil {
				t.Fatal("want error")
			}
			if !strings.Contains(err.Error(), tt.name) {
				t.Errorf("error %q does not mention %s", err, tt.name)
			}
		})
	}
}

func TestInvalidFlagValueNamesFlag(t *testing.T) {
	_, err := Load([]string{"-log-level", "loud"}, envMap(nil))
	if err == nil || !strings.Contains(err.Error(), "-log-level") || !strings.Contains(err.Error(), "HUSH_LOG_LEVEL") {
		t.Errorf("got %v, want error naming -log-level and HUSH_LOG_LEVEL", err)
	}
}

func TestMasterKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key")
	if err := os.WriteFile(file, []byte("  "+testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, nil, map[string]string{"HUSH_MASTER_KEY_FILE": file})
	if c.MasterKey != testKey {
		t.Errorf("MasterKey from file = %q", c.MasterKey)
	}
	c = mustLoad(t, []string{"-master-key-file", file}, nil)
	if c.MasterKey != testKey {
		t.Errorf("MasterKey from flag file = %q", c.MasterKey)
	}
	c = mustLoad(t, nil, map[string]string{"HUSH_MASTER_KEY": testKey})
	if c.MasterKey != testKey {
		t.Errorf("MasterKey from env = %q", c.MasterKey)
	}

	_, err := Load(nil, envMap(map[string]string{"HUSH_MASTER_KEY": testKey, "HUSH_MASTER_KEY_FILE": file}))
	if err == nil || !strings.Contains(err.Error(), "HUSH_MASTER_KEY") {
		t.Errorf("both set: got %v", err)
	}
	_, err = Load(nil, envMap(map[string]string{"HUSH_MASTER_KEY_FILE": filepath.Join(dir, "missing")}))
	if err == nil || !strings.Contains(err.Error(), "HUSH_MASTER_KEY_FILE") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", err)
	}

	for _, bad := range []string{"s3cr3t-not-hex-value", testKey[:63], testKey + "0", strings.Repeat("zz", 32)} {
		_, err = Load(nil, envMap(map[string]string{"HUSH_MASTER_KEY": bad}))
		if err == nil || !strings.Contains(err.Error(), "HUSH_MASTER_KEY") {
			t.Errorf("bad key: got %v", err)
		} else if strings.Contains(err.Error(), bad) {
			t.Errorf("error %q leaks the key", err)
		}
	}
	badFile := filepath.Join(dir, "bad")
	if err := os.WriteFile(badFile, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(nil, envMap(map[string]string{"HUSH_MASTER_KEY_FILE": badFile}))
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "HUSH_MASTER_KEY") {
		t.Errorf("bad key file: got %v", err)
	}
}

func TestMasterKeyPrevious(t *testing.T) {
	c := mustLoad(t, nil, map[string]string{"HUSH_MASTER_KEY_PREVIOUS": testKey + ", " + testKey2})
	if !reflect.DeepEqual(c.MasterKeyPrevious, []string{testKey, testKey2}) {
		t.Errorf("MasterKeyPrevious = %v", c.MasterKeyPrevious)
	}
	file := filepath.Join(t.TempDir(), "prev")
	if err := os.WriteFile(file, []byte(testKey+"\n"+testKey2+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = mustLoad(t, nil, map[string]string{"HUSH_MASTER_KEY_PREVIOUS_FILE": file})
	if !reflect.DeepEqual(c.MasterKeyPrevious, []string{testKey, testKey2}) {
		t.Errorf("MasterKeyPrevious from file = %v", c.MasterKeyPrevious)
	}
	_, err := Load(nil, envMap(map[string]string{"HUSH_MASTER_KEY_PREVIOUS": testKey, "HUSH_MASTER_KEY_PREVIOUS_FILE": file}))
	if err == nil {
		t.Error("both previous settings: want error")
	}
	_, err = Load(nil, envMap(map[string]string{"HUSH_MASTER_KEY_PREVIOUS": "topsecret"}))
	if err == nil || strings.Contains(err.Error(), "topsecret") {
		t.Errorf("bad previous key: got %v", err)
	}
}

func TestTrustedProxies(t *testing.T) {
	c := mustLoad(t, nil, map[string]string{"HUSH_TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1, ::1"})
	want := []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("127.0.0.1/32"),
		netip.MustParsePrefix("::1/128"),
	}
	if !reflect.DeepEqual(c.TrustedProxies, want) {
		t.Errorf("TrustedProxies = %v, want %v", c.TrustedProxies, want)
	}
	c = mustLoad(t, []string{"-trusted-proxies", "192.168.1.7/24"}, nil)
	if len(c.TrustedProxies) != 1 || c.TrustedProxies[0] != netip.MustParsePrefix("192.168.1.0/24") {
		t.Errorf("flag TrustedProxies = %v", c.TrustedProxies)
	}
}

func TestSQLitePath(t *testing.T) {
	tests := []struct {
		dataDir, url string
		path         string
		ok           bool
	}{
		{"./data", "", filepath.Join("data", "hush.db"), true},
		{"/srv/hush", "", "/srv/hush/hush.db", true},
		{"./data", "sqlite:/tmp/x.db", "/tmp/x.db", true},
		{"./data", "sqlite:rel.db", "rel.db", true},
		{"./data", "sqlite:///abs/x.db", "/abs/x.db", true},
		{"./data", "file:/tmp/y.db", "/tmp/y.db", true},
		{"./data", "postgres://u@h/db", "", false},
		{"./data", "postgresql://u@h/db", "", false},
	}
	for _, tt := range tests {
		env := map[string]string{"HUSH_DATA_DIR": tt.dataDir, "HUSH_DATABASE_URL": tt.url}
		c := mustLoad(t, nil, env)
		path, ok := c.SQLitePath()
		if path != tt.path || ok != tt.ok {
			t.Errorf("%q/%q: SQLitePath() = %q, %v; want %q, %v", tt.dataDir, tt.url, path, ok, tt.path, tt.ok)
		}
	}
}

func TestSQLiteSync(t *testing.T) {
	for in, want := range map[string]string{"": "normal", "normal": "normal", "FULL": "full", " Full ": "full", "NorMal": "normal"} {
		if c := mustLoad(t, nil, map[string]string{"HUSH_SQLITE_SYNC": in}); c.SQLiteSync != want {
			t.Errorf("HUSH_SQLITE_SYNC=%q: SQLiteSync = %q, want %q", in, c.SQLiteSync, want)
		}
	}
	if !strings.Contains(Usage(), "HUSH_SQLITE_SYNC") {
		t.Error("Usage does not mention HUSH_SQLITE_SYNC")
	}
}

func TestSQLiteBusyTimeout(t *testing.T) {
	if c := mustLoad(t, nil, map[string]string{"HUSH_SQLITE_BUSY_TIMEOUT": "250ms"}); c.SQLiteBusyTimeout != 250*time.Millisecond {
		t.Errorf("HUSH_SQLITE_BUSY_TIMEOUT=250ms: %v", c.SQLiteBusyTimeout)
	}
	if !strings.Contains(Usage(), "HUSH_SQLITE_BUSY_TIMEOUT") {
		t.Error("Usage does not mention HUSH_SQLITE_BUSY_TIMEOUT")
	}
}

func TestPurgeAfter(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"disabled", 0, false},
		{"Disabled", 0, false},
		{"3 months", 90 * day, false},
		{"1 day", day, false},
		{"2 weeks", 14 * day, false},
		{"12 hours", 12 * time.Hour, false},
		{"30 minutes", 30 * time.Minute, false},
		{"1 year", 365 * day, false},
		{" 5  Days ", 5 * day, false},
		{"abc", 0, true},
		{"0 days", 0, true},
		{"-1 days", 0, true},
		{"+1 days", 0, true},
		{"1.5 days", 0, true},
		{"3 fortnights", 0, true},
		{"3", 0, true},
		{"3 days ago", 0, true},
		{"99999999999 years", 0, true},
	}
	for _, tt := range tests {
		c, err := Load(nil, envMap(map[string]string{"PWP__PURGE_AFTER": tt.in}))
		switch {
		case tt.wantErr && err == nil:
			t.Errorf("%q: want error", tt.in)
		case tt.wantErr && !strings.Contains(err.Error(), "PWP__PURGE_AFTER"):
			t.Errorf("%q: error %q does not name the variable", tt.in, err)
		case !tt.wantErr && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case !tt.wantErr && c.PurgeAfter != tt.want:
			t.Errorf("%q: PurgeAfter = %v, want %v", tt.in, c.PurgeAfter, tt.want)
		}
	}
}

func TestUsage(t *testing.T) {
	u := Usage()
	for _, s := range []string{"HUSH_ADDR", "PWP__ALLOW_ANONYMOUS", "-addr", ":5100", "PWP__PURGE_AFTER", "HUSH_MASTER_KEY_FILE"} {
		if !strings.Contains(u, s) {
			t.Errorf("Usage does not mention %q", s)
		}
	}
}
