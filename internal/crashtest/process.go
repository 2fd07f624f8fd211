// Package crashtest proves that Hush loses nothing and over-serves nothing
// when it is killed: concurrent clients create and retrieve pushes while a
// real `hush serve` process is killed with SIGKILL at random moments and
// restarted on the same data directory; after each restart and at the end
// every acknowledged push is checked (payload and files intact), no push
// may have been served more often than its view limit, and the SQLite
// database must pass PRAGMA integrity_check.
package crashtest

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // read-only integrity checks

	"hush/internal/hushproc"
)

// spec is how every hush process of a run is started: the listen line
// needs the info level, request lines are not kept.
func (r *runner) spec() hushproc.Spec {
	return hushproc.Spec{Binary: r.opt.Binary, Env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HUSH_DATA_DIR=" + r.dir,
		"HUSH_MASTER_KEY=" + strings.Repeat("5e", 32),
		"HUSH_ADDR=127.0.0.1:0",
		"HUSH_LOG_LEVEL=info",
		"PWP__THROTTLING__MINUTE=0",
		"PWP__THROTTLING__SECOND=0",
		"PWP__PW__RETRIEVAL_STEP_DEFAULT=false",
	}}
}

// integrityCheck opens the SQLite file read-only and runs PRAGMA
// integrity_check; it returns "ok" or the problems found.
func integrityCheck(dir string) (string, error) {
	path := filepath.Join(dir, "hush.db")
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return strings.Join(out, "; "), rows.Err()
}
