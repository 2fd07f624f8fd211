#!/usr/bin/env bash
# make bench: Hush against the hush-bench baseline on this machine.
#
# Builds hush and hush-bench into a temporary directory, starts the baseline
# and Hush (fresh data directory, default settings) pinned to CPU 0 with
# GOMAXPROCS=1, runs the load generator on CPU 1, alternates baseline/Hush
# runs BENCH_ROUNDS times per scenario and prints the medians.
# Everything listens on 127.0.0.1; everything started here is stopped by PID
# on exit. See docs/performance.md.
#
# Knobs: BENCH_DURATION (10s), BENCH_CONCURRENCY (32), BENCH_PAYLOAD (64),
#        BENCH_ROUNDS (3), BENCH_WARMUP (500ms), BENCH_SCENARIOS ("create cycle retrieve").
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-10s}
conns=${BENCH_CONCURRENCY:-32}
payload=${BENCH_PAYLOAD:-64}
rounds=${BENCH_ROUNDS:-3}
warmup=${BENCH_WARMUP:-500ms}
scenarios=${BENCH_SCENARIOS:-create cycle retrieve}

# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_init hush-bench

echo "building into $tmp"
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush" ./cmd/hush
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush-bench" ./cmd/hush-bench

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

start_baseline
mkdir -m 700 "$tmp/data"
start_hush hush "$tmp/data"
idle_rss=$(rss_kib "${pid[hush]}")

echo "baseline pid ${pid[baseline]} on 127.0.0.1:${port[baseline]}; hush pid ${pid[hush]} on 127.0.0.1:${port[hush]}"
echo "servers: ${server_pin[*]:-unpinned} GOMAXPROCS=1; load: ${load_pin[*]:-unpinned}"
bench_quiet
echo "columns: server CPU per request and cores used; load generator and other processes in cores"
echo "each run: $conns workers, ${warmup} warm-up, $duration measured, $payload-byte payload; $rounds rounds per scenario"
echo

results="$tmp/results.jsonl"
for scenario in $scenarios; do
  for round in $(seq 1 "$rounds"); do
    for side in baseline hush; do
      bench_load "$side" "$scenario" "$round" "http://127.0.0.1:${port[$side]}" "${pid[$side]}" -payload "$payload"
    done
  done
done

echo
echo "Hush idle RSS before the load: $(awk "BEGIN{printf \"%.1f\", $idle_rss/1024}") MiB"
echo
"$tmp/hush-bench" table "$results"
if [ -s "$tmp/hush.log" ]; then
  echo
  echo "hush log (warnings and errors):"
  sed 's/^/  /' "$tmp/hush.log" | tail -n 20
fi
