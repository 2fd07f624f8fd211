package app

import (
	"os"
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

// TestMigrateDataSQLiteToSQLite copies a SQLite deployment on which an
// admin action ran (its admin lock is an empty value) into a new SQLite
// file, which then lists the account with its role.
func TestMigrateDataSQLiteToSQLite(t *testing.T) {
	dir := t.TempDir()
	from := "sqlite:" + filepath.Join(dir, "hush.db")
	lite := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_DATABASE_URL": from}
	if code, _, errOut := run(t, lite, "", "user", "create", "--email", "a@example.com"); code != 0 {
		t.Fatalf("user create: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, lite, "", "user", "promote", "--email", "a@example.com"); code != 0 {
		t.Fatalf("user promote: %d %q", code, errOut)
	}
	to := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
	if code, out, errOut := run(t, nil, "", "migrate-data", "--from", from, "--to", to); code != 0 || !strings.Contains(out, "users 1") {
		t.Fatalf("migrate-data: %d %q %q", code, out, errOut)
	}
	copied := map[string]string{"HUSH_DATA_DIR": dir, "HUSH_DATABASE_URL": to}
	if code, out, errOut := run(t, copied, "", "user", "list"); code != 0 || !strings.Contains(out, "admin") {
		t.Errorf("user list on the copy: %d %q %q", code, out, errOut)
	}
}

// TestMigrateDataSourceMustExist: a source that is not there (a mistyped
// file name, a missing directory) or holds no Hush database is refused in
// one line with exit status 1, and nothing is created or migrated.
func TestMigrateDataSourceMustExist(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ from, want string }{
		"mistyped file":     {"sqlite:" + filepath.Join(dir, "hsuh.db"), "no database at"},
		"missing directory": {"sqlite:" + filepath.Join(dir, "missing", "hush.db"), "no database at"},
		"plain path":        {filepath.Join(dir, "hsuh.db"), "no database at"},
		"a directory":       {"sqlite:" + dir, "is a directory"},
		"empty file":        {"sqlite:" + empty, "holds no Hush database"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			to := filepath.Join(t.TempDir(), "target.db")
			code, out, errOut := run(t, nil, "", "migrate-data", "--from", c.from, "--to", "sqlite:"+to)
			if code != 1 || !strings.HasPrefix(errOut, "hush: source: ") || !strings.Contains(errOut, c.want) ||
				strings.Count(errOut, "\n") != 1 || out != "" {
				t.Errorf("migrate-data --from %s: %d %q %q", c.from, code, out, errOut)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the source directory holds %d entries, want only empty.db: %v", len(entries), entries)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("the empty source was written to: %v", err)
	}
}
