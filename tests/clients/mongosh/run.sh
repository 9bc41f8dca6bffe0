#!/usr/bin/env bash
# Runs scenario.js with the pinned mongosh (shell_tests/, `npm ci` there)
# against $TIGERDOC_URI as given: mongosh's defaults, nothing added.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mongosh=$here/../../../shell_tests/node_modules/.bin/mongosh
[[ -x $mongosh ]] || { echo "mongosh scenario: FAIL: no mongosh (npm ci --prefix shell_tests)" >&2; exit 127; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
HOME=$home MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING=1 \
  "$mongosh" "$TIGERDOC_URI" --quiet --norc --file "$here/scenario.js"
