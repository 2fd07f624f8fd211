#!/usr/bin/env bash
# Measures a large file's way through Hush beside cp: the time to upload it
# (multipart POST until the answer: sealed, written and fsynced), to download
# it, and to cp it and sync on the same file system; and the server's memory
# meanwhile (uploads and downloads stream, so RSS must stay flat). Target
# (docs/performance.md): upload ≤ 1.5 × (cp + sync).
# Usage: scripts/file-rss.sh [size-in-MiB]   (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-1024}

# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_init hush-file-rss
server_pin=() # the whole machine, as an installation would have it

CGO_ENABLED=0 go build -trimpath -o "$tmp/hush" ./cmd/hush
head -c $((size_mib << 20)) /dev/urandom >"$tmp/big.bin"
sync # the file cp copies is in the page cache and on disk, as the one curl uploads
limit=$(((size_mib + 1) << 20))
start_hush hush "$tmp/data" GOMAXPROCS= HUSH_MAX_FILE_SIZE="$limit" HUSH_MAX_PUSH_SIZE="$limit"
printf "long-enough\n" | "$tmp/hush" user create --email rss@example.com --password - -data-dir "$tmp/data" >/dev/null
token=$("$tmp/hush" token create --email rss@example.com -data-dir "$tmp/data" | tail -n 1)
base="http://127.0.0.1:${port[hush]}"
rss() { awk '/VmRSS|VmHWM/ {printf "%s %d MiB  ", $1, $2/1024}' "/proc/${pid[hush]}/status"; }
now() { date +%s.%N; }
secs() { awk "BEGIN{printf \"%.2f\", $2 - $1}"; }

# The disk's speed changes from minute to minute on a shared host, and a
# write slows the next one while the host still flushes it: cp + sync of
# 1 GiB took 0.75 s on a rested disk and 3 s right after an upload. So cp +
# sync and the upload take turns going first, $rounds rounds, and the
# medians are compared.
rounds=${FILE_RSS_ROUNDS:-4}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{printf "%.2f", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
copy_and_sync() {
  local start
  start=$(now)
  cp "$tmp/big.bin" "$tmp/copy.bin"
  sync
  cp_s=$(secs "$start" "$(now)")
  rm "$tmp/copy.bin"
  sync
}
upload_and_download() {
  local start created url_token link
  start=$(now)
  created=$(curl -sf -H "Authorization: Bearer $token" -F 'push[expire_after_views]=1' \
    -F "push[files][]=@$tmp/big.bin" "$base/api/v2/pushes")
  up_s=$(secs "$start" "$(now)")
  url_token=$(echo "$created" | sed -E 's/.*"url_token":"([^"]+)".*/\1/')
  link=$(curl -sf "$base/api/v2/pushes/$url_token" | sed -E 's/.*"files":\[\{[^]]*"url":"([^"]+)".*/\1/')
  start=$(now)
  if ! curl -sf "$link" | cmp - "$tmp/big.bin"; then
    echo "ERROR: the download differs from the upload" >&2
    exit 1
  fi
  down_s=$(secs "$start" "$(now)")
}
cps=() ups=() downs=()
echo "idle:            $(rss)"
for ((round = 1; round <= rounds; round++)); do
  if ((round % 2)); then
    copy_and_sync
    upload_and_download
    order="cp first"
  else
    upload_and_download
    copy_and_sync
    order="upload first"
  fi
  echo "round $round ($order): cp + sync $cp_s s, upload $up_s s, download $down_s s (identical to the upload); $(rss)"
  [[ $round == 1 ]] && echo "sealed on disk:  $(du -sh "$tmp/data/files" | cut -f1) (1 view: deleted after the download, within 5 minutes)"
  cps+=("$cp_s") ups+=("$up_s") downs+=("$down_s")
done
cp_s=$(median "${cps[@]}") up_s=$(median "${ups[@]}") down_s=$(median "${downs[@]}")
echo "medians of $rounds rounds: cp + sync $cp_s s, upload $up_s s, download $down_s s; $(rss)"
ratio=$(awk "BEGIN{printf \"%.2f\", $up_s / $cp_s}")
verdict="NOT met"
awk "BEGIN{exit !($ratio <= 1.5)}" && verdict=met
echo "upload ÷ (cp + sync): $ratio vs ≤ 1.5: $verdict; download ÷ (cp + sync): $(awk "BEGIN{printf \"%.2f\", $down_s / $cp_s}")"
stop hush
