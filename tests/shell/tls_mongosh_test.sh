#!/usr/bin/env bash
# mongosh over TLS: certificates from tests/testutil/make_test_certificates.sh,
# a server with --tlsMode requireTLS and a CA for client certificates;
# mongosh --tls --tlsCAFile --tlsCertificateKeyFile writes and reads, a plain
# mongosh and one without a client certificate are refused.
#   tls_mongosh_test.sh path/to/tigerdoc
set -u -o pipefail
binary="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mongosh="$root/shell_tests/node_modules/.bin/mongosh"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/tigerdoc-tls-shell-XXXXXX")"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "---- server log"; cat "$tmp/server.log"; exit 1; }

bash "$root/tests/testutil/make_test_certificates.sh" "$tmp/certs" || fail "could not make certificates"
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});')"
mkdir -p "$tmp/db" "$tmp/home"
"$binary" --port "$port" --dbpath "$tmp/db" --cacheSizeMB 64 --tlsMode requireTLS \
  --tlsCertificateKeyFile "$tmp/certs/server.pem" --tlsCAFile "$tmp/certs/ca.pem" \
  >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do grep -q "Waiting for connections" "$tmp/server.log" && break; sleep 0.1; done
export HOME="$tmp/home" MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING=1
uri="mongodb://127.0.0.1:$port/test?serverSelectionTimeoutMS=3000"

out="$("$mongosh" "$uri" --quiet --norc --tls --tlsCAFile "$tmp/certs/ca.pem" \
  --tlsCertificateKeyFile "$tmp/certs/client.pem" \
  --eval 'db.tls.insertOne({over: "tls"}); print("count=" + db.tls.countDocuments({over: "tls"}))' 2>&1)"
[[ "$out" == *"count=1"* ]] || fail "mongosh --tls with a client certificate: $out"

out="$("$mongosh" "$uri" --quiet --norc --eval 'print("connected")' 2>&1)"
[[ "$out" != *"connected"* ]] || fail "a plain mongosh connected to a requireTLS server"

out="$("$mongosh" "$uri" --quiet --norc --tls --tlsCAFile "$tmp/certs/ca.pem" --eval 'print("connected")' 2>&1)"
[[ "$out" != *"connected"* ]] || fail "mongosh without a client certificate connected"
grep -q "peer did not return a certificate" "$tmp/server.log" || fail "no log of the refused handshake"
kill -0 "$server_pid" || fail "the server died"
echo "PASS tls_mongosh_test"
