#!/usr/bin/env bash
# Builds and runs scenario.go offline against Debian's Go driver: GOPATH mode
# (no module download) with the packages of /usr/share/gocode.
# Compiling the driver is most of this test's time (~30 s cold, ~5 s with a
# warm cache), so the build cache is one that outlives the build tree:
#   $GOCACHE when the caller set one;
#   else Go's own default (`go env GOCACHE`, ~/.cache/go-build) when the
#     user cache folder (~/.cache) exists and is writable: shared by the
#     Release and sanitizer build trees of one scripts/test run and kept
#     between runs, as ccache is (Go trims entries unused for 5 days);
#   else $TIGERDOC_GO_CACHE_FALLBACK (ctest: a folder of the build tree);
#   else a temporary folder.
# Cache entries are keyed by content and toolchain, so sharing is safe.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || { echo "go scenario: FAIL: no go (Debian golang-go)" >&2; exit 127; }
[[ -d /usr/share/gocode/src/go.mongodb.org/mongo-driver ]] ||
  { echo "go scenario: FAIL: no Go driver (Debian golang-mongodb-mongo-driver-dev)" >&2; exit 127; }
export GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOPROXY=off
if [[ -z "${GOCACHE:-}" ]]; then
  default_cache=$(go env GOCACHE 2>/dev/null || true)
  if [[ "$default_cache" == /* && -d "$(dirname "$default_cache")" && -w "$(dirname "$default_cache")" ]] &&
      mkdir -p "$default_cache" 2>/dev/null; then
    GOCACHE=$default_cache
  elif [[ -n "${TIGERDOC_GO_CACHE_FALLBACK:-}" ]] && mkdir -p "$TIGERDOC_GO_CACHE_FALLBACK" 2>/dev/null; then
    GOCACHE=$TIGERDOC_GO_CACHE_FALLBACK
  else
    GOCACHE=$(mktemp -d)
    temporary_cache=$GOCACHE
  fi
fi
export GOCACHE
out=$(mktemp -d)
trap 'rm -rf "$out" ${temporary_cache:+"$temporary_cache"}' EXIT
go build -o "$out/scenario" "$here/scenario.go"
"$out/scenario"
