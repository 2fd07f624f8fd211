package config

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// Hardening holds the request limits, server timeouts and the metrics
// listener of `hush serve`.
type Hardening struct {
	RatePerMinute int // PWP__THROTTLING__MINUTE: requests per client IP a minute; 0 disables
	RatePerSecond int // PWP__THROTTLING__SECOND: requests per client IP a second; 0 disables

	ReadHeaderTimeout time.Duration // HUSH_READ_HEADER_TIMEOUT
	ReadTimeout       time.Duration // HUSH_READ_TIMEOUT: the whole request, body included
	WriteTimeout      time.Duration // HUSH_WRITE_TIMEOUT
	IdleTimeout       time.Duration // HUSH_IDLE_TIMEOUT: keep-alive connections
	MaxHeaderBytes    int           // HUSH_MAX_HEADER_BYTES
	MaxConns          int           // HUSH_MAX_CONNS: open connections; 0 = half the file descriptor limit, 64..10000
	MaxConnsPerClient int           // HUSH_MAX_CONNS_PER_CLIENT: open connections of one address (an IPv6 /64)

	MetricsAddr string // HUSH_METRICS_ADDR: Prometheus /metrics listener; "" = off
	Pprof       bool   // HUSH_PPROF: also serve /debug/pprof/ on the metrics listener
}

// Defaults of the hardening settings: Password Pusher's Rack::Attack limits,
// and the server timeouts Hush has always used (a slow client is cut after
// 10 s of headers or 60 s for the whole request).
const (
	defaultRatePerMinute     = 120
	defaultRatePerSecond     = 60
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 60 * time.Second
	defaultWriteTimeout      = 60 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
	defaultMaxHeaderBytes    = 64 << 10
	defaultMaxConnsPerClient = 256
)

// DefaultHardening returns the defaults of every hardening setting.
func DefaultHardening() Hardening {
	return Hardening{
		RatePerMinute:     defaultRatePerMinute,
		RatePerSecond:     defaultRatePerSecond,
		ReadHeaderTimeout: defaultReadHeaderTimeout,
		ReadTimeout:       defaultReadTimeout,
		WriteTimeout:      defaultWriteTimeout,
		IdleTimeout:       defaultIdleTimeout,
		MaxHeaderBytes:    defaultMaxHeaderBytes,
		MaxConnsPerClient: defaultMaxConnsPerClient,
	}
}

// loadHardening reads the throttling, timeout and metrics settings.
func loadHardening(s *source, c *Config) error {
	c.Hardening = DefaultHardening()
	h := &c.Hardening
	var errs []error
	for _, v := range []struct {
		env      string
		dst      *int
		min, max int64
	}{
		{"PWP__THROTTLING__MINUTE", &h.RatePerMinute, 0, 1 << 30},
		{"PWP__THROTTLING__SECOND", &h.RatePerSecond, 0, 1 << 30},
		{"HUSH_MAX_HEADER_BYTES", &h.MaxHeaderBytes, 1 << 10, 16 << 20},
		{"HUSH_MAX_CONNS", &h.MaxConns, 0, 1 << 20},
		{"HUSH_MAX_CONNS_PER_CLIENT", &h.MaxConnsPerClient, 1, 1 << 20},
	} {
		val, name, ok := s.env(v.env)
		if !ok {
			continue
		}
		n, err := parseInt(name, val, 64)
		switch {
		case err != nil:
			errs = append(errs, err)
		case n < v.min || n > v.max:
			errs = append(errs, fmt.Errorf("%s: %d is outside %d..%d", name, n, v.min, v.max))
		default:
			*v.dst = int(n)
		}
	}
	for _, v := range []struct {
		env string
		dst *time.Duration
	}{
		{"HUSH_READ_HEADER_TIMEOUT", &h.ReadHeaderTimeout},
		{"HUSH_READ_TIMEOUT", &h.ReadTimeout},
		{"HUSH_WRITE_TIMEOUT", &h.WriteTimeout},
		{"HUSH_IDLE_TIMEOUT", &h.IdleTimeout},
	} {
		if val, name, ok := s.env(v.env); ok {
			d, err := parseDuration(name, val, 10*time.Millisecond)
			if err != nil {
				errs = append(errs, err)
			} else {
				*v.dst = d
			}
		}
	}
	if val, name, ok := s.env("HUSH_METRICS_ADDR"); ok {
		if _, _, err := net.SplitHostPort(val); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not host:port: %w", name, val, err))
		} else {
			h.MetricsAddr = val
		}
	}
	if val, name, ok := s.env("HUSH_PPROF"); ok {
		b, err := parseBool(name, val)
		switch {
		case err != nil:
			errs = append(errs, err)
		case b && h.MetricsAddr == "":
			errs = append(errs, fmt.Errorf("%s: needs HUSH_METRICS_ADDR (the profiles are served on the metrics listener only)", name))
		default:
			h.Pprof = b
		}
	}
	return errors.Join(errs...)
}

// hardeningUsage lists the hardening settings for Usage.
func hardeningUsage() []usageRow {
	return []usageRow{
		{"PWP__THROTTLING__MINUTE", "", fmt.Sprint(defaultRatePerMinute), "requests per client IP a minute (429 above; 0 disables)"},
		{"PWP__THROTTLING__SECOND", "", fmt.Sprint(defaultRatePerSecond), "requests per client IP a second (429 above; 0 disables)"},
		{"HUSH_READ_HEADER_TIMEOUT", "", defaultReadHeaderTimeout.String(), "time to read a request's headers"},
		{"HUSH_READ_TIMEOUT", "", defaultReadTimeout.String(), "time to read a whole request, body included"},
		{"HUSH_WRITE_TIMEOUT", "", defaultWriteTimeout.String(), "time to write a response"},
		{"HUSH_IDLE_TIMEOUT", "", defaultIdleTimeout.String(), "how long an idle keep-alive connection stays open"},
		{"HUSH_MAX_HEADER_BYTES", "", fmt.Sprint(defaultMaxHeaderBytes), "largest accepted request header block in bytes (431 above)"},
		{"HUSH_MAX_CONNS", "", "0", "open connections at most (idle ones are closed first to make room); 0: half the file descriptor limit, 64 to 10000"},
		{"HUSH_MAX_CONNS_PER_CLIENT", "", fmt.Sprint(defaultMaxConnsPerClient), "open connections of one client address (an IPv6 /64) at most; trusted proxies are not bounded"},
		{"HUSH_METRICS_ADDR", "", "(off)", "host:port of a separate Prometheus /metrics listener"},
		{"HUSH_PPROF", "", "false", "also serve Go's /debug/pprof/ profiles on the metrics listener"},
	}
}
