package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// `hush-bench compare -a LABEL -b LABEL FILE` reads JSON reports of
// `run -json -label …` (one a line) and prints, per scenario, the medians of
// the runs labelled a and of those labelled b and their ratios b/a: the
// comparisons of `make bench-scale`, one server in two states (fresh and
// seeded with a million pushes, quiet and sweeping, synchronous=NORMAL and
// FULL). Runs with other labels are ignored.

// pair is one scenario's figures for the two labels.
type pair struct {
	scenario         string
	aRPS, bRPS       float64
	aP99, bP99       float64
	aCPU, bCPU       float64
	aRuns, bRuns     int
	bPeakRSS         uint64 // the largest peak RSS of the b runs, KiB
	errors           uint64
	maxOther, maxCPU float64 // most CPU of other processes and of the load generator in a run
}

func (p pair) rpsRatio() float64 { return ratio(p.bRPS, p.aRPS) }
func (p pair) p99Ratio() float64 { return ratio(p.bP99, p.aP99) }

func ratio(b, a float64) float64 {
	if a == 0 {
		return 0
	}
	return b / a
}

func compareCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	a := fs.String("a", "", "label of the runs to compare against")
	b := fs.String("b", "", "label of the runs compared with them")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *a == "" || *b == "" || *a == *b {
		return errors.New("compare: want two different labels, -a and -b")
	}
	f, err := reportsFile(fs)
	if err != nil {
		return err
	}
	defer f.Close()
	pairs, err := comparePairs(f, *a, *b, false)
	if err != nil {
		return err
	}
	writeComparison(stdout, *a, *b, pairs)
	return nil
}

// comparePairs groups the runs labelled a and b by scenario, in the order
// first seen. Runs with other labels are skipped, or an error when strict.
func comparePairs(r io.Reader, a, b string, strict bool) ([]pair, error) {
	g, err := readRuns(r, func(label string) error {
		if strict && label != a && label != b {
			return fmt.Errorf("label %q, want %s or %s", label, a, b)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var pairs []pair
	for _, s := range g.scenarios {
		x, y := g.summary(a, s), g.summary(b, s)
		if x.runs == 0 && y.runs == 0 {
			continue
		}
		pairs = append(pairs, pair{scenario: s, aRPS: x.rps, bRPS: y.rps, aP99: x.p99, bP99: y.p99,
			aCPU: x.cpu, bCPU: y.cpu, aRuns: x.runs, bRuns: y.runs, bPeakRSS: y.peakRSS,
			errors: x.errors + y.errors, maxOther: max(x.maxOther, y.maxOther), maxCPU: max(x.maxClient, y.maxClient)})
	}
	return pairs, nil
}

// runs are JSON reports grouped by label and scenario, each list in the
// order first seen.
type runs struct {
	labels, scenarios []string
	by                map[[2]string][]result // label, scenario
}

// readRuns reads JSON reports, one a line; check may refuse a label.
func readRuns(r io.Reader, check func(label string) error) (*runs, error) {
	g := &runs{by: map[[2]string][]result{}}
	seenLabel, seenScenario := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var res result
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err := check(res.Label); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if !seenLabel[res.Label] {
			seenLabel[res.Label] = true
			g.labels = append(g.labels, res.Label)
		}
		if !seenScenario[res.Scenario] {
			seenScenario[res.Scenario] = true
			g.scenarios = append(g.scenarios, res.Scenario)
		}
		k := [2]string{res.Label, res.Scenario}
		g.by[k] = append(g.by[k], res)
	}
	return g, sc.Err()
}

// summary is what the runs of one label in one scenario give: medians,
// and the worst of what makes a run suspect.
type summary struct {
	rps, p99, cpu float64 // medians
	runs          int
	peakRSS       uint64 // the largest, KiB
	errors        uint64 // all runs'
	maxOther      float64
	maxClient     float64
}

func (g *runs) summary(label, scenario string) summary {
	rs := g.by[[2]string{label, scenario}]
	s := summary{
		runs: len(rs),
		rps:  median(rs, func(x result) float64 { return x.RPS }),
		p99:  median(rs, func(x result) float64 { return float64(x.P99) }),
		cpu:  median(rs, func(x result) float64 { return x.ServerCPUPerReq }),
	}
	for _, x := range rs {
		s.errors += x.Errors
		s.maxOther = max(s.maxOther, x.OtherCPUCores)
		s.maxClient = max(s.maxClient, x.ClientCPUCores)
		s.peakRSS = max(s.peakRSS, x.ServerPeakRSSKiB)
	}
	return s
}

// reportsFile opens the one file of JSON reports a verb takes.
func reportsFile(fs *flag.FlagSet) (*os.File, error) {
	if fs.NArg() != 1 {
		return nil, fmt.Errorf("%s: want one file of JSON reports", fs.Name())
	}
	return os.Open(fs.Arg(0))
}

func writeComparison(w io.Writer, a, b string, pairs []pair) {
	fmt.Fprintf(w, "| scenario | %[1]s req/s (median) | %[2]s req/s (median) | req/s %[2]s/%[1]s | %[1]s p99 | %[2]s p99 | p99 %[2]s/%[1]s | %[1]s CPU µs/req | %[2]s CPU µs/req | runs |\n", a, b)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range pairs {
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.3f | %s | %s | %.2f | %.0f | %.0f | %d + %d |\n",
			p.scenario, p.aRPS, p.bRPS, p.rpsRatio(), ms(p.aP99), ms(p.bP99), p.p99Ratio(), p.aCPU, p.bCPU, p.aRuns, p.bRuns)
	}
	for _, p := range pairs {
		if p.errors > 0 {
			fmt.Fprintf(w, "WARNING: %s had %d errors; its figures are not valid\n", p.scenario, p.errors)
		}
		if p.maxOther > noisyOther {
			fmt.Fprintf(w, "WARNING: %s: other processes used up to %.2f cores during a run; rerun on a quiet machine\n", p.scenario, p.maxOther)
		}
		if p.maxCPU > busyClient {
			fmt.Fprintf(w, "WARNING: %s: the load generator used up to %.2f cores of its 1\n", p.scenario, p.maxCPU)
		}
		if p.aRuns == 0 || p.bRuns == 0 {
			fmt.Fprintf(w, "WARNING: %s has %d %s runs and %d %s runs\n", p.scenario, p.aRuns, a, p.bRuns, b)
		}
	}
}
