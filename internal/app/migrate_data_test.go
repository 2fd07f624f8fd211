package app

import (
	"path/filepath"
	"strings"
	"testing"

	"hush/internal/testdb"
)

// TestMigrateDataSQLiteToPostgres moves a deployment with users, tokens,
// pushes, audit logs and files from SQLite to PostgreSQL and keeps serving.
func TestMigrateDataSQLiteToPostgres(t *testing.T) {
	onlyOnPostgresPass(t)
	dir := t.TempDir()
	lite := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_DATABASE_URL": "sqlite:" + filepath.Join(dir, "hush.db")}
	srv := startServe(t, lite)
	apiToken := apiToken(t, lite, "m@example.com", "long enough")
	auth := []string{"Authorization", "Bearer " + apiToken}
	var toks []string
	for _, p := range []map[string]any{
		{"payload": "plain", "note": "kept note", "expire_after_views": 3},
		{"payload": "guarded", "passphrase": "pp"},
		{"files": []any{map[string]any{"filename": "f.txt", "content_base64": "ZmlsZSBib2R5"}}},
	} {
		status, obj := call(t, "POST", srv.url+"/api/v2/pushes", map[string]any{"push": p}, auth...)
		if status != 201 {
			t.Fatalf("create: %d %v", status, obj)
		}
		toks = append(toks, obj.(map[string]any)["url_token"].(string))
	}
	call(t, "GET", srv.url+"/api/v2/pushes/"+toks[0], nil) // one view, audited
	srv.stop(t)

	pg := testdb.PostgresURL(t)
	code, out, errOut := run(t, nil, "", "migrate-data", "--from", "sqlite:"+filepath.Join(dir, "hush.db"), "--to", pg)
	if code != 0 || !strings.Contains(out, "pushes 3") || !strings.Contains(out, "audit_logs 5") {
		t.Fatalf("migrate-data: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, nil, "", "migrate-data", "--from", "sqlite:"+filepath.Join(dir, "hush.db"), "--to", pg); code != 1 || !strings.Contains(errOut, "empty") {
		t.Errorf("second copy into a full database: %d %q", code, errOut)
	}

	onPG := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_DATABASE_URL": pg}
	srv2 := startServe(t, onPG)
	status, list := call(t, "GET", srv2.url+"/api/v2/pushes/active", nil, auth...)
	if status != 200 || len(list.([]any)) != 3 {
		t.Fatalf("active on PostgreSQL with the old token: %d %v", status, list)
	}
	_, got := call(t, "GET", srv2.url+"/api/v2/pushes/"+toks[0], nil)
	if m := got.(map[string]any); m["payload"] != "plain" || m["views_remaining"] != 1.0 {
		t.Errorf("plain push: %v", m)
	}
	if _, got := call(t, "GET", srv2.url+"/api/v2/pushes/"+toks[1]+"?passphrase=pp", nil); got.(map[string]any)["payload"] != "guarded" {
		t.Errorf("passphrase push: %v", got)
	}
	if body := firstFile(t, srv2.url, toks[2]); string(body) != "file body" {
		t.Errorf("file after the move: %q", body)
	}
	_, logs := call(t, "GET", srv2.url+"/api/v2/pushes/"+toks[0]+"/audit", nil, auth...)
	if n := len(logs.(map[string]any)["logs"].([]any)); n != 3 {
		t.Errorf("audit entries after the move: %d, want creation + 2 views", n)
	}
	// New rows continue after the copied ids.
	if status, _ := call(t, "POST", srv2.url+"/api/v2/pushes", map[string]any{"push": map[string]any{"payload": "new"}}, auth...); status != 201 {
		t.Errorf("create after the move: %d", status)
	}
}
