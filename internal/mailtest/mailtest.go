// Package mailtest runs a throwaway SMTP server, Mailpit, for the tests
// that send email, and reads what arrived through Mailpit's HTTP API. It
// is imported by tests only.
package mailtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hush/internal/testdb"
)

// Version is the Mailpit release the tests are written against; .ci/run
// builds it.
const Version = "v1.27.11"

const installHint = "GOBIN=$HOME/.cache/hush-tools go install github.com/axllent/mailpit@" + Version

// Binary returns the path of Mailpit: $HUSH_MAILPIT, else mailpit on PATH,
// else $HOME/.cache/hush-tools/mailpit; "" if none exists.
func Binary() string { return testdb.Tool("HUSH_MAILPIT", "mailpit") }

// Require skips the test when Mailpit is absent, or fails it when
// HUSH_REQUIRE_ALL=1.
func Require(t testing.TB) string {
	t.Helper()
	bin := Binary()
	testdb.Require(t, bin != "", "Mailpit not found (set HUSH_MAILPIT, put it on PATH, or build it: "+installHint+")")
	return bin
}

// Options shape the server.
type Options struct {
	// TLS gives the server a certificate, made for the test, for STARTTLS
	// (or for implicit TLS with ImplicitTLS); Server.RootCAs trusts it.
	TLS bool
	// RequireSTARTTLS refuses mail from a client that does not start TLS.
	RequireSTARTTLS bool
	// ImplicitTLS speaks TLS from the first byte (SMTPS).
	ImplicitTLS bool
	// Username and Password, when set, are the only credentials accepted;
	// else any client may send without authenticating.
	Username, Password string
	// Chaos lets SetFailure make the server refuse recipients.
	Chaos bool
}

// Server is a running Mailpit.
type Server struct {
	Host    string // 127.0.0.1
	Port    int    // SMTP
	API     string // http://127.0.0.1:port of the HTTP API
	RootCAs *x509.CertPool
}

// Start runs Mailpit on free loopback ports until the test ends. Without
// the binary the test is skipped, or fails when HUSH_REQUIRE_ALL=1.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	args, pool := o.args(t, dir)
	var lastLog string
	for range 3 { // a free port may be taken before Mailpit binds it
		s, log, ok := try(t, bin, dir, args)
		if ok {
			s.RootCAs = pool
			return s
		}
		lastLog = log
	}
	t.Fatalf("mailpit did not start:\n%s", lastLog)
	return nil
}

// args are Mailpit's flags for o, with the files they name written to dir.
func (o Options) args(t testing.TB, dir string) ([]string, *x509.CertPool) {
	args := []string{"--quiet", "--disable-version-check", "--smtp-disable-rdns", "--database", filepath.Join(dir, "mailpit.db")}
	var pool *x509.CertPool
	if o.TLS || o.ImplicitTLS {
		var cert, key string
		cert, key, pool = makeCert(t, dir)
		args = append(args, "--smtp-tls-cert", cert, "--smtp-tls-key", key)
	}
	if o.RequireSTARTTLS {
		args = append(args, "--smtp-require-starttls")
	}
	if o.ImplicitTLS {
		args = append(args, "--smtp-require-tls")
	}
	if o.Username != "" {
		file := filepath.Join(dir, "smtp-auth")
		if err := os.WriteFile(file, []byte(o.Username+":"+o.Password+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--smtp-auth-file", file)
		if !o.TLS && !o.ImplicitTLS {
			args = append(args, "--smtp-auth-allow-insecure")
		}
	} else {
		args = append(args, "--smtp-auth-accept-any", "--smtp-auth-allow-insecure")
	}
	if o.Chaos {
		args = append(args, "--enable-chaos")
	}
	return args, pool
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func try(t testing.TB, bin, dir string, args []string) (*Server, string, bool) {
	smtpPort, apiPort := freePort(t), freePort(t)
	s := &Server{Host: "127.0.0.1", Port: smtpPort, API: fmt.Sprintf("http://127.0.0.1:%d", apiPort)}
	out := &testdb.Output{}
	cmd := exec.Command(bin, append(args, "--smtp", net.JoinHostPort(s.Host, strconv.Itoa(smtpPort)),
		"--listen", fmt.Sprintf("127.0.0.1:%d", apiPort))...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mailpit: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return nil, out.String(), false
		case <-time.After(50 * time.Millisecond):
		}
		res, err := http.Get(s.API + "/readyz")
		if err != nil {
			continue
		}
		res.Body.Close()
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(s.Host, strconv.Itoa(smtpPort)), time.Second); err == nil && res.StatusCode == 200 {
			c.Close()
			t.Cleanup(stop)
			return s, "", true
		}
	}
	stop()
	return nil, out.String(), false
}

// makeCert writes a certificate for 127.0.0.1 and localhost, signed by a
// certificate authority made for the test, and returns the files and a
// pool that trusts the authority.
func makeCert(t testing.TB, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hush test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "smtp.crt"), filepath.Join(dir, "smtp.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(ca)
	return certFile, keyFile, pool
}

// Address is a mailbox as Mailpit reports it.
type Address struct {
	Name    string
	Address string
}

// Message is a message that arrived, as Mailpit's API reports it.
type Message struct {
	ID      string
	From    Address
	To      []Address
	Subject string
	Text    string // filled by Get
	HTML    string // filled by Get
}

// get fetches an API path and decodes its JSON into v.
func (s *Server) get(t testing.TB, path string, v any) {
	t.Helper()
	res, err := http.Get(s.API + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("mailpit %s: %d %s", path, res.StatusCode, b)
	}
	if v == nil {
		return
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("mailpit %s: %v: %s", path, err, b)
	}
}

// Messages lists every message that arrived, newest first (without their
// bodies: see Get).
func (s *Server) Messages(t testing.TB) []Message {
	t.Helper()
	var list struct{ Messages []Message }
	s.get(t, "/api/v1/messages?limit=1000", &list)
	return list.Messages
}

// Get returns one message with its plain text and HTML.
func (s *Server) Get(t testing.TB, id string) Message {
	t.Helper()
	var m Message
	s.get(t, "/api/v1/message/"+id, &m)
	return m
}

// Raw returns a message's source, headers and MIME parts as they arrived.
func (s *Server) Raw(t testing.TB, id string) string {
	t.Helper()
	res, err := http.Get(s.API + "/api/v1/message/" + id + "/raw")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// To returns, with their bodies, the messages that arrived for address,
// oldest first.
func (s *Server) To(t testing.TB, address string) []Message {
	t.Helper()
	var out []Message
	list := s.Messages(t)
	for i := len(list) - 1; i >= 0; i-- {
		for _, a := range list[i].To {
			if strings.EqualFold(a.Address, address) {
				out = append(out, s.Get(t, list[i].ID))
				break
			}
		}
	}
	return out
}

// Wait waits up to timeout until at least n messages arrived for address
// and returns them, oldest first; it fails the test when they do not come.
func (s *Server) Wait(t testing.TB, address string, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := s.To(t, address)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages for %s after %v, want %d", len(got), address, timeout, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Count is the number of messages that arrived.
func (s *Server) Count(t testing.TB) int {
	t.Helper()
	var list struct {
		MessagesCount int `json:"messages_count"`
	}
	s.get(t, "/api/v1/messages?limit=1", &list)
	return list.MessagesCount
}

// Clear deletes every message.
func (s *Server) Clear(t testing.TB) {
	t.Helper()
	s.send(t, http.MethodDelete, "/api/v1/messages", nil)
}

// SetFailure makes the server refuse every recipient with code (a 4xx
// reply is temporary, a 5xx one permanent); 0 lets them through again. The
// server must have been started with Options.Chaos.
func (s *Server) SetFailure(t testing.TB, code int) {
	t.Helper()
	p := 0
	if code != 0 {
		p = 100
	} else {
		code = 451
	}
	body := fmt.Sprintf(`{"Recipient":{"ErrorCode":%d,"Probability":%d}}`, code, p)
	s.send(t, http.MethodPut, "/api/v1/chaos", strings.NewReader(body))
}

func (s *Server) send(t testing.TB, method, path string, body io.Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, s.API+path, body)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("mailpit %s %s: %d %s", method, path, res.StatusCode, b)
	}
}
