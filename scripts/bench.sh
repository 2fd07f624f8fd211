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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hush-bench.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Pinning: servers on CPU 0, load on CPU 1, when taskset exists and there
# are two CPUs to pin to.
server_pin=() load_pin=()
if ! command -v taskset >/dev/null 2>&1; then
  echo "NOTICE: taskset not found: running unpinned; figures are less comparable" >&2
elif [ "$(nproc)" -lt 2 ]; then
  echo "NOTICE: fewer than 2 CPUs: running unpinned; figures are less comparable" >&2
else
  server_pin=(taskset -c 0) load_pin=(taskset -c 1)
fi

echo "building into $tmp"
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush" ./cmd/hush
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush-bench" ./cmd/hush-bench

# free_port prints a loopback TCP port nobody listens on.
free_port() {
  local port
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

# wait_ready PORT PID NAME: polls GET /api/v2/version until it answers 200.
wait_ready() {
  local port=$1 pid=$2 name=$3 status
  for _ in $(seq 1 150); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name (pid $pid) exited before listening" >&2
      return 1
    fi
    status=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" &&
      printf 'GET /api/v2/version HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
      head -n 1 <&3) 2>/dev/null || true)
    case $status in *" 200 "*) return 0 ;; esac
    sleep 0.1
  done
  echo "$name did not answer on 127.0.0.1:$port within 15s" >&2
  return 1
}

# machine_busy: CPU time (ticks) the whole machine spent busy so far.
machine_busy() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }

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
