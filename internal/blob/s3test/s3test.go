// Package s3test runs a throwaway S3-compatible server, versitygw serving a
// temporary directory, for the tests of the S3 file store. It is imported
// by tests only.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"hush/internal/testdb"
)

// Test credentials of the throwaway server; not secrets.
const (
	AccessKey = "hushtestaccess"
	SecretKey = "hushtestsecret0123456789"
)

const installHint = "GOBIN=$HOME/.cache/hush-tools go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Binary returns the path of versitygw: $HUSH_VERSITYGW, else versitygw on PATH,
// else $HOME/.cache/hush-tools/versitygw; "" if none exists.
func Binary() string { return testdb.Tool("HUSH_VERSITYGW", "versitygw") }

// Server is a running versitygw.
type Server struct {
	Endpoint string // 127.0.0.1:port
	Client   *minio.Client
}

// Start runs versitygw on a free loopback port until the test ends. Without
// the binary the test is skipped, or fails when HUSH_REQUIRE_ALL=1.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	testdb.Require(t, bin != "", "versitygw not found (set HUSH_VERSITYGW, put it on PATH, or build it: "+installHint+")")
	var lastLog string
	for range 3 { // the free port may be taken before versitygw binds it
		s, log, ok := try(t, bin)
		if ok {
			return s
		}
		lastLog = log
	}
	t.Fatalf("versitygw did not start:\n%s", lastLog)
	return nil
}

func try(t testing.TB, bin string) (*Server, string, bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	out := &testdb.Output{}
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--port", addr, "--quiet", "posix", dir)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	client, err := minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: "us-east-1"})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return nil, out.String(), false
		case <-time.After(50 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := client.ListBuckets(ctx)
		cancel()
		if err == nil {
			t.Cleanup(stop)
			return &Server{Endpoint: addr, Client: client}, "", true
		}
	}
	stop()
	return nil, out.String(), false
}

// Bucket creates a new, empty bucket and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := "hush-" + hex.EncodeToString(b)
	if err := s.Client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}
