package app

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logoPNG starts like every PNG file, which is what the start-up check reads.
var logoPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

// TestBrandServed: serve brands its pages from the settings and serves a
// logo file of the data directory itself, with its type.
func TestBrandServed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "logo.png"), logoPNG, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, map[string]string{"HUSH_DATA_DIR": dir, "PWP__BRAND__TITLE": "Acme secrets",
		"PWP__BRAND__LIGHT_LOGO": "logo.png", "PWP__BRAND__DARK_LOGO": "https://cdn.example.com/dark.png"})
	res, err := http.Get(s.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	page := string(body)
	if !strings.Contains(page, "<title>Share a secret · Acme secrets</title>") || !strings.Contains(page, `src="/static/brand/light-logo?v=`) {
		t.Errorf("page not branded:\n%s", page)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "; img-src 'self' https://cdn.example.com") {
		t.Errorf("CSP %q", csp)
	}
	res, err = http.Get(s.url + "/static/brand/light-logo")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/png" || string(got) != string(logoPNG) {
		t.Errorf("logo: %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), got)
	}
}

// TestBadBrandFileStopsStartup: a logo outside the data directory, a
// missing one, or one that is not an image stops serve at start, naming
// the setting.
func TestBadBrandFileStopsStartup(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "logo.png")
	for path, body := range map[string][]byte{outside: logoPNG, filepath.Join(dir, "readme.png"): []byte("plain text"),
		filepath.Join(dir, "master.key"): []byte(strings.Repeat("ab", 32) + "\n")} {
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, value, want string }{
		{"PWP__BRAND__LIGHT_LOGO", outside, "outside the data directory"},
		{"PWP__BRAND__DARK_LOGO", "missing.png", "no such file"},
		{"PWP__BRAND__ICON_32x32", "readme.png", "is not an image"},
		{"HUSH_CUSTOM_CSS", "master.key", "not a stylesheet"},
	} {
		code, _, errOut := run(t, map[string]string{"HUSH_DATA_DIR": dir, "HUSH_ADDR": "127.0.0.1:0", c.name: c.value}, "", "serve")
		if code != 1 || !strings.Contains(errOut, c.name) || !strings.Contains(errOut, c.want) {
			t.Errorf("%s=%s: exit %d, stderr %q", c.name, c.value, code, errOut)
		}
	}
}
