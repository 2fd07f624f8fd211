package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// `hush-bench peers FILE` reads the JSON reports of a run of
// `make bench-peers` (any labels: baseline, hush, hush-pg, yopass-memcached,
// …) and prints, per server and scenario, the median req/s, server CPU per
// request and p99; then every other server's req/s divided by the best of
// the peers (-peers, the Yopass stores) in each scenario, and the verdicts on
// the targets docs/performance.md states for the server named by -hush.

// The targets of the comparison with Yopass (docs/performance.md): Hush ÷
// the best peer per scenario, Hush's p99 at 32 workers, and Hush's server
// CPU per request.
var (
	peerTargetRatio = 1.5
	peerTargetP99   = 5000.0 // µs
	peerTargetCPU   = map[string]float64{"create": 35, "cycle": 40, "retrieve": 45}
)

func peersCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hush := fs.String("hush", "hush", "label of the server the targets are for")
	peerList := fs.String("peers", "yopass-memcached,yopass-redis", "labels of the servers compared with, comma-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := reportsFile(fs)
	if err != nil {
		return err
	}
	defer f.Close()
	g, err := readRuns(f, func(string) error { return nil })
	if err != nil {
		return err
	}
	writePeers(stdout, g, *hush, strings.Split(*peerList, ","))
	return nil
}

// best returns, per scenario, the largest median req/s among the peers
// that ran it and that peer's label.
func (g *runs) best(peers []string) map[string]summaryOf {
	best := map[string]summaryOf{}
	for _, s := range g.scenarios {
		for _, p := range peers {
			x := g.summary(p, s)
			if x.runs > 0 && x.rps > best[s].rps {
				best[s] = summaryOf{label: p, summary: x}
			}
		}
	}
	return best
}

type summaryOf struct {
	label string
	summary
}

func writePeers(w io.Writer, g *runs, hush string, peers []string) {
	r := peerReport{w: w, g: g, best: g.best(peers)}
	r.figures()
	if len(r.best) > 0 {
		r.ratios(peers)
	}
	r.targets(hush)
	r.warnings()
}

// peerReport writes the parts of writePeers' report.
type peerReport struct {
	w    io.Writer
	g    *runs
	best map[string]summaryOf // the best peer of each scenario
}

// head writes a table's header: first, then one column per scenario.
func (r peerReport) head(first string) {
	fmt.Fprintf(r.w, "| %s |", first)
	for _, s := range r.g.scenarios {
		fmt.Fprintf(r.w, " %s |", s)
	}
	fmt.Fprint(r.w, "\n|---|")
	for range r.g.scenarios {
		fmt.Fprint(r.w, "---:|")
	}
	fmt.Fprintln(r.w)
}

// figures is the table of every server's throughput, CPU and p99.
func (r peerReport) figures() {
	r.head("req/s (server CPU µs per request), p99")
	for _, l := range r.g.labels {
		fmt.Fprintf(r.w, "| %s |", l)
		for _, s := range r.g.scenarios {
			x := r.g.summary(l, s)
			if x.runs == 0 {
				fmt.Fprint(r.w, " — |")
				continue
			}
			fmt.Fprintf(r.w, " %s (%.0f), %s |", thousands(x.rps), x.cpu, ms(x.p99))
		}
		fmt.Fprintln(r.w)
	}
}

// ratios is the table of each server's throughput over the best peer's.
func (r peerReport) ratios(peers []string) {
	fmt.Fprintln(r.w)
	r.head("req/s ÷ the best of " + strings.Join(peers, ", "))
	for _, l := range r.g.labels {
		if slices.Contains(peers, l) {
			continue
		}
		fmt.Fprintf(r.w, "| %s |", l)
		for _, s := range r.g.scenarios {
			x, b := r.g.summary(l, s), r.best[s]
			if x.runs == 0 || b.runs == 0 {
				fmt.Fprint(r.w, " — |")
				continue
			}
			fmt.Fprintf(r.w, " %.2f |", x.rps/b.rps)
		}
		fmt.Fprintln(r.w)
	}
	fmt.Fprint(r.w, "| (the best) |")
	for _, s := range r.g.scenarios {
		if b, ok := r.best[s]; ok {
			fmt.Fprintf(r.w, " %s |", b.label)
		} else {
			fmt.Fprint(r.w, " — |")
		}
	}
	fmt.Fprintln(r.w)
}

// targets says, per scenario, whether hush meets each target.
func (r peerReport) targets(hush string) {
	fmt.Fprintln(r.w)
	for _, s := range r.g.scenarios {
		x, b := r.g.summary(hush, s), r.best[s]
		if x.runs == 0 {
			continue
		}
		line := fmt.Sprintf("target %-8s", s)
		if b.runs > 0 {
			ratio := x.rps / b.rps
			line += fmt.Sprintf(" %s ÷ %s %.2f vs ≥ %.1f: %s;", hush, b.label, ratio, peerTargetRatio, verdict(ratio >= peerTargetRatio))
		}
		line += fmt.Sprintf(" p99 %s vs ≤ %s: %s", ms(x.p99), ms(peerTargetP99), verdict(x.p99 <= peerTargetP99))
		if want, ok := peerTargetCPU[s]; ok {
			line += fmt.Sprintf("; CPU %.0f µs/req vs ≤ %.0f: %s", x.cpu, want, verdict(x.cpu <= want))
		}
		fmt.Fprintln(r.w, line)
	}
}

// warnings names the figures that are not to be trusted.
func (r peerReport) warnings() {
	for _, l := range r.g.labels {
		for _, s := range r.g.scenarios {
			x, first := r.g.summary(l, s), r.g.summary(r.g.labels[0], s)
			if x.errors > 0 {
				fmt.Fprintf(r.w, "WARNING: %s %s had %d errors; its figures are not valid\n", l, s, x.errors)
			}
			if x.maxOther > noisyOther {
				fmt.Fprintf(r.w, "WARNING: %s %s: other processes used up to %.2f cores during a run; rerun on a quiet machine\n", l, s, x.maxOther)
			}
			if x.maxClient > busyClient {
				fmt.Fprintf(r.w, "WARNING: %s %s: the load generator used up to %.2f cores of its 1; the server may be under-measured\n", l, s, x.maxClient)
			}
			if x.runs != first.runs {
				fmt.Fprintf(r.w, "WARNING: %s %s has %d runs, %s %d\n", l, s, x.runs, r.g.labels[0], first.runs)
			}
		}
	}
}

// thousands formats v rounded, with commas between groups of three digits.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
