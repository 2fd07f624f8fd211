package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPeersTable(t *testing.T) {
	in := `{"label":"baseline","scenario":"create","rps":40000,"p99_us":1200,"server_cpu_us_per_req":22}
{"label":"yopass-memcached","scenario":"create","rps":18000,"p99_us":4000,"server_cpu_us_per_req":55}
{"label":"yopass-redis","scenario":"create","rps":19000,"p99_us":3900,"server_cpu_us_per_req":53}
{"label":"hush","scenario":"create","rps":28500,"p99_us":4800,"server_cpu_us_per_req":34}
{"label":"hush-pg","scenario":"create","rps":5000,"p99_us":20000,"server_cpu_us_per_req":190}
{"label":"baseline","scenario":"create","rps":42000,"p99_us":1000,"server_cpu_us_per_req":20}
{"label":"yopass-memcached","scenario":"create","rps":18400,"p99_us":4200,"server_cpu_us_per_req":54}
{"label":"yopass-redis","scenario":"create","rps":19000,"p99_us":4100,"server_cpu_us_per_req":52}
{"label":"hush","scenario":"create","rps":28500,"p99_us":5200,"server_cpu_us_per_req":36}
{"label":"hush-pg","scenario":"create","rps":5200,"p99_us":21000,"server_cpu_us_per_req":180,"errors":1}
{"label":"baseline","scenario":"retrieve","rps":45000,"p99_us":1000,"server_cpu_us_per_req":19}
{"label":"yopass-memcached","scenario":"retrieve","rps":14324,"p99_us":3000,"server_cpu_us_per_req":69}
{"label":"yopass-redis","scenario":"retrieve","rps":10896,"p99_us":3500,"server_cpu_us_per_req":92,"other_cpu_cores":0.5}
{"label":"hush","scenario":"retrieve","rps":11524,"p99_us":11700,"server_cpu_us_per_req":77}
`
	file := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(file, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := mainCode(t.Context(), []string{"peers", file}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	for _, want := range []string{
		"| req/s (server CPU µs per request), p99 | create | retrieve |",
		"| baseline | 41,000 (21), 1.10 ms | 45,000 (19), 1.00 ms |",
		"| yopass-memcached | 18,200 (54), 4.10 ms | 14,324 (69), 3.00 ms |",
		"| hush | 28,500 (35), 5.00 ms | 11,524 (77), 11.70 ms |",
		"| hush-pg | 5,100 (185), 20.50 ms | — |",
		"| req/s ÷ the best of yopass-memcached, yopass-redis | create | retrieve |",
		"| baseline | 2.16 | 3.14 |",
		"| hush | 1.50 | 0.80 |",
		"| hush-pg | 0.27 | — |",
		"| (the best) | yopass-redis | yopass-memcached |",
		"target create   hush ÷ yopass-redis 1.50 vs ≥ 1.5: met; p99 5.00 ms vs ≤ 5.00 ms: met; CPU 35 µs/req vs ≤ 35: met",
		"target retrieve hush ÷ yopass-memcached 0.80 vs ≥ 1.5: NOT met; p99 11.70 ms vs ≤ 5.00 ms: NOT met; CPU 77 µs/req vs ≤ 45: NOT met",
		"WARNING: hush-pg create had 1 errors",
		"WARNING: yopass-redis retrieve: other processes used up to 0.50 cores",
		"WARNING: hush retrieve has 1 runs, baseline 1", // not printed: equal counts
	} {
		if strings.HasPrefix(want, "WARNING: hush retrieve") {
			if strings.Contains(s, want) {
				t.Errorf("a warning about equal run counts:\n%s", s)
			}
			continue
		}
		if !strings.Contains(s, want) {
			t.Errorf("peers table lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(s, "WARNING: hush-pg retrieve has 0 runs, baseline 1") {
		t.Errorf("no warning about the missing runs:\n%s", s)
	}
	if strings.Contains(s, "\n| yopass-redis | 0.") || strings.Count(s, "\n| yopass-memcached |") != 1 {
		t.Errorf("peers in the ratio table:\n%s", s)
	}
	if code := mainCode(t.Context(), []string{"peers"}, &out, &errOut); code == 0 {
		t.Error("peers without a file succeeded")
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999.4: "999", 1000: "1,000", 40864: "40,864", 1234567.6: "1,234,568", -1500: "-1,500"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}
