#!/usr/bin/env bash
# make bench-scale: the scale figures of issue 7 (docs/performance.md).
#
#   retrieve   the retrieve scenario against a fresh Hush and against a Hush
#              whose data directory holds SCALE_N pushes (hush-seed);
#   sweep      the retrieve scenario while the sweeper expires SCALE_N due
#              pushes, and again once it is done (no sweep pending);
#   passphrase the passphrase scenario (Argon2id per retrieve), Hush and the
#              baseline;
#   sync       the create scenario with HUSH_SQLITE_SYNC=normal and =full.
#
# Builds hush, hush-bench and hush-seed into a temporary directory, starts
# every server pinned to CPU 0 with GOMAXPROCS=1 and runs the load generator
# on CPU 1 (when taskset exists and there are two CPUs), alternates the two
# sides of each comparison SCALE_ROUNDS times and prints the medians with
# hush-bench compare. Everything listens on free 127.0.0.1 ports; everything
# started here is stopped by PID on exit.
#
# Knobs: SCALE_N (1000000), SCALE_DURATION (10s), SCALE_ROUNDS (3),
#        SCALE_CONCURRENCY (32), SCALE_WARMUP (500ms),
#        SCALE_PARTS ("retrieve sweep passphrase sync"), SCALE_SYNC (1: run the
#        sync part; 0 leaves it out), SCALE_SWEEP_WAIT (900: seconds to wait
#        for a sweep to end), SCALE_RESULTS (a file to keep the JSON reports in).
set -euo pipefail
cd "$(dirname "$0")/.."

n=${SCALE_N:-1000000}
duration=${SCALE_DURATION:-10s}
rounds=${SCALE_ROUNDS:-3}
conns=${SCALE_CONCURRENCY:-32}
warmup=${SCALE_WARMUP:-500ms}
parts=${SCALE_PARTS:-retrieve sweep passphrase sync}
sweep_wait=${SCALE_SWEEP_WAIT:-900}
if [ "${SCALE_SYNC:-1}" = 0 ]; then
  parts=${parts//sync/}
fi

# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_init hush-bench-scale

echo "building into $tmp"
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush" ./cmd/hush
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush-bench" ./cmd/hush-bench
CGO_ENABLED=0 go build -trimpath -o "$tmp/hush-seed" ./cmd/hush-seed

# http_get PORT PATH: the body of a GET over HTTP/1.0 (no curl needed).
http_get() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3 &&
    sed '1,/^\r$/d' <&3) 2>/dev/null || true
}

# seed DIR ARGS…: fills a data directory with hush-seed.
seed() {
  local dir=$1
  shift
  if ! "$tmp/hush-seed" -data-dir "$dir" "$@" >"$tmp/seed.out" 2>"$tmp/seed.log"; then
    cat "$tmp/seed.out" "$tmp/seed.log" >&2
    return 1
  fi
  sed 's/^/  /' "$tmp/seed.out"
}

results="$tmp/results.jsonl"

# load LABEL SERVER SCENARIO ROUND: one measured run; its JSON report goes
# to $results and stays in $line.
load() {
  bench_load "$1" "$3" "$4" "http://127.0.0.1:${port[$2]}" "${pid[$2]}"
}

summary="$tmp/summary.txt"
# compare TITLE A B: the medians of the runs labelled A and B, B/A.
compare() {
  {
    echo
    echo "$1"
    echo
    "$tmp/hush-bench" compare -a "$2" -b "$3" "$results"
  } | tee -a "$summary"
}

# expired_total PORT: the sweeper's expired-pushes counter on a metrics port
# (it grows when a whole sweep has ended).
expired_total() {
  http_get "$1" /metrics | awk '/^hush_sweeper_items_total\{action="expired"\}/ {printf "%d", $2; found=1} END {if (!found) print 0}'
}

bench_quiet
echo "servers: ${server_pin[*]:-unpinned} GOMAXPROCS=1; load: ${load_pin[*]:-unpinned}"
echo "each run: $conns workers, $warmup warm-up, $duration measured; $rounds rounds; SCALE_N=$n; parts: $parts"

for part in $parts; do
  case $part in
  retrieve)
    echo
    echo "== (a) retrieve: a fresh Hush vs. one holding $n pushes"
    seed "$tmp/seeded" -n "$n"
    du -sh "$tmp/seeded" | awk '{print "  data directory: " $1}'
    start_hush fresh "$tmp/fresh"
    start_hush seeded "$tmp/seeded"
    for round in $(seq 1 "$rounds"); do
      load fresh fresh retrieve "$round"
      load seeded seeded retrieve "$round"
    done
    stop fresh
    stop seeded
    rm -rf "$tmp/seeded"
    compare "(a) retrieve with $n stored pushes (seeded) vs. a fresh database (fresh); target: req/s seeded/fresh >= 0.9" fresh seeded
    ;;
  sweep)
    echo
    echo "== (b) retrieve while the sweeper expires $n due pushes, then with no sweep pending"
    seed "$tmp/due-template" -n "$n" -due
    for round in $(seq 1 "$rounds"); do
      rm -rf "$tmp/due"
      cp -a "$tmp/due-template" "$tmp/due"
      mport=$(free_port)
      # The first sweep starts with the server; HUSH_SWEEP_INTERVAL only
      # spaces the (empty) sweeps after it.
      start_hush sweep "$tmp/due" HUSH_SWEEP_INTERVAL=1s HUSH_METRICS_ADDR="127.0.0.1:$mport"
      ended="$tmp/sweep-ended"
      rm -f "$ended"
      # Note when the sweep ends (its counter moves), polling twice a second.
      (
        deadline=$(($(date +%s) + sweep_wait))
        while [ "$(date +%s)" -lt "$deadline" ] && kill -0 "${pid[sweep]}" 2>/dev/null; do
          if [ "$(expired_total "$mport")" -ge "$n" ]; then
            now_ms >"$ended"
            exit 0
          fi
          sleep 0.5
        done
      ) &
      poller=$!
      pids+=("$poller")
      load sweeping sweep retrieve "$round"
      wstart=$(field window_start_unix_ms) wend=$(field window_end_unix_ms)
      wait "$poller" || true
      if [ ! -s "$ended" ]; then
        echo "WARNING: the sweep did not end within ${sweep_wait}s; stopping this round" >&2
        stop sweep
        continue
      fi
      end=$(cat "$ended")
      overlap=$(awk "BEGIN{o=($end-$wstart)/($wend-$wstart); if (o<0) o=0; if (o>1) o=1; printf \"%.0f\", 100*o}")
      echo "           the sweep of $n pushes took $(awk "BEGIN{printf \"%.1f\", ($end-${started[sweep]})/1000}") s after start (±0.5 s); it covered $overlap % of the measured window"
      if [ "$overlap" -lt 100 ]; then
        echo "WARNING: the sweep ended before the measured window did: this run is only partly under a sweep (raise SCALE_N or shorten SCALE_DURATION)" >&2
      fi
      load swept sweep retrieve "$round"
      stop sweep
    done
    rm -rf "$tmp/due" "$tmp/due-template"
    compare "(b) retrieve during the sweep of $n due pushes (sweeping) vs. after it (swept); target: p99 sweeping/swept <= 2" swept sweeping
    ;;
  passphrase)
    echo
    echo "== (c) passphrase retrievals (Argon2id t=2, 19 MiB per derivation)"
    start_baseline
    start_hush passphrase "$tmp/passphrase"
    for round in $(seq 1 "$rounds"); do
      load baseline baseline passphrase "$round"
      load hush passphrase passphrase "$round"
    done
    stop baseline
    stop passphrase
    compare "(c) passphrase retrievals: Hush (hush) vs. the baseline, which compares the passphrase as a string (baseline)" baseline hush
    ;;
  sync)
    echo
    echo "== (d) create with HUSH_SQLITE_SYNC=normal vs. full"
    start_hush normal "$tmp/sync-normal" HUSH_SQLITE_SYNC=normal
    start_hush full "$tmp/sync-full" HUSH_SQLITE_SYNC=full
    for round in $(seq 1 "$rounds"); do
      load normal normal create "$round"
      load full full create "$round"
    done
    stop normal
    stop full
    compare "(d) create with synchronous=FULL (full) vs. NORMAL (normal), both in WAL mode" normal full
    ;;
  *)
    echo "unknown part $part in SCALE_PARTS (want retrieve, sweep, passphrase, sync)" >&2
    exit 2
    ;;
  esac
done

echo
echo "===== summary"
cat "$summary"
if [ -n "${SCALE_RESULTS:-}" ]; then
  cp "$results" "$SCALE_RESULTS"
  echo
  echo "JSON reports kept in $SCALE_RESULTS"
fi
