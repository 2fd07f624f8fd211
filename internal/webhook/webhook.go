// Package webhook delivers Hush's webhook requests (docs/decisions.md, D49):
// an HTTP client that connects only to public addresses — the check runs
// on the address each connection is about to use, after name resolution,
// so a name that resolves to a private address, at registration or later
// (DNS rebinding), is refused — follows no redirect, uses no proxy, and
// bounds the time of a request and the size of the answer it reads.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"hush/internal/push"
)

// Defaults of Options.
const (
	DefaultTimeout  = 10 * time.Second
	MaxResponseRead = 64 << 10 // the part of an answer read (and thrown away)
)

// ErrRefusedAddress is the error of a connection to an address a webhook
// may not reach.
var ErrRefusedAddress = errors.New("webhook: the address is private, loopback, link-local or reserved (HUSH_WEBHOOK_ALLOW_PRIVATE=true allows it)")

// Options configure New.
type Options struct {
	// AllowPrivate lets requests reach private, loopback and link-local
	// addresses (HUSH_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
	// Timeout bounds a request, from connecting to the end of the answer's
	// headers and the part of its body read; 0: DefaultTimeout.
	Timeout time.Duration
}

// Poster posts webhook requests (service.WebhookPoster).
type Poster struct {
	client *http.Client
}

// New returns a Poster.
func New(o Options) *Poster {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	dialer := &net.Dialer{Timeout: o.Timeout, Control: control(o.AllowPrivate)}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would be the address connected to, not the endpoint
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Poster{client: &http.Client{
		Transport: transport,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is an answer, not followed
		},
	}}
}

// control refuses, unless allowPrivate, a connection to an address a
// webhook may not reach; it runs with the address the dialer resolved,
// just before connecting.
func control(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrRefusedAddress, address)
		}
		if push.HookAddrRefused(ap.Addr()) {
			return fmt.Errorf("%w: %s", ErrRefusedAddress, ap.Addr())
		}
		return nil
	}
}

// Post sends body with header to rawURL and returns the answer's status.
// It reads at most MaxResponseRead bytes of the answer.
func (p *Poster) Post(ctx context.Context, rawURL string, header map[string]string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook: %w", err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, describe(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseRead))
	return resp.StatusCode, nil
}

// describe shortens a client error for the delivery log, which the
// endpoint's owner reads: the refusal of an address, a name that does not
// resolve, a timeout, a connection that failed, or a TLS or protocol
// error, without the URL, the address a name resolved to or the resolver
// Hush asked (what the network inside looks like is not the owner's to
// see).
func describe(err error) error {
	if errors.Is(err, ErrRefusedAddress) {
		return ErrRefusedAddress
	}
	if ue, ok := err.(interface{ Timeout() bool }); ok && ue.Timeout() {
		return fmt.Errorf("webhook: no answer within the time limit: %w", context.DeadlineExceeded)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		why := "the name could not be resolved"
		if dns.IsNotFound {
			why = "no such host"
		}
		return fmt.Errorf("webhook: the endpoint's name did not resolve: %s", why)
	}
	var op *net.OpError
	if errors.As(err, &op) {
		// The operation's error without its addresses: an errno ("connect:
		// connection refused"), or a TLS alert the endpoint sent.
		var errno syscall.Errno
		switch {
		case errors.As(op.Err, &errno):
			return fmt.Errorf("webhook: the connection failed (%s): %w", op.Op, errno)
		case op.Op == "remote error" && op.Err != nil:
			return fmt.Errorf("webhook: the endpoint refused the connection: %w", op.Err)
		}
		return fmt.Errorf("webhook: the connection failed (%s)", op.Op)
	}
	var uerr interface{ Unwrap() error }
	if errors.As(err, &uerr) && uerr.Unwrap() != nil {
		return fmt.Errorf("webhook: %w", uerr.Unwrap())
	}
	return fmt.Errorf("webhook: %w", err)
}
