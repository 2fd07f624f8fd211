package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// result is the report of one run. Latencies are in microseconds, memory
// in KiB, CPU in microseconds per request or in cores (1 = one CPU busy for
// the whole window).
type result struct {
	Label           string  `json:"label,omitempty"` // what was measured, for scripts
	Scenario        string  `json:"scenario"`
	Dialect         string  `json:"dialect,omitempty"` // the API spoken: pwpush or yopass
	URL             string  `json:"url"`
	Mode            string  `json:"mode"` // closed or open
	Concurrency     int     `json:"concurrency"`
	Rate            float64 `json:"rate,omitempty"` // iterations per second, open loop
	DurationSeconds float64 `json:"duration_s"`
	PayloadBytes    int     `json:"payload_bytes"`

	Requests        uint64  `json:"requests"`
	RPS             float64 `json:"rps"`
	Errors          uint64  `json:"errors"`
	ErrorsTransport uint64  `json:"errors_transport"`
	ErrorsStatus    uint64  `json:"errors_status"`
	ErrorsBody      uint64  `json:"errors_body"`
	FirstError      string  `json:"first_error,omitempty"`
	Recreated       uint64  `json:"recreated,omitempty"` // retrieve: replacement pushes created, not counted as requests

	P50 uint64  `json:"p50_us"`
	P90 uint64  `json:"p90_us"`
	P99 uint64  `json:"p99_us"`
	Max uint64  `json:"max_us"`
	Avg float64 `json:"mean_us"`

	ServerPID        int     `json:"server_pid,omitempty"`       // the first of -pid
	ServerPIDs       []int   `json:"server_pids,omitempty"`      // all of -pid, when more than one
	ServerProcesses  int     `json:"server_processes,omitempty"` // processes counted at the end: the -pid ones and their descendants
	ServerCPUPerReq  float64 `json:"server_cpu_us_per_req,omitempty"`
	ServerCPUCores   float64 `json:"server_cpu_cores,omitempty"`
	ServerPeakRSSKiB uint64  `json:"server_peak_rss_kib,omitempty"` // VmHWM: peak since the server started (summed over its processes)
	ServerRSSKiB     uint64  `json:"server_rss_kib,omitempty"`      // VmRSS at the end of the window (summed)
	ServerPSSKiB     uint64  `json:"server_pss_kib,omitempty"`      // proportional set size at the end of the window (summed: shared pages once)
	ClientCPUCores   float64 `json:"client_cpu_cores"`
	OtherCPUCores    float64 `json:"other_cpu_cores"` // the machine's busy CPU not spent by server or client: interference
	ClockTicks       uint64  `json:"clock_ticks_per_s"`

	WindowStartMS int64 `json:"window_start_unix_ms"` // the measured window, for lining it up with server-side events
	WindowEndMS   int64 `json:"window_end_unix_ms"`
}

func newResult(cfg runConfig, url string, sc scenario, workers []*worker, snap [2]snapshot) *result {
	var h histogram
	var fails [failKinds]uint64
	first := ""
	for _, w := range workers {
		h.merge(&w.hist)
		for k, n := range w.fails {
			fails[k] += n
		}
		if first == "" {
			first = w.firstErr
		}
	}
	secs := cfg.dur.Seconds()
	ticks := clockTicks()
	r := &result{
		Label:           cfg.label,
		Scenario:        cfg.scenario,
		Dialect:         cfg.dialect,
		URL:             url,
		Mode:            "closed",
		Concurrency:     cfg.conns,
		DurationSeconds: secs,
		PayloadBytes:    cfg.payload,
		Requests:        h.n,
		RPS:             float64(h.n) / secs,
		ErrorsTransport: fails[failTransport],
		ErrorsStatus:    fails[failStatus],
		ErrorsBody:      fails[failBody],
		FirstError:      first,
		P50:             h.quantile(0.50),
		P90:             h.quantile(0.90),
		P99:             h.quantile(0.99),
		Max:             h.max,
		Avg:             h.mean(),
		ClientCPUCores:  cores(snap[1].self.total()-snap[0].self.total(), ticks, secs),
		ClockTicks:      ticks,
	}
	r.Errors = r.ErrorsTransport + r.ErrorsStatus + r.ErrorsBody
	if len(workers) > 0 {
		r.WindowStartMS, r.WindowEndMS = workers[0].from.UnixMilli(), workers[0].to.UnixMilli()
	}
	if cfg.rate > 0 {
		r.Mode, r.Rate = "open", cfg.rate
	}
	if rs, ok := sc.(*retrieveScenario); ok {
		r.Recreated = rs.recreated.Load()
	}
	machine := cores(snap[1].machine-snap[0].machine, ticks, secs)
	r.OtherCPUCores = max(0, machine-r.ClientCPUCores)
	if len(cfg.pids) > 0 {
		used := snap[1].server.cpu - snap[0].server.cpu
		r.ServerPID = cfg.pids[0]
		if len(cfg.pids) > 1 {
			r.ServerPIDs = cfg.pids
		}
		r.ServerProcesses = snap[1].server.procs
		r.ServerCPUCores = cores(used, ticks, secs)
		if h.n > 0 {
			r.ServerCPUPerReq = float64(used) * 1e6 / float64(ticks) / float64(h.n)
		}
		r.ServerPeakRSSKiB = snap[1].server.mem.HWM
		r.ServerRSSKiB = snap[1].server.mem.RSS
		r.ServerPSSKiB = snap[1].server.pss
		r.OtherCPUCores = max(0, r.OtherCPUCores-r.ServerCPUCores)
	}
	return r
}

// cores converts CPU ticks over a window to CPUs busy.
func cores(ticks, perSecond uint64, secs float64) float64 {
	if secs <= 0 || perSecond == 0 {
		return 0
	}
	return float64(ticks) / float64(perSecond) / secs
}

func (r *result) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(r)
}

func (r *result) writeText(w io.Writer) {
	mode := "closed loop"
	if r.Mode == "open" {
		mode = fmt.Sprintf("open loop at %.0f iterations/s", r.Rate)
	}
	fmt.Fprintf(w, "scenario %s against %s: %d workers, %s, %gs measured, %d-byte payload\n",
		r.Scenario, r.URL, r.Concurrency, mode, r.DurationSeconds, r.PayloadBytes)
	fmt.Fprintf(w, "requests %d (%.1f req/s), errors %d (transport %d, status %d, body %d)\n",
		r.Requests, r.RPS, r.Errors, r.ErrorsTransport, r.ErrorsStatus, r.ErrorsBody)
	if r.FirstError != "" {
		fmt.Fprintf(w, "first error: %s\n", r.FirstError)
	}
	if r.Recreated > 0 {
		fmt.Fprintf(w, "replacement pushes created (not counted): %d\n", r.Recreated)
	}
	fmt.Fprintf(w, "latency p50 %v, p90 %v, p99 %v, max %v, mean %v\n",
		us(float64(r.P50)), us(float64(r.P90)), us(float64(r.P99)), us(float64(r.Max)), us(r.Avg))
	if r.ServerPID > 0 {
		who := fmt.Sprintf("server pid %d", r.ServerPID)
		if r.ServerProcesses > 1 {
			who = fmt.Sprintf("server pids %s (%d processes with their children)", (*pidList)(&r.ServerPIDs).String(), r.ServerProcesses)
			if len(r.ServerPIDs) == 0 {
				who = fmt.Sprintf("server pid %d (%d processes with its children)", r.ServerPID, r.ServerProcesses)
			}
		}
		fmt.Fprintf(w, "%s: %.1f µs CPU per request (%.2f cores), peak RSS %.1f MiB, RSS now %.1f MiB (PSS %.1f MiB)\n",
			who, r.ServerCPUPerReq, r.ServerCPUCores, float64(r.ServerPeakRSSKiB)/1024, float64(r.ServerRSSKiB)/1024,
			float64(r.ServerPSSKiB)/1024)
	}
	fmt.Fprintf(w, "load generator: %.2f cores; rest of the machine: %.2f cores (CPU time at %d ticks/s)\n",
		r.ClientCPUCores, r.OtherCPUCores, r.ClockTicks)
}

// us formats microseconds as a duration.
func us(v float64) time.Duration {
	return time.Duration(v * float64(time.Microsecond)).Round(time.Microsecond)
}
