package imagetest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestNginxLogsNoPaths: the proxy configuration Hush ships must not write
// request paths or queries to any log — they carry secret links, download
// links and ?passphrase=. Its access log uses a format without them, and its
// error log (whose messages quote the request line) keeps only crit.
func TestNginxLogsNoPaths(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	format := regexp.MustCompile(`(?s)log_format\s+(\w+)\s+(.*?);`).FindStringSubmatch(conf)
	if format == nil {
		t.Fatal("nginx.conf defines no log_format: the default one logs the request line")
	}
	if regexp.MustCompile(`\$(request|request_uri|uri|document_uri|args|query_string|arg_\w+)\b`).MatchString(format[2]) {
		t.Errorf("log_format %s logs a path or query: %s", format[1], format[2])
	}
	for _, m := range regexp.MustCompile(`access_log\s+([^;]+);`).FindAllStringSubmatch(conf, -1) {
		if !regexp.MustCompile(`\s`+format[1]+`$`).MatchString(m[1]) && m[1] != "off" {
			t.Errorf("access_log %q does not use the format without paths", m[1])
		}
	}
	if !regexp.MustCompile(`error_log\s+\S+\s+(crit|alert|emerg);`).MatchString(conf) {
		t.Error("error_log keeps levels whose messages quote the request line")
	}
}
