#!/usr/bin/env bash
# Measures the server's memory while a 1 GiB file is uploaded and downloaded:
# uploads and downloads stream, so RSS must stay flat.
# Usage: scripts/file-rss.sh [size-in-MiB]   (default 1024)
set -euo pipefail
size_mib=${1:-1024}
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/hush" ./cmd/hush
head -c $((size_mib << 20)) /dev/urandom > "$work/big.bin"
limit=$(((size_mib + 1) << 20))
HUSH_DATA_DIR="$work/data" HUSH_ADDR=127.0.0.1:$port HUSH_LOG_LEVEL=warn \
  HUSH_MAX_FILE_SIZE=$limit HUSH_MAX_PUSH_SIZE=$limit "$work/hush" serve 2>"$work/log" &
pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
"$work/hush" user create --email rss@example.com --password long-enough -data-dir "$work/data" >/dev/null
token=$("$work/hush" token create --email rss@example.com -data-dir "$work/data" | tail -n 1)
rss() { awk '/VmRSS|VmHWM/ {printf "%s %d MiB  ", $1, $2/1024}' "/proc/$pid/status"; echo; }

echo "idle:            $(rss)"
start=$(date +%s.%N)
created=$(curl -sf -H "Authorization: Bearer $token" -F 'push[expire_after_views]=1' \
  -F "push[files][]=@$work/big.bin" "http://127.0.0.1:$port/api/v2/pushes")
echo "after upload:    $(rss) ($(echo "$(date +%s.%N) - $start" | bc) s)"
url_token=$(echo "$created" | sed -E 's/.*"url_token":"([^"]+)".*/\1/')
link=$(curl -sf "http://127.0.0.1:$port/api/v2/pushes/$url_token" | sed -E 's/.*"files":\[\{[^]]*"url":"([^"]+)".*/\1/')
start=$(date +%s.%N)
curl -sf "$link" | cmp - "$work/big.bin" && echo "download identical to the upload"
echo "after download:  $(rss) ($(echo "$(date +%s.%N) - $start" | bc) s)"
echo "sealed on disk:  $(du -sh "$work/data/files" | cut -f1)"
