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

base_port=$(free_port)
GOMAXPROCS=1 "${server_pin[@]}" "$tmp/hush-bench" baseline -addr "127.0.0.1:$base_port" >"$tmp/baseline.log" 2>&1 &
base_pid=$!
pids+=("$base_pid")
wait_ready "$base_port" "$base_pid" baseline

hush_port=$(free_port)
mkdir -m 700 "$tmp/data"
HUSH_ADDR="127.0.0.1:$hush_port" HUSH_DATA_DIR="$tmp/data" HUSH_LOG_LEVEL=warn PWP__THROTTLING__MINUTE=0 PWP__THROTTLING__SECOND=0 GOMAXPROCS=1 \
  "${server_pin[@]}" "$tmp/hush" serve >"$tmp/hush.log" 2>&1 &
hush_pid=$!
pids+=("$hush_pid")
wait_ready "$hush_port" "$hush_pid" hush
busy0=$(machine_busy)
sleep 1
busy1=$(machine_busy)
idle_rss=$(rss_kib "$hush_pid")

echo "baseline pid $base_pid on 127.0.0.1:$base_port; hush pid $hush_pid on 127.0.0.1:$hush_port"
echo "servers: ${server_pin[*]:-unpinned} GOMAXPROCS=1; load: ${load_pin[*]:-unpinned}"
quiet=$(awk "BEGIN{printf \"%.2f\", ($busy1-$busy0)/$(getconf CLK_TCK 2>/dev/null || echo 100)}")
echo "machine busy before the load (idle servers): $quiet cores over 1s"
if awk "BEGIN{exit !($quiet > 0.2)}"; then
  echo "WARNING: other processes are using the CPUs; the figures will be noisy" >&2
fi
echo "columns: server CPU per request and cores used; load generator and other processes in cores"
echo "each run: $conns workers, ${warmup} warm-up, $duration measured, $payload-byte payload; $rounds rounds per scenario"
echo

results="$tmp/results.jsonl"
for scenario in $scenarios; do
  for round in $(seq 1 "$rounds"); do
    for side in baseline hush; do
      if [ "$side" = baseline ]; then port=$base_port pid=$base_pid; else port=$hush_port pid=$hush_pid; fi
      line=$("${load_pin[@]}" "$tmp/hush-bench" run -url "http://127.0.0.1:$port" -scenario "$scenario" \
        -c "$conns" -d "$duration" -warmup "$warmup" -payload "$payload" -pid "$pid" -label "$side" -json)
      echo "$line" >>"$results"
      field() { grep -o "\"$1\":[0-9.e+-]*" <<<"$line" | head -n 1 | cut -d: -f2; }
      printf '%-8s round %d %-8s %7.0f req/s  p99 %6.2f ms  server %6.1f µs/req %4.2f cores  load %4.2f  other %4.2f  errors %s\n' \
        "$scenario" "$round" "$side" "$(field rps)" "$(awk "BEGIN{print $(field p99_us)/1000}")" \
        "$(field server_cpu_us_per_req)" "$(field server_cpu_cores)" "$(field client_cpu_cores)" \
        "$(field other_cpu_cores)" "$(field errors)"
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
