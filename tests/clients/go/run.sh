#!/usr/bin/env bash
# Builds and runs scenario.go offline against Debian's Go driver: GOPATH mode
# (no module download) with the packages of /usr/share/gocode; the build
# cache lives in $GOCACHE (ctest gives it a folder of the build tree).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v go >/dev/null || { echo "go scenario: FAIL: no go (Debian golang-go)" >&2; exit 127; }
[[ -d /usr/share/gocode/src/go.mongodb.org/mongo-driver ]] ||
  { echo "go scenario: FAIL: no Go driver (Debian golang-mongodb-mongo-driver-dev)" >&2; exit 127; }
export GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOPROXY=off
export GOCACHE=${GOCACHE:-$(mktemp -d)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/scenario" "$here/scenario.go"
"$out/scenario"
