// Package metrics exposes Hush's Prometheus metrics: HTTP requests by route
// pattern and status, push life events, rate-limit refusals, sweeper runs
// and outbox deliveries. Labels never carry a token, a path with a token, or a client
// address, so their number stays bounded.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is one registry of Hush's metrics. A nil *Metrics records nothing.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	pushEvents  *prometheus.CounterVec
	rateLimited prometheus.Counter
	sweeps      *prometheus.CounterVec
	swept       *prometheus.CounterVec
	conns       *prometheus.CounterVec
	deliveries  *prometheus.CounterVec
	outbox      *prometheus.GaugeVec
}

// New registers every metric, with the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hush_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hush_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		pushEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hush_push_events_total", Help: "Push life events: created, viewed (views claimed), expired (by hand or by the sweeper).",
		}, []string{"event"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hush_rate_limited_total", Help: "Requests refused by the per-IP request rate limit (429).",
		}),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hush_sweeper_runs_total", Help: "Sweeper runs by result (ok or error).",
		}, []string{"result"}),
		swept: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hush_sweeper_items_total", Help: "What the sweeper did: pushes expired and deleted, files purged, orphans deleted.",
		}, []string{"action"}),
		conns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hush_connections_limited_total", Help: "Connections closed by the connection bounds: shed (idle, to make room) or refused (no room).",
		}, []string{"action"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hush_outbox_deliveries_total", Help: "Outbox delivery attempts by message kind and result: sent, retry (failed, tried again later), failed (given up) or dropped (nothing left to send).",
		}, []string{"kind", "result"}),
		outbox: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hush_outbox_messages", Help: "Messages in the outbox: pending (waiting to be sent or tried again) and failed (given up, kept a week).",
		}, []string{"state"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.pushEvents, m.rateLimited, m.sweeps, m.swept, m.conns, m.deliveries, m.outbox,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, e := range []string{"created", "viewed", "expired"} {
		m.pushEvents.WithLabelValues(e)
	}
	for _, r := range []string{"ok", "error"} {
		m.sweeps.WithLabelValues(r)
	}
	for _, a := range []string{"shed", "refused"} {
		m.conns.WithLabelValues(a)
	}
	for _, st := range []string{"pending", "failed"} {
		m.outbox.WithLabelValues(st)
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request records one finished HTTP request.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// PushEvent records a push life event (service.Event…).
func (m *Metrics) PushEvent(event string) {
	if m != nil {
		m.pushEvents.WithLabelValues(event).Inc()
	}
}

// RateLimited records a request refused by the rate limiter.
func (m *Metrics) RateLimited() {
	if m != nil {
		m.rateLimited.Inc()
	}
}

// Sweep records one sweeper run and what it did.
func (m *Metrics) Sweep(err error, expired, deleted int64, filesPurged, orphans int) {
	if m == nil {
		return
	}
	if err != nil {
		m.sweeps.WithLabelValues("error").Inc()
		return
	}
	m.sweeps.WithLabelValues("ok").Inc()
	m.pushEvents.WithLabelValues("expired").Add(float64(expired))
	m.swept.WithLabelValues("expired").Add(float64(expired))
	m.swept.WithLabelValues("deleted").Add(float64(deleted))
	m.swept.WithLabelValues("files_purged").Add(float64(filesPurged))
	m.swept.WithLabelValues("orphans_deleted").Add(float64(orphans))
}

// ConnShed records an idle connection closed to make room for a new one.
func (m *Metrics) ConnShed() {
	if m != nil {
		m.conns.WithLabelValues("shed").Inc()
	}
}

// ConnRefused records a new connection closed for want of room.
func (m *Metrics) ConnRefused() {
	if m != nil {
		m.conns.WithLabelValues("refused").Inc()
	}
}

// Delivery records an outbox delivery attempt of a message of kind.
func (m *Metrics) Delivery(kind, result string) {
	if m != nil {
		m.deliveries.WithLabelValues(kind, result).Inc()
	}
}

// Outbox records how many messages wait in the outbox and how many failed.
func (m *Metrics) Outbox(pending, failed int) {
	if m != nil {
		m.outbox.WithLabelValues("pending").Set(float64(pending))
		m.outbox.WithLabelValues("failed").Set(float64(failed))
	}
}
