package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hush/internal/push"
)

// counting is a receiver that counts the requests that reach it.
func counting(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// Without AllowPrivate no request reaches a loopback, link-local or
// private address, whether the URL names it or a name resolves to it.
func TestRefusesPrivateAddresses(t *testing.T) {
	srv, hits := counting(t, nil)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p := New(Options{Timeout: 2 * time.Second})
	for _, u := range []string{
		"http://127.0.0.1:" + port + "/",
		"http://localhost:" + port + "/", // a name that resolves to loopback
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
		"http://172.16.0.1/",
		"http://192.168.0.1/",
		"http://0.0.0.0:" + port + "/",
		"http://[fd00::1]/",
		"http://[fe80::1]/",
		"http://100.64.0.1/",
	} {
		status, err := p.Post(context.Background(), u, nil, []byte("{}"))
		if !errors.Is(err, ErrRefusedAddress) || status != 0 {
			t.Errorf("%s: %d, %v; want a refusal", u, status, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the loopback receiver", n)
	}
	// With AllowPrivate the same receiver is reached.
	status, err := New(Options{AllowPrivate: true}).Post(context.Background(), "http://localhost:"+port+"/", nil, []byte("{}"))
	if err != nil || status != 200 || hits.Load() != 1 {
		t.Errorf("allowed: %d, %v, %d hits", status, err, hits.Load())
	}
}

func TestHookAddrRefused(t *testing.T) {
	for a, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "::ffff:127.0.0.1": true, "169.254.169.254": true,
		"10.1.2.3": true, "172.31.255.255": true, "192.168.1.1": true, "0.0.0.0": true, "::": true, "224.0.0.1": true,
		"ff02::1": true, "fe80::1": true, "fc00::1": true, "100.64.0.1": true, "255.255.255.255": true,
		"64:ff9b::a00:1": true, "::ffff:10.0.0.1": true,
		"192.0.2.1": true, "198.51.100.7": true, "203.0.113.9": true,
		// IPv6 that carries IPv4 inside (IPv4-compatible, 6to4, Teredo),
		// the discard prefix and the documentation ranges.
		"::7f00:1": true, "::a00:1": true, "2002:7f00:1::": true, "2001:0:4136:e378:8000:63bf:3fff:fdd2": true,
		"100::1": true, "2001:db8::1": true, "3fff::1": true,
		"2001:4860:4860::8888": false, "2a00:1450:4001:80b::200e": false,
		"93.184.215.14": false, "2606:2800:21f:cb07:6820:80da:af6b:8b2c": false, "8.8.8.8": false, "172.32.0.1": false,
	} {
		if got := push.HookAddrRefused(netip.MustParseAddr(a)); got != want {
			t.Errorf("HookAddrRefused(%s) = %v, want %v", a, got, want)
		}
	}
}

// A redirect is the answer: it is not followed.
func TestNoRedirects(t *testing.T) {
	target, hits := counting(t, nil)
	redirect, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	status, err := New(Options{AllowPrivate: true}).Post(context.Background(), redirect.URL, nil, []byte("{}"))
	if err != nil || status != http.StatusTemporaryRedirect || hits.Load() != 0 {
		t.Errorf("redirect: %d, %v, target hit %d times", status, err, hits.Load())
	}
}

// A slow receiver is cut off at the time limit; an endless answer is read
// only to the cap.
func TestTimeoutAndResponseCap(t *testing.T) {
	slow, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	p := New(Options{AllowPrivate: true, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := p.Post(context.Background(), slow.URL, nil, nil)
	if err == nil || time.Since(start) > 2*time.Second || !strings.Contains(err.Error(), "time limit") {
		t.Errorf("slow receiver: %v after %v", err, time.Since(start))
	}
	var written atomic.Int64
	endless, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 32<<10)
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil || written.Load() > 64<<20 {
				return
			}
		}
	})
	status, err := New(Options{AllowPrivate: true, Timeout: 5 * time.Second}).Post(context.Background(), endless.URL, nil, nil)
	if err != nil || status != 200 {
		t.Errorf("endless answer: %d, %v", status, err)
	}
	if w := written.Load(); w > 16<<20 {
		t.Errorf("the receiver wrote %d bytes; the read should stop near %d", w, MaxResponseRead)
	}
}

// The headers given are the headers sent, and the body is posted as is.
func TestPostsHeadersAndBody(t *testing.T) {
	var got *http.Request
	var body string
	srv, _ := counting(t, func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 100)
		n, _ := r.Body.Read(b)
		got, body = r, string(b[:n])
		w.WriteHeader(http.StatusAccepted)
	})
	status, err := New(Options{AllowPrivate: true}).Post(context.Background(), srv.URL+"/x",
		map[string]string{"webhook-id": "msg_1", "Content-Type": "application/json"}, []byte(`{"a":1}`))
	if err != nil || status != http.StatusAccepted || got.Method != http.MethodPost || got.Header.Get("Webhook-Id") != "msg_1" ||
		body != `{"a":1}` || got.URL.Path != "/x" {
		t.Errorf("%d %v %+v %q", status, err, got, body)
	}
}

// The delivery log, which the endpoint's owner reads, says why a delivery
// failed without the address a name resolved to, the resolver Hush asked
// or the URL.
func TestDescribeKeepsTheNetworkInside(t *testing.T) {
	dial := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://hooks.example.com/secret-path",
			Err: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 443}, Err: err}}
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{dial(&net.DNSError{Err: "no such host", Name: "hooks.example.com", Server: "10.255.255.53:53", IsNotFound: true}), "no such host"},
		{dial(&net.DNSError{Err: "server misbehaving", Name: "hooks.example.com", Server: "10.255.255.53:53"}), "did not resolve"},
		{dial(fmt.Errorf("%w: %s", ErrRefusedAddress, "10.9.8.7")), "private, loopback"},
		{dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), "connection refused"},
		{&url.Error{Op: "Post", URL: "https://hooks.example.com/secret-path", Err: &net.OpError{Op: "read", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 443}, Err: os.NewSyscallError("read", syscall.ECONNRESET)}}, "connection reset"},
	} {
		got := describe(c.err).Error()
		if !strings.Contains(got, c.want) {
			t.Errorf("describe(%v) = %q, want it to say %q", c.err, got, c.want)
		}
		for _, inside := range []string{"10.9.8.7", "10.255.255.53", ":53", "secret-path", "lookup"} {
			if strings.Contains(got, inside) {
				t.Errorf("describe(%v) = %q tells %q", c.err, got, inside)
			}
		}
	}
}
