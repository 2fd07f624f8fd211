package testdb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

type pgServer struct {
	dir, bin, url string
	owner         *owner // the user the server runs as, when not this process's
}

// owner is a user id and group id to run the server's programs as.
type owner struct{ uid, gid int }

// findBin locates a PostgreSQL server binary: on PATH, else in Debian's
// /usr/lib/postgresql/<version>/bin (newest version first).
func findBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(found) == 0 {
		return "", fmt.Errorf("%s not found (install the Debian package postgresql, or set HUSH_TEST_POSTGRES_URL)", name)
	}
	sort.Strings(found)
	return found[len(found)-1], nil
}

// startServer initialises and starts a throwaway PostgreSQL in a temp dir.
// As root it runs the server as the postgres user (initdb refuses root).
func startServer(ctx context.Context) (*pgServer, error) {
	initdb, err := findBin("initdb")
	if err != nil {
		return nil, err
	}
	pgctl := filepath.Join(filepath.Dir(initdb), "pg_ctl")
	if _, err := os.Stat(pgctl); err != nil {
		if pgctl, err = findBin("pg_ctl"); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "hush-pg-")
	if err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir, bin: pgctl}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.owner = &owner{uid: uid, gid: gid}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run(ctx, initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "+
		"-c full_page_writes=off -c max_connections=300", port, dir)
	if out, err := s.run(ctx, pgctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %w: %s %s", err, out, log)
	}
	s.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return s, nil
}

func (s *pgServer) run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = s.dir
	if s.owner != nil {
		runAs(cmd, *s.owner)
	}
	return cmd.CombinedOutput()
}

func (s *pgServer) stop() {
	s.run(context.Background(), s.bin, "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("no TCP address")
	}
	return addr.Port, nil
}
