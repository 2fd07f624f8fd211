// Package oidctest runs a real OpenID Connect provider for the single
// sign-on tests: the example provider of the zitadel/oidc library, built
// by .ci/run at Version, with the users a test gives it and one web client
// ("web", secret "secret") allowed to return to one redirect URI. It is
// imported by tests only.
package oidctest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"hush/internal/testdb"
)

// Version is the release of github.com/zitadel/oidc/v3 whose example/server
// the tests are written against; .ci/run builds it.
const Version = "v3.49.2"

// The example provider's web client.
const (
	ClientID     = "web"
	ClientSecret = "secret"
)

const installHint = "GOBIN=$(mktemp -d) go install github.com/zitadel/oidc/v3/example/server@" + Version +
	" && mv that directory's server $HOME/.cache/hush-tools/oidc-provider"

// Binary returns the path of the provider: $HUSH_OIDC_PROVIDER, else
// oidc-provider on PATH, else $HOME/.cache/hush-tools/oidc-provider; ""
// if none exists.
func Binary() string { return testdb.Tool("HUSH_OIDC_PROVIDER", "oidc-provider") }

// Require skips the test when the provider is absent, or fails it when
// HUSH_REQUIRE_ALL=1.
func Require(t testing.TB) string {
	t.Helper()
	bin := Binary()
	testdb.Require(t, bin != "", "the OpenID Connect test provider was not found (set HUSH_OIDC_PROVIDER, or build it: "+installHint+")")
	return bin
}

// User is a person at the provider; they sign in with Username and
// Password on its login page.
type User struct {
	ID            string
	Username      string
	Password      string
	Email         string
	EmailVerified bool
}

// Server is a running provider.
type Server struct {
	Issuer string // http://localhost:<port>/, as its discovery document names it
}

// Start runs the provider on a free port until the test ends, with users
// and the web client allowed back to redirectURI only.
func Start(t testing.TB, redirectURI string, users ...User) *Server {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "users.json")
	writeUsers(t, file, users)
	var lastLog string
	for range 3 { // a free port may be taken before the provider binds it
		s, log, ok := try(t, bin, file, redirectURI)
		if ok {
			return s
		}
		lastLog = log
	}
	t.Fatalf("the OpenID Connect provider did not start:\n%s", lastLog)
	return nil
}

// writeUsers writes the provider's user file: users by id.
func writeUsers(t testing.TB, file string, users []User) {
	type record struct {
		ID, Username, Password, FirstName, LastName, Email string
		EmailVerified                                      bool
		PreferredLanguage                                  string
	}
	m := map[string]record{}
	for _, u := range users {
		m[u.ID] = record{ID: u.ID, Username: u.Username, Password: u.Password, FirstName: "Test", LastName: u.ID,
			Email: u.Email, EmailVerified: u.EmailVerified, PreferredLanguage: "en"}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// try starts the provider on a port that was free a moment ago and waits
// for its discovery document.
func try(t testing.TB, bin, usersFile, redirectURI string) (*Server, string, bool) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var out testdb.Output
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "USERS_FILE="+usersFile, "REDIRECT_URI="+redirectURI)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the OpenID Connect provider: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-done
	}
	issuer := fmt.Sprintf("http://localhost:%d/", port)
	c := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return nil, out.String(), false
		default:
		}
		resp, err := c.Get(issuer + ".well-known/openid-configuration")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return &Server{Issuer: issuer}, "", true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return nil, out.String(), false
}
