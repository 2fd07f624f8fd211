package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
)

// `hush-bench table FILE` reads the JSON reports of `run -json -label …`
// (one a line, labels "baseline" and "hush") and prints the comparison of
// `make bench`: per scenario the median req/s of each side, their ratio,
// median p99s, Hush's median CPU per request and its peak RSS.

// targets are the ones docs/performance.md states: the least Hush/baseline ratio per scenario, and
// the largest p99 at 32 workers.
var targets = map[string]float64{"create": 0.50, "cycle": 0.30, "retrieve": 0.35}

const targetP99 = 10_000 // µs

// row is one scenario's figures.
type row struct {
	scenario           string
	baseRPS, hushRPS   float64
	baseP99, hushP99   float64
	hushCPU, baseCPU   float64
	hushPeakRSS        uint64
	baseRuns, hushRuns int
	errors             uint64
	maxOther           float64 // most CPU used by other processes during a run, in cores
	maxClient          float64 // most CPU used by the load generator during a run
}

// Above these, a run's figures are suspect: something else ran on the
// machine, or the load generator was near its one CPU's limit.
const (
	noisyOther = 0.25
	busyClient = 0.90
)

func (r row) ratio() float64 {
	if r.baseRPS == 0 {
		return 0
	}
	return r.hushRPS / r.baseRPS
}

func tableCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := reportsFile(fs)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := summarize(f)
	if err != nil {
		return err
	}
	writeTable(stdout, rows)
	return nil
}

// summarize groups the reports by scenario, in the order first seen; every
// report must be labelled baseline or hush.
func summarize(r io.Reader) ([]row, error) {
	pairs, err := comparePairs(r, "baseline", "hush", true)
	if err != nil {
		return nil, err
	}
	rows := make([]row, len(pairs))
	for i, p := range pairs {
		rows[i] = row{scenario: p.scenario, baseRPS: p.aRPS, hushRPS: p.bRPS, baseP99: p.aP99, hushP99: p.bP99,
			baseCPU: p.aCPU, hushCPU: p.bCPU, hushPeakRSS: p.bPeakRSS, baseRuns: p.aRuns, hushRuns: p.bRuns,
			errors: p.errors, maxOther: p.maxOther, maxClient: p.maxCPU}
	}
	return rows, nil
}

// median of f over rs: the middle value, or the mean of the middle two.
func median(rs []result, f func(result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func writeTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| scenario | baseline req/s (median) | hush req/s (median) | ratio hush/baseline | hush p99 | baseline p99 | hush CPU µs/req | baseline CPU µs/req | hush peak RSS |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.3f | %s | %s | %.0f | %.0f | %.1f MiB |\n",
			r.scenario, r.baseRPS, r.hushRPS, r.ratio(), ms(r.hushP99), ms(r.baseP99), r.hushCPU, r.baseCPU, float64(r.hushPeakRSS)/1024)
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		want, ok := targets[r.scenario]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "target %-8s ratio %.3f vs ≥ %.2f: %s (%.0f%% of the target); p99 %s vs ≤ 10ms: %s\n",
			r.scenario, r.ratio(), want, verdict(r.ratio() >= want), 100*r.ratio()/want,
			ms(r.hushP99), verdict(r.hushP99 <= targetP99))
	}
	for _, r := range rows {
		if r.errors > 0 {
			fmt.Fprintf(w, "WARNING: %s had %d errors; its figures are not valid\n", r.scenario, r.errors)
		}
		if r.maxOther > noisyOther {
			fmt.Fprintf(w, "WARNING: %s: other processes used up to %.2f cores during a run; rerun on a quiet machine\n", r.scenario, r.maxOther)
		}
		if r.maxClient > busyClient {
			fmt.Fprintf(w, "WARNING: %s: the load generator used up to %.2f cores of its 1; the baseline may be under-measured\n", r.scenario, r.maxClient)
		}
		if r.baseRuns != r.hushRuns {
			fmt.Fprintf(w, "WARNING: %s has %d baseline runs but %d hush runs\n", r.scenario, r.baseRuns, r.hushRuns)
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// ms formats microseconds as milliseconds.
func ms(v float64) string { return fmt.Sprintf("%.2f ms", v/1000) }
