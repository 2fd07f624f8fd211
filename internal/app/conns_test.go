package app

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// dialFrom opens a TCP connection to the server at addr from 127.0.0.n.
func dialFrom(t *testing.T, addr string, n int) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(n/250), byte(2+n%250))}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server has closed c (a read ends
// within wait).
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errorAs(err, &ne) && ne.Timeout())
}

func errorAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

// getOn sends one GET on an open connection and returns the response (its
// body read).
func getOn(t *testing.T, c net.Conn, path string) *http.Response {
	t.Helper()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: hush\r\n\r\n", path)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// TestConnectionBounds fills the server's connection bounds the ways the
// fault run did, on a small scale: one address holding many connections,
// idle keep-alive connections from many, and requests that hold their
// connections busy. New clients still get in (idle connections make room,
// oldest first), one address never holds more than its share, and health
// checks answer even when every connection is busy.
func TestConnectionBounds(t *testing.T) {
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_MAX_CONNS": "20",
		"HUSH_MAX_CONNS_PER_CLIENT": "8", "HUSH_READ_TIMEOUT": "30s"})
	addr := strings.TrimPrefix(srv.url, "http://")

	t.Run("one address holds its share at most", func(t *testing.T) {
		var conns []net.Conn
		for range 12 {
			conns = append(conns, dialFrom(t, addr, 1))
		}
		closed := 0
		for _, c := range conns {
			if closedByServer(c, 300*time.Millisecond) {
				closed++
			}
		}
		if closed < 4 {
			t.Errorf("%d of 12 connections from one address closed, want at least 4 (bound 8)", closed)
		}
	})

	t.Run("idle connections make room for new clients", func(t *testing.T) {
		var conns []net.Conn
		for i := range 30 {
			c := dialFrom(t, addr, 10+i)
			if res := getOn(t, c, "/api/v2/version"); res.StatusCode != 200 {
				t.Fatalf("client %d: %d", i, res.StatusCode)
			}
			conns = append(conns, c) // kept open, idle between requests
		}
		shed := 0
		for _, c := range conns {
			if closedByServer(c, 100*time.Millisecond) {
				shed++
			}
		}
		if shed < 10 {
			t.Errorf("%d of 30 idle connections closed with a bound of 20, want at least 10", shed)
		}
		if res := getOn(t, dialFrom(t, addr, 100), "/api/v2/version"); res.StatusCode != 200 {
			t.Errorf("a new client after 30 idle ones: %d", res.StatusCode)
		}
	})

	t.Run("health answers when every connection is busy", func(t *testing.T) {
		// 20 requests whose bodies never finish keep their connections
		// active (not idle: nothing to shed).
		for i := range 20 {
			c := dialFrom(t, addr, 200+i)
			fmt.Fprintf(c, "POST /api/v2/pushes HTTP/1.1\r\nHost: hush\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"push\":")
		}
		time.Sleep(300 * time.Millisecond)
		for _, path := range []string{"/healthz", "/readyz"} {
			if res := getOn(t, dialFrom(t, addr, 300), path); res.StatusCode != 200 {
				t.Errorf("%s with every connection busy: %d", path, res.StatusCode)
			}
		}
		res := getOn(t, dialFrom(t, addr, 301), "/api/v2/version")
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !res.Close {
			t.Errorf("a request over the bound: %d %v close=%v; want 503, Retry-After, the connection closed", res.StatusCode, res.Header, res.Close)
		}
	})
}

// TestSlowUploadsKeepPace sends a signed-in user's upload that trickles:
// it is cut after the read timeout, as a JSON body would be, not held for
// the half hour an upload may take; an upload that keeps pace may take
// longer than the read timeout.
func TestSlowUploadsKeepPace(t *testing.T) {
	env := map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_READ_TIMEOUT": "1s"}
	token := apiToken(t, env, "u@example.com", "long enough password")
	srv := startServe(t, env)
	addr := strings.TrimPrefix(srv.url, "http://")

	send := func(size int, every time.Duration, chunk int) (status int, took time.Duration) {
		t.Helper()
		var head bytes.Buffer
		mw := multipart.NewWriter(&head)
		mw.WriteField("push[expire_after_views]", "2")
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="push[files][]"; filename="f.bin"`)
		mw.CreatePart(h)
		tail := "\r\n--" + mw.Boundary() + "--\r\n"
		c := dialFrom(t, addr, 7)
		fmt.Fprintf(c, "POST /api/v2/pushes HTTP/1.1\r\nHost: hush\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			token, mw.FormDataContentType(), head.Len()+size+len(tail))
		start := time.Now()
		c.Write(head.Bytes())
		for sent := 0; sent < size; sent += chunk {
			if _, err := c.Write(make([]byte, min(chunk, size-sent))); err != nil {
				return 0, time.Since(start) // cut by the server
			}
			time.Sleep(every)
		}
		c.Write([]byte(tail))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, time.Since(start)
		}
		res.Body.Close()
		return res.StatusCode, time.Since(start)
	}

	// 100 bytes every 100 ms would take 20 s.
	if status, took := send(20000, 100*time.Millisecond, 100); status == http.StatusCreated || took > 8*time.Second {
		t.Errorf("a trickling upload: %d after %v; want it cut within a few read timeouts", status, took)
	}
	// 3 MiB at about 1.5 MiB/s: longer than the read timeout, but at pace.
	if status, took := send(3<<20, 100*time.Millisecond, 160<<10); status != http.StatusCreated || took < time.Second {
		t.Errorf("an upload keeping pace: %d after %v; want 201 after more than the read timeout", status, took)
	}
}
