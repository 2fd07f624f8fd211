#!/usr/bin/env bash
# Prepares the build context of deploy/image/Containerfile in DIR (default
# bin/image): the static hush binary, the CA bundle, passwd and group for the
# non-root user, and the empty data directory. Used by scripts/image.sh and
# by the Dockerfile's build stage.
#
#   BUILD     the build's description, stamped into the binary beside its
#             version for `hush version` and the admin overview (default: git
#             describe, else none); letters, digits and . _ + - only
#   VERSION   optional: the release this build is meant to be; it must be the
#             source's version. The version a binary reports (application_version)
#             is always internal/app's Version, dotted numeric, never stamped.
#   CA_BUNDLE the CA certificates to ship (default: the first of the usual
#             places that exists: Debian/Ubuntu/Alpine, Fedora, macOS)
#   GOARCH    the image's architecture (default: go env GOARCH)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-bin/image}
case "$dir" in
"" | / | . | ..) echo "image-context.sh: refusing to empty $dir" >&2; exit 2 ;;
esac
version=$(sed -n 's/^const Version = "\([0-9][0-9.]*\)"$/\1/p' internal/app/app.go)
if [ -z "$version" ]; then
  echo "image-context.sh: no dotted numeric const Version in internal/app/app.go" >&2
  exit 1
fi
if [ -n "${VERSION:-}" ] && [ "$VERSION" != "$version" ]; then
  echo "image-context.sh: VERSION=$VERSION, but the source is version $version: change Version in internal/app/app.go" >&2
  exit 1
fi
build=${BUILD-$(git describe --tags --always --dirty 2>/dev/null || true)}
case "$build" in
*[!A-Za-z0-9._+-]*) echo "image-context.sh: BUILD=$build: letters, digits and . _ + - only" >&2; exit 1 ;;
esac

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
  -ldflags "-s -w -X hush/internal/app.Build=$build" \
  -o "$dir/rootfs/hush" ./cmd/hush
cp "$ca" "$dir/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nhush:x:65532:65532:hush:/data:/sbin/nologin\n' >"$dir/rootfs/etc/passwd"
printf 'root:x:0:\nhush:x:65532:\n' >"$dir/rootfs/etc/group"
chmod 0755 "$dir/rootfs" "$dir/rootfs/etc" "$dir/rootfs/etc/ssl" "$dir/rootfs/etc/ssl/certs" "$dir/rootfs/hush" "$dir/data"
chmod 0644 "$dir/rootfs/etc/ssl/certs/ca-certificates.crt" "$dir/rootfs/etc/passwd" "$dir/rootfs/etc/group"
cp deploy/image/Containerfile "$dir/Containerfile"
echo "$version" >"$dir/VERSION"
echo "$build" >"$dir/BUILD"
