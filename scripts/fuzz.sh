#!/usr/bin/env bash
# Runs every fuzz target (func Fuzz… in a _test.go file) for FUZZTIME each
# (default 1m), one after another, and prints the executions of each.
# `make fuzz` runs it; `make test` and CI run it with FUZZTIME=10s.
# A failing input is written to the package's testdata/fuzz and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-1m}
summary=()
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' internal cmd 2>/dev/null | xargs -n1 dirname | sort -u); do
  for target in $(grep -h --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' -r "$dir" --no-filename | sed 's/^func //' | sort -u); do
    echo "== fuzz ./$dir $target for $FUZZTIME"
    # Go's fuzzing engine can report "context deadline exceeded" when
    # -fuzztime runs out while a worker is still busy with an input (a
    # slow target, a minimisation); it then writes no failing input. Such a
    # run is tried once more; a failing input written, or a second failure,
    # fails the run.
    for attempt in 1 2; do
      if out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "./$dir" 2>&1); then
        break
      fi
      if [ "$attempt" = 1 ] && ! grep -q 'Failing input written' <<<"$out" && grep -q 'context deadline exceeded' <<<"$out"; then
        echo "   (the fuzzing engine's deadline ran out during an input, no failing input: once more)"
        continue
      fi
      echo "$out"
      echo "FAIL: fuzz target $target in ./$dir" >&2
      exit 1
    done
    execs=$(echo "$out" | grep -o 'execs: [0-9]*' | tail -n 1 | cut -d' ' -f2 || true)
    summary+=("$target ${execs:-?}")
  done
done
echo "== fuzz executions per target ($FUZZTIME each)"
printf '%s\n' "${summary[@]}"
