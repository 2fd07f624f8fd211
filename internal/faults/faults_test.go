package faults

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"hush/internal/blob/s3test"
	"hush/internal/testdb"
)

var (
	long   = flag.Bool("faults.long", false, "run the scenarios at the scale of the original fault run (make faults)")
	only   = flag.String("faults.run", "", "run only the scenarios whose name matches this regular expression")
	report = flag.String("faults.report", "", "write the table of outcomes (Markdown) to this file")
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestFaults runs every fault scenario against a hush built with the
// faultclock tag: the short versions in make test, the long ones with
// -faults.long (make faults).
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("fault scenarios skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "hush")
	if out, err := exec.Command("go", "build", "-tags", "faultclock", "-o", bin, "hush/cmd/hush").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	filter := regexp.MustCompile(*only)
	var outs []Outcome
	for _, s := range Scenarios {
		if !filter.MatchString(s.Name) {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			opt := Options{Binary: bin, Long: *long, Dir: t.TempDir, Logf: t.Logf,
				Postgres: func() string { return testdb.PostgresURL(t) },
				S3: func() (string, string, string, string) {
					srv := s3test.Start(t)
					return srv.Endpoint, s3test.AccessKey, s3test.SecretKey, srv.Bucket(t)
				},
			}
			if s.Name == "disk-full" {
				_, err := canUnshare()
				testdb.Require(t, err == nil, "a filesystem to fill: unshare with a mount namespace ("+errString(err)+")")
			}
			o := Run(context.Background(), opt, s)
			t.Logf("%s: %s", o.Fault, o.Result)
			for _, v := range o.Violations {
				t.Error(v)
			}
			outs = append(outs, o)
		})
	}
	if *report != "" {
		if err := os.WriteFile(*report, []byte(Table(outs)), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
