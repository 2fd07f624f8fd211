#!/usr/bin/env bash
# Builds the Hush container image (deploy/image/Containerfile) with docker or
# podman, whichever works here: `make image`.
#
#   IMAGE            the tag (default hush:latest)
#   CONTAINER_ENGINE docker or podman (default: docker if its daemon answers,
#                    else podman)
#   IMAGE_CONTEXT    where the build context is prepared (default bin/image)
#   VERSION, BUILD   see scripts/image-context.sh
set -euo pipefail
cd "$(dirname "$0")/.."
image=${IMAGE:-hush:latest}
dir=${IMAGE_CONTEXT:-bin/image}

engine=${CONTAINER_ENGINE:-}
if [ -z "$engine" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    engine=docker
  elif command -v podman >/dev/null 2>&1; then
    engine=podman
  else
    echo "no container engine: install docker (with a running daemon) or podman" >&2
    exit 1
  fi
fi

scripts/image-context.sh "$dir"
version=$(cat "$dir/VERSION")
build=$(cat "$dir/BUILD")
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
engine_opts=()
if [ "$engine" = podman ]; then
  # The OCI format has no HEALTHCHECK; no intermediate images are kept.
  engine_opts=(--format docker --layers=false)
fi
"$engine" build "${engine_opts[@]}" -t "$image" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" --build-arg "CREATED=$created" \
  -f "$dir/Containerfile" "$dir"
size=$("$engine" image inspect --format '{{.Size}}' "$image")
echo "built $image ($version${build:+, build $build}) with $engine: $size bytes"
