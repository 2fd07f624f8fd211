package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummarizeMedians(t *testing.T) {
	in := `{"label":"baseline","scenario":"create","rps":1000,"p99_us":900,"server_cpu_us_per_req":30}
{"label":"hush","scenario":"create","rps":400,"p99_us":12000,"server_cpu_us_per_req":250,"server_peak_rss_kib":20480}
{"label":"baseline","scenario":"create","rps":1200,"p99_us":1100,"server_cpu_us_per_req":20}
{"label":"hush","scenario":"create","rps":600,"p99_us":8000,"server_cpu_us_per_req":230,"server_peak_rss_kib":30720}
{"label":"baseline","scenario":"create","rps":800,"p99_us":1000,"server_cpu_us_per_req":40}
{"label":"hush","scenario":"create","rps":500,"p99_us":9000,"server_cpu_us_per_req":240,"server_peak_rss_kib":25600}

{"label":"baseline","scenario":"cycle","rps":100,"p99_us":1000,"errors":2}
{"label":"hush","scenario":"cycle","rps":50,"p99_us":3000}
{"label":"hush","scenario":"cycle","rps":70,"p99_us":5000,"other_cpu_cores":0.4,"client_cpu_cores":0.95}
`
	rows, err := summarize(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].scenario != "create" || rows[1].scenario != "cycle" {
		t.Fatalf("rows: %+v", rows)
	}
	c := rows[0]
	if c.baseRPS != 1000 || c.hushRPS != 500 || c.ratio() != 0.5 || c.hushP99 != 9000 || c.baseP99 != 1000 ||
		c.hushCPU != 240 || c.baseCPU != 30 || c.hushPeakRSS != 30720 {
		t.Errorf("create: %+v", c)
	}
	if rows[1].hushRPS != 60 || rows[1].hushP99 != 4000 {
		t.Errorf("cycle medians of two: %+v", rows[1])
	}
	var out bytes.Buffer
	writeTable(&out, rows)
	for _, want := range []string{
		"| create | 1000 | 500 | 0.500 | 9.00 ms | 1.00 ms | 240 | 30 | 30.0 MiB |",
		"target create   ratio 0.500 vs ≥ 0.50: met (100% of the target); p99 9.00 ms vs ≤ 10ms: met",
		"target cycle    ratio 0.600 vs ≥ 0.30: met",
		"WARNING: cycle had 2 errors",
		"WARNING: cycle has 1 baseline runs but 2 hush runs",
		"WARNING: cycle: other processes used up to 0.40 cores",
		"WARNING: cycle: the load generator used up to 0.95 cores",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "WARNING: create") {
		t.Errorf("warnings about a clean scenario:\n%s", out.String())
	}
	if _, err := summarize(strings.NewReader(`{"label":"other","scenario":"create"}`)); err == nil {
		t.Error("an unknown label was accepted")
	}
	if _, err := summarize(strings.NewReader(`{`)); err == nil {
		t.Error("broken JSON was accepted")
	}
}
