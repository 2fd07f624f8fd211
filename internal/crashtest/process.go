// Package crashtest proves that Hush loses nothing and over-serves nothing
// when it is killed: concurrent clients create and retrieve pushes while a
// real `hush serve` process is killed with SIGKILL at random moments and
// restarted on the same data directory; after each restart and at the end
// every acknowledged push is checked (payload and files intact), no push
// may have been served more often than its view limit, and the SQLite
// database must pass PRAGMA integrity_check.
package crashtest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // read-only integrity checks
)

// hushProc is one running `hush serve`.
type hushProc struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
	mu   sync.Mutex
	logs strings.Builder
}

var listenRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// env is the environment of every hush process of a run.
func (r *runner) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HUSH_DATA_DIR=" + r.dir,
		"HUSH_MASTER_KEY=" + strings.Repeat("5e", 32),
		"HUSH_ADDR=127.0.0.1:0",
		"HUSH_LOG_LEVEL=warn",
		"PWP__THROTTLING__MINUTE=0",
		"PWP__THROTTLING__SECOND=0",
		"PWP__PW__RETRIEVAL_STEP_DEFAULT=false",
	}
}

// admin runs a hush admin verb and returns its stdout.
func (r *runner) admin(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, r.opt.Binary, args...)
	cmd.Env = r.env()
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("hush %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", fmt.Errorf("hush %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// start runs hush serve (the listen log line is needed at info level).
func (r *runner) start() (*hushProc, error) {
	cmd := exec.Command(r.opt.Binary, "serve")
	cmd.Env = append(r.env(), "HUSH_LOG_LEVEL=info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &hushProc{cmd: cmd, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if m := listenRE.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
				continue
			}
			if strings.Contains(line, "msg=request") {
				continue
			}
			p.mu.Lock()
			if p.logs.Len() < 1<<20 {
				p.logs.WriteString(line + "\n")
			}
			p.mu.Unlock()
		}
		cmd.Wait()
		close(p.done)
	}()
	select {
	case addr := <-found:
		p.url = "http://" + addr
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("hush serve exited on start: %s", p.log())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("hush serve did not start: %s", p.log())
	}
}

func (p *hushProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *hushProc) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// stop ends the process gracefully (SIGTERM), or kills it after 20 s.
func (p *hushProc) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.kill()
	}
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
