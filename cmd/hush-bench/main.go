// Command hush-bench measures Hush against a minimal reference server, and
// against Yopass, on the same machine.
//
//	hush-bench baseline -addr 127.0.0.1:PORT
//	hush-bench run -url http://127.0.0.1:PORT -scenario create|cycle|retrieve|passphrase [flags]
//	hush-bench table FILE
//	hush-bench compare -a LABEL -b LABEL FILE
//	hush-bench peers [-hush LABEL] [-peers LABEL,…] FILE
//
// See docs/performance.md for the method, `make bench` for the comparison
// with the baseline and `make bench-peers` for the one with Yopass.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(mainCode(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  hush-bench baseline -addr 127.0.0.1:PORT
  hush-bench run -url http://127.0.0.1:PORT[,http://127.0.0.1:PORT2…] -scenario create|cycle|retrieve|passphrase
                 [-dialect pwpush|yopass] [-c 32] [-d 10s] [-payload 64] [-pid N[,N2…]] [-rate R]
                 [-warmup 1s] [-label NAME] [-json]
  hush-bench table FILE   (FILE: JSON reports of runs labelled baseline and hush)
  hush-bench compare -a LABEL -b LABEL FILE   (medians of the runs of two labels, b/a)
  hush-bench peers [-hush hush] [-peers yopass-memcached,yopass-redis] FILE
                 (medians of every label's runs, each ÷ the best peer, and the targets)
`

func mainCode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "baseline":
		err = baselineCmd(ctx, args[1:], stdout, stderr)
	case "run":
		err = runCmd(ctx, args[1:], stdout, stderr)
	case "table":
		err = tableCmd(args[1:], stdout, stderr)
	case "compare":
		err = compareCmd(args[1:], stdout, stderr)
	case "peers":
		err = peersCmd(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "hush-bench: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "hush-bench: %v\n", err)
		return 1
	}
	return 0
}
