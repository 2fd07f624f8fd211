#!/usr/bin/env bash
# Prepares the build context of deploy/image/Containerfile in DIR (default
# bin/image): the static hush binary, the CA bundle, passwd and group for the
# non-root user, and the empty data directory. Used by scripts/image.sh and
# by the Dockerfile's build stage.
#
#   VERSION   stamped into the binary (default: git describe, else "dev")
#   CA_BUNDLE the CA certificates to ship (default: the first of the usual
#             places that exists: Debian/Ubuntu/Alpine, Fedora, macOS)
#   GOARCH    the image's architecture (default: go env GOARCH)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-bin/image}
case "$dir" in
"" | / | . | ..) echo "image-context.sh: refusing to empty $dir" >&2; exit 2 ;;
esac
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}

ca=${CA_BUNDLE:-}
if [ -z "$ca" ]; then
  for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
    if [ -s "$f" ]; then ca=$f; break; fi
  done
fi
if [ -z "$ca" ] || [ ! -s "$ca" ]; then
  echo "no CA bundle found: install ca-certificates or set CA_BUNDLE" >&2
  exit 1
fi

rm -rf "$dir"
mkdir -p "$dir/rootfs/etc/ssl/certs" "$dir/data"
CGO_ENABLED=0 GOOS=linux go build -trimpath \
  -ldflags "-s -w -X hush/internal/app.Version=$version" \
  -o "$dir/rootfs/hush" ./cmd/hush
cp "$ca" "$dir/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nhush:x:65532:65532:hush:/data:/sbin/nologin\n' >"$dir/rootfs/etc/passwd"
printf 'root:x:0:\nhush:x:65532:\n' >"$dir/rootfs/etc/group"
chmod 0755 "$dir/rootfs" "$dir/rootfs/etc" "$dir/rootfs/etc/ssl" "$dir/rootfs/etc/ssl/certs" "$dir/rootfs/hush" "$dir/data"
chmod 0644 "$dir/rootfs/etc/ssl/certs/ca-certificates.crt" "$dir/rootfs/etc/passwd" "$dir/rootfs/etc/group"
cp deploy/image/Containerfile "$dir/Containerfile"
echo "$version" >"$dir/VERSION"
