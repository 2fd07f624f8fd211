# shellcheck shell=bash
# Shared by scripts/bench.sh, bench-scale.sh, bench-peers.sh and file-rss.sh
# (sourced, not run).
#
# bench_init PREFIX: a temporary directory in $tmp, the list $pids of
# processes to stop (by PID, on any exit, then the directory goes), and the
# CPU pinning: $server_pin (CPU 0) and $load_pin (CPU 1) when taskset exists
# and there are two CPUs, else empty with a notice.
bench_init() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  pids=()
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  server_pin=() load_pin=()
  if ! command -v taskset >/dev/null 2>&1; then
    echo "NOTICE: taskset not found: running unpinned; figures are less comparable" >&2
  elif [ "$(nproc)" -lt 2 ]; then
    echo "NOTICE: fewer than 2 CPUs: running unpinned; figures are less comparable" >&2
  else
    server_pin=(taskset -c 0) load_pin=(taskset -c 1)
  fi
}

bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}

# free_port prints a loopback TCP port nobody listens on, below the
# kernel's range of ephemeral ports (which outgoing connections hold).
free_port() {
  local port low
  low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  [ "$low" -gt 11000 ] || low=32768
  for _ in $(seq 1 100); do
    port=$((10000 + RANDOM % (low - 10000)))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

# wait_ready PORT PID NAME [PATH]: polls GET PATH (/api/v2/version) until it
# answers 200; with PATH "-", until the port accepts a connection.
wait_ready() {
  local port=$1 pid=$2 name=$3 path=${4:-/api/v2/version} status
  for _ in $(seq 1 150); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name (pid $pid) exited before listening" >&2
      return 1
    fi
    if [ "$path" = - ]; then
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    else
      status=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" &&
        printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3 &&
        head -n 1 <&3) 2>/dev/null || true)
      case $status in *" 200 "*) return 0 ;; esac
    fi
    sleep 0.1
  done
  echo "$name did not answer on 127.0.0.1:$port within 15s" >&2
  return 1
}

# machine_busy: CPU time (ticks) the whole machine spent busy so far.
machine_busy() { awk '/^cpu / {print $2+$3+$4+$7+$8+$9; exit}' /proc/stat; }

# bench_quiet: prints how busy the machine is over a second (servers idle),
# with a warning when other processes use the CPUs.
bench_quiet() {
  local busy0 busy1 quiet
  busy0=$(machine_busy)
  sleep 1
  busy1=$(machine_busy)
  quiet=$(awk "BEGIN{printf \"%.2f\", ($busy1-$busy0)/$(getconf CLK_TCK 2>/dev/null || echo 100)}")
  echo "machine busy before the load (servers idle): $quiet cores over 1s; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  if awk "BEGIN{exit !($quiet > 0.2)}"; then
    echo "WARNING: other processes are using the CPUs; the figures will be noisy" >&2
  fi
}

# bench_load LABEL SCENARIO ROUND URL PIDS [hush-bench run flags…]: one
# measured run of $tmp/hush-bench on the load generator's CPU, $conns
# workers for $duration after $warmup; its JSON report is appended to
# $results and stays in $line, and a line of it is printed (RSS: the peak,
# summed over the server's processes; PSS: at the end, shared pages once).
line=""
field() { grep -o "\"$1\":[0-9.e+-]*" <<<"$line" | head -n 1 | cut -d: -f2; }
# shellcheck disable=SC2154 # conns, duration, warmup and results are the caller's
bench_load() {
  local label=$1 scenario=$2 round=$3 url=$4 pid=$5
  shift 5
  line=$("${load_pin[@]}" "$tmp/hush-bench" run -url "$url" -scenario "$scenario" \
    -c "$conns" -d "$duration" -warmup "$warmup" -pid "$pid" -label "$label" -json "$@")
  echo "$line" >>"$results"
  printf '%-10s round %d %-16s %7.0f req/s  p99 %8.2f ms  server %8.1f µs/req %4.2f cores  RSS %6.1f MiB  PSS %6.1f MiB  load %4.2f  other %4.2f  errors %s\n' \
    "$scenario" "$round" "$label" "$(field rps)" "$(awk "BEGIN{print $(field p99_us)/1000}")" \
    "$(field server_cpu_us_per_req)" "$(field server_cpu_cores)" "$(awk "BEGIN{print $(field server_peak_rss_kib)/1024}")" \
    "$(awk "BEGIN{print 0$(field server_pss_kib)/1024}")" "$(field client_cpu_cores)" "$(field other_cpu_cores)" "$(field errors)"
}

now_ms() { date +%s%3N; }

# The servers started by start_hush and start_baseline, by name: port,
# process id, and when it was started (ms).
declare -A port pid started

# start_hush NAME DATA_DIR [VAR=VALUE …]: starts Hush on a free port with the
# bench settings (no request throttling, warnings only) plus the variables.
start_hush() {
  local name=$1 dir=$2
  shift 2
  port[$name]=$(free_port)
  # shellcheck disable=SC2034 # read by bench-scale.sh
  started[$name]=$(now_ms)
  env HUSH_ADDR="127.0.0.1:${port[$name]}" HUSH_DATA_DIR="$dir" HUSH_LOG_LEVEL=warn \
    PWP__THROTTLING__MINUTE=0 PWP__THROTTLING__SECOND=0 GOMAXPROCS=1 "$@" \
    "${server_pin[@]}" "$tmp/hush" serve >"$tmp/$name.log" 2>&1 &
  pid[$name]=$!
  pids+=("${pid[$name]}")
  wait_ready "${port[$name]}" "${pid[$name]}" "$name"
}

start_baseline() {
  port[baseline]=$(free_port)
  GOMAXPROCS=1 "${server_pin[@]}" "$tmp/hush-bench" baseline -addr "127.0.0.1:${port[baseline]}" >"$tmp/baseline.log" 2>&1 &
  pid[baseline]=$!
  pids+=("${pid[baseline]}")
  wait_ready "${port[baseline]}" "${pid[baseline]}" baseline
}

# stop NAME: stops a server started here (SIGTERM, or the signal in
# stop_signal[NAME]) and shows its log, if it holds more than $log_noise.
declare -A stop_signal
log_noise="generated a master key|baseline listening on"
stop() {
  kill "-${stop_signal[$1]:-TERM}" "${pid[$1]}" 2>/dev/null || true
  wait "${pid[$1]}" 2>/dev/null || true
  if [ -s "$tmp/$1.log" ] && grep -Eqv "$log_noise" "$tmp/$1.log"; then
    echo "$1 log (warnings and errors):"
    grep -Ev "$log_noise" "$tmp/$1.log" | sed 's/^/  /' | tail -n 20
  fi
}
