package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	in := `{"label":"fresh","scenario":"retrieve","rps":1000,"p99_us":10000,"server_cpu_us_per_req":200}
{"label":"seeded","scenario":"retrieve","rps":900,"p99_us":12000,"server_cpu_us_per_req":220}
{"label":"fresh","scenario":"retrieve","rps":1200,"p99_us":8000,"server_cpu_us_per_req":180}
{"label":"seeded","scenario":"retrieve","rps":1000,"p99_us":9000,"server_cpu_us_per_req":210}
{"label":"other","scenario":"retrieve","rps":1,"p99_us":1}
{"label":"fresh","scenario":"create","rps":500,"p99_us":4000,"errors":3,"other_cpu_cores":0.5}
`
	pairs, err := comparePairs(strings.NewReader(in), "fresh", "seeded", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[0].scenario != "retrieve" || pairs[1].scenario != "create" {
		t.Fatalf("pairs: %+v", pairs)
	}
	r := pairs[0]
	if r.aRPS != 1100 || r.bRPS != 950 || r.aP99 != 9000 || r.bP99 != 10500 || r.aCPU != 190 || r.bCPU != 215 || r.aRuns != 2 || r.bRuns != 2 {
		t.Errorf("retrieve: %+v", r)
	}
	var out bytes.Buffer
	writeComparison(&out, "fresh", "seeded", pairs)
	for _, want := range []string{
		"| scenario | fresh req/s (median) | seeded req/s (median) | req/s seeded/fresh | fresh p99 | seeded p99 | p99 seeded/fresh |",
		"| retrieve | 1100 | 950 | 0.864 | 9.00 ms | 10.50 ms | 1.17 | 190 | 215 | 2 + 2 |",
		"WARNING: create had 3 errors",
		"WARNING: create: other processes used up to 0.50 cores",
		"WARNING: create has 1 fresh runs and 0 seeded runs",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "WARNING: retrieve") {
		t.Errorf("warnings about a clean scenario:\n%s", out.String())
	}

	file := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(file, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := mainCode(t.Context(), []string{"compare", "-a", "fresh", "-b", "seeded", file}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "| retrieve | 1100 | 950 |") {
		t.Errorf("compare: exit %d, %s%s", code, stdout.String(), stderr.String())
	}
	if code := mainCode(t.Context(), []string{"compare", "-a", "fresh", "-b", "fresh", file}, &stdout, &stderr); code == 0 {
		t.Error("compare with one label succeeded")
	}
	if _, err := comparePairs(strings.NewReader(`{`), "a", "b", false); err == nil {
		t.Error("broken JSON was accepted")
	}
}
