package config

import (
	"strings"
	"testing"
	"time"
)

func TestHardeningDefaults(t *testing.T) {
	c, err := Load(nil, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Hardening
	if h.RatePerMinute != 120 || h.RatePerSecond != 60 {
		t.Errorf("throttling defaults: %d/min %d/s", h.RatePerMinute, h.RatePerSecond)
	}
	if h.ReadHeaderTimeout != 10*time.Second || h.ReadTimeout != time.Minute || h.WriteTimeout != time.Minute || h.IdleTimeout != 2*time.Minute {
		t.Errorf("timeouts: %+v", h)
	}
	if h.MaxHeaderBytes != 64<<10 || h.MetricsAddr != "" {
		t.Errorf("header bytes %d, metrics %q", h.MaxHeaderBytes, h.MetricsAddr)
	}
}

func TestHardeningFromEnv(t *testing.T) {
	c, err := Load(nil, envMap(map[string]string{
		"PWP__THROTTLING__MINUTE":   "0",
		"PWP__THROTTLING__SECOND":   " 7 ",
		"HUSH_READ_HEADER_TIMEOUT":  "250ms",
		"HUSH_READ_TIMEOUT":         "2s",
		"HUSH_WRITE_TIMEOUT":        "3s",
		"HUSH_IDLE_TIMEOUT":         "4s",
		"HUSH_MAX_HEADER_BYTES":     "4096",
		"HUSH_MAX_CONNS":            "500",
		"HUSH_MAX_CONNS_PER_CLIENT": "50",
		"HUSH_METRICS_ADDR":         "127.0.0.1:9100",
		"HUSH_PPROF":                "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Hardening{RatePerMinute: 0, RatePerSecond: 7, ReadHeaderTimeout: 250 * time.Millisecond,
		ReadTimeout: 2 * time.Second, WriteTimeout: 3 * time.Second, IdleTimeout: 4 * time.Second,
		MaxHeaderBytes: 4096, MaxConns: 500, MaxConnsPerClient: 50, MetricsAddr: "127.0.0.1:9100", Pprof: true}
	if c.Hardening != want {
		t.Errorf("got %+v\nwant %+v", c.Hardening, want)
	}
}

func TestHardeningInvalid(t *testing.T) {
	for name, value := range map[string]string{
		"PWP__THROTTLING__MINUTE":   "-1",
		"PWP__THROTTLING__SECOND":   "many",
		"HUSH_READ_TIMEOUT":         "forever",
		"HUSH_READ_HEADER_TIMEOUT":  "1ms",
		"HUSH_MAX_HEADER_BYTES":     "10",
		"HUSH_MAX_CONNS":            "-1",
		"HUSH_MAX_CONNS_PER_CLIENT": "0",
		"HUSH_METRICS_ADDR":         "no-port",
		"HUSH_PPROF":                "1", // without HUSH_METRICS_ADDR
	} {
		_, err := Load(nil, envMap(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: %v", name, value, err)
		}
	}
}

func TestUsageListsHardening(t *testing.T) {
	u := Usage()
	for _, v := range []string{"PWP__THROTTLING__MINUTE", "HUSH_READ_TIMEOUT", "HUSH_METRICS_ADDR"} {
		if !strings.Contains(u, v) {
			t.Errorf("usage lacks %s", v)
		}
	}
}
