// Package faultproxy is a TCP proxy for fault tests: put between Hush and
// its database or S3 server, it passes traffic, or plays the server
// stopped (connections accepted, counted and closed at once), frozen
// (connections held, not a byte passed either way) or cut (every open
// connection closed mid-transfer).
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Mode is what the proxy does with traffic.
type Mode int32

// The modes.
const (
	Pass   Mode = iota // forward both ways
	Refuse             // accept and close at once: a server that is down
	Freeze             // hold every connection, forward nothing: a server that hangs
)

// Proxy forwards connections from its address to a target address.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cond  *sync.Cond
	mode  Mode
	conns map[net.Conn]struct{}

	accepted atomic.Int64
}

// Start listens on a free loopback port and forwards to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Accepted is the number of connections accepted so far, in any mode.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Set switches the mode. Leaving Freeze lets held traffic through.
func (p *Proxy) Set(m Mode) {
	p.mu.Lock()
	p.mode = m
	p.mu.Unlock()
	p.cond.Broadcast()
}

// Cut closes every open connection, in the middle of whatever it carries.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Close stops the proxy and cuts its connections.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.Cut()
	p.Set(Pass) // release goroutines held by Freeze
	return err
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		p.mu.Lock()
		mode := p.mode
		p.mu.Unlock()
		if mode == Refuse {
			c.Close()
			continue
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(client net.Conn) {
	p.track(client)
	defer p.untrack(client)
	if !p.wait() {
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.track(server)
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	go func() { p.copy(server, client); done <- struct{}{} }()
	go func() { p.copy(client, server); done <- struct{}{} }()
	<-done
}

// wait blocks while the proxy is frozen; false when it turned to Refuse.
func (p *Proxy) wait() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.mode == Freeze {
		p.cond.Wait()
	}
	return p.mode == Pass
}

func (p *Proxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait() {
				break
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
					return
				}
			}
			break
		}
	}
	src.Close()
	dst.Close()
}

func (p *Proxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[c] = struct{}{}
}

func (p *Proxy) untrack(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}
