// Package hushproc runs a built hush binary as a process, for the tests
// that must treat it as an operator's server would be treated: killed,
// stopped, restarted, starved. It is imported by tests and test drivers
// only.
package hushproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Spec is what to run.
type Spec struct {
	Binary string   // the hush binary
	Env    []string // its whole environment (KEY=value)
	// Prefix runs the binary through another command (e.g. unshare,
	// nsenter); the binary and its arguments follow it.
	Prefix []string
}

// Proc is one running `hush serve`.
type Proc struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}

	mu   sync.Mutex
	logs strings.Builder
}

var listenRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// maxLog bounds the log kept of one process.
const maxLog = 4 << 20

// Start runs `hush serve` and waits until it listens (its listen line is
// needed: HUSH_LOG_LEVEL must be info or debug, HUSH_LOG_FORMAT text).
// Request log lines are not kept.
func Start(s Spec) (*Proc, error) {
	argv := append(append(append([]string{}, s.Prefix...), s.Binary), "serve")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = s.Env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{cmd: cmd, done: make(chan struct{})}
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
			}
			if strings.Contains(line, "msg=request ") {
				continue
			}
			p.mu.Lock()
			if p.logs.Len() < maxLog {
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
		return nil, fmt.Errorf("hush serve exited on start: %s", p.Log())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-p.done
		return nil, fmt.Errorf("hush serve did not start: %s", p.Log())
	}
}

// URL is the server's base URL.
func (p *Proc) URL() string { return p.url }

// PID is the process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Log returns what the process logged (request lines left out).
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Proc) Kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// Stop ends the process gracefully (SIGTERM), or kills it after 20 s.
func (p *Proc) Stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.Kill()
	}
}

// Admin runs a hush admin verb (through s.Prefix, if set) to its end and
// returns its standard output; the error carries its standard error.
func Admin(ctx context.Context, s Spec, args ...string) (string, error) {
	argv := append(append(append([]string{}, s.Prefix...), s.Binary), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = s.Env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), fmt.Errorf("hush %s: %v: %s", strings.Join(args, " "), err, ee.Stderr)
		}
		return string(out), fmt.Errorf("hush %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}
