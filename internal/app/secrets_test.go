package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hush/internal/testdb"
)

// TestSecretsNeverLogged drives a full API session at debug level, then scans
// every log line, the file store and the database files for the secrets it
// used, secret links included.
func TestSecretsNeverLogged(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_LOG_LEVEL": "debug", "HUSH_LOG_FORMAT": "json"}
	apiToken := apiToken(t, env, "owner@example.com", "pw-Zq81-secret")
	srv := startServe(t, env)

	secrets := []string{apiToken, "pw-Zq81-secret"}
	auth := []string{"Authorization", "Bearer " + apiToken}
	var tokens []string
	for i, p := range []map[string]any{
		{"payload": "payload-K7d2-plain", "note": "note-Hq3v-owner"},
		{"payload": "payload-P9x4-guarded", "passphrase": "phrase-Lm5w-door"},
		{"payload": "https://example.com/url-Yt6r-link", "kind": "url"},
		{"payload": "qr-Ve2n-code", "kind": "qr", "name": "label"},
	} {
		secrets = append(secrets, p["payload"].(string))
		if s, ok := p["passphrase"].(string); ok {
			secrets = append(secrets, s)
		}
		if s, ok := p["note"].(string); ok {
			secrets = append(secrets, s)
		}
		hdr := auth
		if i%2 == 1 {
			hdr = nil
		}
		status, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": p}, hdr...)
		if status != 201 {
			t.Fatalf("create: %d %v", status, obj)
		}
		tokens = append(tokens, obj.(map[string]any)["url_token"].(string))
	}
	for _, tok := range tokens {
		call(t, "GET", srv.url+"/api/v2/pushes/"+tok, nil)
		call(t, "GET", srv.url+"/api/v2/pushes/"+tok+"?passphrase=wrong-Gz1k-guess", nil)
		call(t, "GET", srv.url+"/api/v2/pushes/"+tok+"?passphrase=phrase-Lm5w-door", nil)
		call(t, "GET", srv.url+"/api/v2/pushes/"+tok+"/preview", nil)
		call(t, "GET", srv.url+"/api/v2/pushes/"+tok+"/audit", nil, auth...)
		call(t, "DELETE", srv.url+"/api/v2/pushes/"+tok, nil, auth...)
	}
	call(t, "GET", srv.url+"/api/v2/pushes/active", nil, "Authorization", "Bearer bad-token-Wq7c")
	call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": 5, "passphrase": "phrase-Lm5w-door"}})
	secrets = append(secrets, "wrong-Gz1k-guess", "bad-token-Wq7c")
	secrets = append(secrets, driveWebAndFiles(t, srv.url, apiToken)...) // web flows, files (secrets_web_test.go)
	// The url_token is a capability too: access logs hide it.
	secrets = append(secrets, tokens...)
	srv.stop(t)

	logs := srv.log.String()
	if !strings.Contains(logs, `"msg":"request"`) {
		t.Fatalf("no request logged:\n%s", logs)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("secret %q appears in the logs", s)
		}
	}
	files := fileStoreBytes(t, dir)
	if len(files) == 0 {
		t.Fatal("the file store is empty")
	}
	for _, s := range secrets {
		if bytes.Contains(files, []byte(s)) {
			t.Errorf("secret %q is in the file store in plaintext", s)
		}
	}
	if testdb.Engine() != "sqlite" {
		return // the database file scan below reads SQLite's files
	}
	var stored []byte
	for _, f := range []string{"hush.db", "hush.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		stored = append(stored, b...)
	}
	if len(stored) == 0 {
		t.Fatal("no database files")
	}
	// Secret links included: the database keeps only their keys.
	for _, s := range secrets {
		if bytes.Contains(stored, []byte(s)) {
			t.Errorf("secret %q is stored in plaintext", s)
		}
	}
}
