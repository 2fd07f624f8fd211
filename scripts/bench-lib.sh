# Shared by scripts/bench.sh and scripts/bench-scale.sh (sourced, not run).
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
