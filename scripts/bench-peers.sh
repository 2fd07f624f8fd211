#!/usr/bin/env bash
# make bench-peers: Hush beside Yopass on this machine, in one run.
#
# Builds hush and hush-bench into a temporary directory and starts, each on
# free 127.0.0.1 ports:
#   baseline          hush-bench baseline (the in-memory limit);
#   yopass-memcached  $YOPASS_BIN --database memcached, with memcached;
#   yopass-redis      $YOPASS_BIN --database redis, with redis-server;
#   hush              Hush on SQLite (a fresh data directory, default settings);
#   hush-pg           one Hush on PostgreSQL;
#   hush-pg2          two Hush instances on one PostgreSQL database, the load
#                     generator taking them in turn;
# every server process (Yopass's memcached and Redis, PostgreSQL and its
# backends included) pinned to CPU 0, the Go servers with GOMAXPROCS=1, and
# the load generator on CPU 1. Per scenario and round it measures each server
# in turn, then prints the medians (hush-bench peers): req/s, server CPU per
# request (all of a server's processes), p99, and each ÷ the best Yopass.
# Last, the 1 GiB file figures (scripts/file-rss.sh). Everything started
# here is stopped by PID on exit. See docs/performance.md.
#
# YOPASS_BIN: the yopass-server binary (docs/performance.md, "Building Yopass",
# says how to build it); without it, leave the yopass servers out of
# PEERS_SERVERS.
# Knobs: PEERS_DURATION (10s), PEERS_ROUNDS (2), PEERS_CONCURRENCY (32),
#        PEERS_PAYLOAD (64), PEERS_WARMUP (500ms),
#        PEERS_SCENARIOS ("create cycle retrieve"),
#        PEERS_SERVERS ("baseline yopass-memcached yopass-redis hush hush-pg hush-pg2"),
#        PEERS_PG_OPTIONS (more -c settings for PostgreSQL, e.g. "-c synchronous_commit=off"),
#        PEERS_FILE_MIB (1024: the file part's size; 0 leaves it out),
#        PEERS_RESULTS (a file to keep the JSON reports in).
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${PEERS_DURATION:-10s}
rounds=${PEERS_ROUNDS:-2}
conns=${PEERS_CONCURRENCY:-32}
payload=${PEERS_PAYLOAD:-64}
warmup=${PEERS_WARMUP:-500ms}
scenarios=${PEERS_SCENARIOS:-create cycle retrieve}
servers=${PEERS_SERVERS:-baseline yopass-memcached yopass-redis hush hush-pg hush-pg2}
pg_options=${PEERS_PG_OPTIONS:-}
file_mib=${PEERS_FILE_MIB:-1024}

# Check what the servers asked for need before building anything.
for s in $servers; do
  case $s in
  yopass-memcached | yopass-redis)
    if [ -z "${YOPASS_BIN:-}" ] || [ ! -x "$YOPASS_BIN" ]; then
      echo "$s: set YOPASS_BIN to a yopass-server binary (docs/performance.md, \"Building Yopass\"), or leave it out of PEERS_SERVERS" >&2
      exit 2
    fi
    store=${s#yopass-}
    [ "$store" = redis ] && store=redis-server
    if ! command -v "$store" >/dev/null; then
      echo "$s: $store not found (apt-get install $store)" >&2
      exit 2
    fi
    ;;
  hush-pg | hush-pg2)
    pg_bin=$(dirname "$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
    if [ ! -x "$pg_bin/initdb" ]; then
      echo "$s: PostgreSQL's server binaries not found in /usr/lib/postgresql/*/bin (apt-get install postgresql)" >&2
      exit 2
    fi
    ;;
  baseline | hush) ;;
  *)
    echo "unknown server $s in PEERS_SERVERS (want baseline, yopass-memcached, yopass-redis, hush, hush-pg, hush-pg2)" >&2
    exit 2
    ;;
  esac
done

# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_init hush-bench-peers
# Start and stop messages of PostgreSQL and Redis are not worth showing.
log_noise="$log_noise|^$| LOG: |terminating connection due to administrator command|Redis is starting|Redis version=|Configuration loaded|Server initialized|SIGTERM|shutdown|ready to exit"

echo "building into $tmp"
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush" ./cmd/hush
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush-bench" ./cmd/hush-bench

# What each server is loaded through: its URLs (comma-separated) and the
# process ids its CPU time is read from (each with its children).
declare -A url pidlist

# start_yopass NAME STORE: Yopass on STORE (memcached or redis), both pinned.
start_yopass() {
  local name=$1 store=$2 db
  port[$name-db]=$(free_port)
  if [ "$store" = memcached ]; then
    local user=()
    [ "$(id -u)" = 0 ] && user=(-u nobody) # memcached refuses to run as root
    "${server_pin[@]}" memcached "${user[@]}" -l 127.0.0.1 -p "${port[$name-db]}" -U 0 >"$tmp/$name-db.log" 2>&1 &
    db=(--memcached "127.0.0.1:${port[$name-db]}")
  else
    mkdir -p "$tmp/$name-db"
    # Redis's defaults otherwise, RDB snapshots included (a forked child,
    # counted with the server's CPU time).
    "${server_pin[@]}" redis-server --bind 127.0.0.1 --port "${port[$name-db]}" --dir "$tmp/$name-db" \
      --logfile "" --loglevel warning >"$tmp/$name-db.log" 2>&1 &
    db=(--redis "redis://127.0.0.1:${port[$name-db]}/0")
  fi
  pid[$name-db]=$!
  pids+=("${pid[$name-db]}")
  wait_ready "${port[$name-db]}" "${pid[$name-db]}" "$store" -
  port[$name]=$(free_port)
  GOMAXPROCS=1 "${server_pin[@]}" "$YOPASS_BIN" --address 127.0.0.1 --port "${port[$name]}" \
    --database "$store" "${db[@]}" --log-level warn >"$tmp/$name.log" 2>&1 &
  pid[$name]=$!
  pids+=("${pid[$name]}")
  wait_ready "${port[$name]}" "${pid[$name]}" "$name" /ready
  url[$name]="http://127.0.0.1:${port[$name]}"
  pidlist[$name]="${pid[$name]},${pid[$name-db]}"
}

# as_postgres: what runs a command as the postgres user when root (initdb
# and the server refuse root); setpriv executes the command in its own
# process, so $! of a server started in the background is the server's.
as_postgres=()
[ "$(id -u)" = 0 ] && as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups)

# start_postgres: a fresh PostgreSQL cluster, its defaults but for loopback,
# a private socket directory and room for 96 connections (and
# PEERS_PG_OPTIONS), pinned to CPU 0; databases hush_one and hush_two.
start_postgres() {
  local dir="$tmp/pg"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then
    chmod 711 "$tmp"
    chown postgres: "$dir"
  fi
  "${as_postgres[@]}" "$pg_bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$tmp/initdb.log" 2>&1 ||
    { cat "$tmp/initdb.log" >&2; return 1; }
  port[postgres]=$(free_port)
  # shellcheck disable=SC2086 # PEERS_PG_OPTIONS is split into its -c settings
  "${as_postgres[@]}" "${server_pin[@]}" "$pg_bin/postgres" -D "$dir/data" -p "${port[postgres]}" -k "$dir" \
    -c listen_addresses=127.0.0.1 -c max_connections=200 $pg_options >"$tmp/postgres.log" 2>&1 &
  pid[postgres]=$!
  pids+=("${pid[postgres]}")
  stop_signal[postgres]=INT # fast shutdown
  for _ in $(seq 1 150); do
    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "${port[postgres]}" -U postgres && break
    kill -0 "${pid[postgres]}" 2>/dev/null || { cat "$tmp/postgres.log" >&2; return 1; }
    sleep 0.1
  done
  for db in hush_one hush_two; do
    "$pg_bin/createdb" -h 127.0.0.1 -p "${port[postgres]}" -U postgres "$db"
  done
  echo "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') pid ${pid[postgres]} on 127.0.0.1:${port[postgres]}"
}

# start_hush_pg NAME DB N: N Hush instances on database DB, one master key.
start_hush_pg() {
  local name=$1 db=$2 n=$3 key urls="" list="" i
  key=$("$tmp/hush" key generate)
  for i in $(seq 1 "$n"); do
    start_hush "$name-$i" "$tmp/$name-$i" HUSH_MASTER_KEY="$key" \
      HUSH_DATABASE_URL="postgres://postgres@127.0.0.1:${port[postgres]}/$db?sslmode=disable"
    urls+="${urls:+,}http://127.0.0.1:${port[$name-$i]}"
    list+="${list:+,}${pid[$name-$i]}"
  done
  url[$name]=$urls
  pidlist[$name]="$list,${pid[postgres]}"
}

for s in $servers; do
  case $s in
  baseline | hush)
    if [ "$s" = baseline ]; then start_baseline; else start_hush hush "$tmp/hush-data"; fi
    url[$s]="http://127.0.0.1:${port[$s]}"
    pidlist[$s]=${pid[$s]}
    ;;
  yopass-memcached) start_yopass "$s" memcached ;;
  yopass-redis) start_yopass "$s" redis ;;
  hush-pg | hush-pg2)
    [ -n "${pid[postgres]:-}" ] || start_postgres
    if [ "$s" = hush-pg ]; then start_hush_pg "$s" hush_one 1; else start_hush_pg "$s" hush_two 2; fi
    ;;
  esac
  echo "$s: ${url[$s]} (pids ${pidlist[$s]})"
done

echo
echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(uname -sr), $(go version | awk '{print $3}')"
echo "servers: ${server_pin[*]:-unpinned} (Go servers with GOMAXPROCS=1); load: ${load_pin[*]:-unpinned}"
bench_quiet
echo "each run: $conns workers, $warmup warm-up, $duration measured, $payload-byte payload; $rounds rounds per scenario"
echo "columns: server CPU per request and cores used (all of its processes); load generator and other processes in cores"
echo

results="$tmp/results.jsonl"
for scenario in $scenarios; do
  for round in $(seq 1 "$rounds"); do
    for s in $servers; do
      dialect=pwpush
      case $s in yopass-*) dialect=yopass ;; esac
      bench_load "$s" "$scenario" "$round" "${url[$s]}" "${pidlist[$s]}" -payload "$payload" -dialect "$dialect"
    done
  done
done

echo
"$tmp/hush-bench" peers "$results"
if [ -n "${PEERS_RESULTS:-}" ]; then
  cp "$results" "$PEERS_RESULTS"
  echo
  echo "JSON reports kept in $PEERS_RESULTS"
fi

# Stop the servers in order (Hush before its PostgreSQL), showing their logs.
echo
for name in "${!pid[@]}"; do
  [ "$name" = postgres ] || stop "$name"
done
[ -z "${pid[postgres]:-}" ] || stop postgres

if [ "$file_mib" -gt 0 ]; then
  echo
  echo "== files: upload and download of $file_mib MiB beside cp"
  scripts/file-rss.sh "$file_mib"
fi
