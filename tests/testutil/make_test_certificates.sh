#!/usr/bin/env bash
# Writes a throwaway PKI for TLS tests into DIR with the openssl CLI:
#   ca.pem                    the test CA (self-signed)
#   server.pem                certificate + key for localhost / 127.0.0.1, signed by the CA
#   client.pem                client certificate + key (CN=client), signed by the CA
#   stranger.pem              client certificate + key signed by another CA
# Usage: make_test_certificates.sh DIR
set -euo pipefail
dir="$1"
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1; }
quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=tigerdoc test CA"
quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 2 -subj "/CN=another CA"
printf "subjectAltName=DNS:localhost,IP:127.0.0.1\n" > server.ext
sign() {  # name subject ca extfile
  quiet openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
  quiet openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -out "$1.crt" -days 2 ${4:+-extfile "$4"}
  cat "$1.crt" "$1.key" > "$1.pem"
}
sign server "/CN=localhost" ca server.ext
sign client "/CN=client" ca
sign stranger "/CN=stranger" other-ca
