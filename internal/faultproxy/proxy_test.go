package faultproxy

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echo starts a server that echoes lines.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, wait time.Duration) (string, error) {
	c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// TestModes plays each mode against an echo server.
func TestModes(t *testing.T) {
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	held := dial()
	if got, err := roundTrip(held, time.Second); got != "ping\n" {
		t.Fatalf("pass: %q %v", got, err)
	}

	p.Set(Freeze)
	frozen := dial()
	if got, err := roundTrip(frozen, 200*time.Millisecond); err == nil {
		t.Fatalf("frozen: answered %q", got)
	}
	p.Set(Pass)
	frozen.SetDeadline(time.Now().Add(time.Second))
	if got, err := bufio.NewReader(frozen).ReadString('\n'); got != "ping\n" {
		t.Fatalf("after the freeze the held line did not arrive: %q %v", got, err)
	}

	p.Set(Refuse)
	before := p.Accepted()
	if got, err := roundTrip(dial(), time.Second); err == nil {
		t.Fatalf("refused: answered %q", got)
	}
	if p.Accepted() != before+1 {
		t.Fatalf("accepted %d, want %d", p.Accepted(), before+1)
	}

	p.Set(Pass)
	p.Cut()
	if got, err := roundTrip(held, time.Second); err == nil {
		t.Fatalf("cut: the old connection still answered %q", got)
	}
}
