package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// loopbackHosts are the only hosts hush-bench loads or listens on: it is a
// tool for measuring on one machine, never a way to flood another.
var loopbackHosts = map[string]bool{"127.0.0.1": true, "localhost": true, "::1": true}

// checkLoopbackURL accepts an http URL whose host is 127.0.0.1, localhost
// or [::1], with a port, and nothing after the path "/".
func checkLoopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-url: %w", err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("-url %q: only http:// is supported", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("-url %q: give only scheme, host and port", raw)
	}
	if !loopbackHosts[u.Hostname()] {
		return nil, fmt.Errorf("-url %q: host must be 127.0.0.1, localhost or [::1]", raw)
	}
	if u.Port() == "" {
		return nil, fmt.Errorf("-url %q: a port is required", raw)
	}
	u.Path = ""
	return u, nil
}

// checkLoopbackAddr accepts a host:port listen address on a loopback host.
func checkLoopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr: %w", err)
	}
	if !loopbackHosts[host] {
		return fmt.Errorf("-addr %q: host must be 127.0.0.1, localhost or [::1]", addr)
	}
	return nil
}

// checkLoopbackURLs accepts one URL or several, comma-separated, each as
// checkLoopbackURL does, and returns them as scheme://host:port.
func checkLoopbackURLs(raw string) ([]string, error) {
	var bases []string
	for one := range strings.SplitSeq(raw, ",") {
		u, err := checkLoopbackURL(strings.TrimSpace(one))
		if err != nil {
			return nil, err
		}
		bases = append(bases, u.String())
	}
	return bases, nil
}
