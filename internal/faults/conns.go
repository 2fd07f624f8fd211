package faults

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"hush/internal/hushproc"
)

// connectionFlood opens floods of idle keep-alive connections and of slow
// ones (headers never finished) from many addresses, more than the
// server's bound, then sends new clients: each must be served promptly,
// and health and readiness must answer.
func connectionFlood(ctx context.Context, w *world) (string, error) {
	idle, slow := w.scale(1000, 15000), w.scale(100, 2000)
	env := []string{"HUSH_DATA_DIR=" + w.opt.Dir()}
	bound := "the default bound (half the file descriptors, at most 10,000)"
	if !w.opt.Long {
		env = append(env, "HUSH_MAX_CONNS=300")
		bound = "a bound of 300"
	}
	p, err := w.start(hushproc.Spec{Binary: w.opt.Binary, Env: w.env(env...)})
	if err != nil {
		return "", err
	}
	addr := strings.TrimPrefix(p.URL(), "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// 100 addresses, fewer connections each than the per-client bound.
	for i := range idle + slow {
		c, err := dialFrom(addr, 1+i%100)
		if err != nil {
			return "", fmt.Errorf("connection %d: %w", i, err)
		}
		conns = append(conns, c)
		if i < idle {
			if err := keepAlive(c); err != nil {
				continue // shed already: the server made room
			}
		} else {
			fmt.Fprintf(c, "GET /api/v2/version HTTP/1.1\r\nHost: hush\r\n")
		}
	}
	time.Sleep(1100 * time.Millisecond) // old enough to be shed
	var lat []time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	clients := 50
	for i := range clients {
		wg.Go(func() {
			start := time.Now()
			a := w.create(ctx, p.URL(), fmt.Sprintf("newcomer-%d", i), 2, 10*time.Second)
			if a.push != nil {
				a = w.retrieve(ctx, p.URL(), a.push.URLToken, 10*time.Second)
			}
			if a.status != http.StatusOK {
				w.violate("a new client during the flood: status %d", a.status)
				return
			}
			mu.Lock()
			lat = append(lat, time.Since(start))
			mu.Unlock()
		})
	}
	wg.Wait()
	health := w.readyz(ctx, p.URL())
	if health.status != http.StatusOK {
		w.violate("/readyz during the flood: %d", health.status)
	}
	slices.Sort(lat)
	p50, worst := time.Duration(0), time.Duration(0)
	if len(lat) > 0 {
		p50, worst = lat[len(lat)/2], lat[len(lat)-1]
	}
	if worst > 5*time.Second {
		w.violate("a new client waited %v during the flood", worst)
	}
	return fmt.Sprintf("%d idle keep-alive and %d slow connections from 100 addresses against %s: %d of %d new clients "+
		"created and read a push (p50 %s, slowest %s); /readyz %d", idle, slow, bound, len(lat), clients,
		ms(p50), ms(worst), health.status), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// dialFrom connects to addr from 127.0.n.m, one of many loopback addresses.
func dialFrom(addr string, n int) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 1, byte(n/250), byte(1+n%250))}, Timeout: 5 * time.Second}
	return d.Dial("tcp", addr)
}

// keepAlive sends one request on c and reads its answer, leaving the
// connection open and idle.
func keepAlive(c net.Conn) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: hush\r\n\r\n"); err != nil {
		return err
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	return res.Body.Close()
}
