#include "wire/server/tls.h"

#include <openssl/err.h>

#include <csignal>

namespace tigerdoc::wire {

std::string TlsErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown TLS error" : out;
}

StatusWith<TlsMode> ParseTlsMode(const std::string& text) {
  if (text == "disabled") return TlsMode::kDisabled;
  if (text == "allowTLS") return TlsMode::kAllow;
  if (text == "preferTLS") return TlsMode::kPrefer;
  if (text == "requireTLS") return TlsMode::kRequire;
  return Status(ErrorCode::kBadValue, "Invalid value for tlsMode: " + text +
                                          " (expected disabled, allowTLS, preferTLS, requireTLS)");
}

StatusWith<std::shared_ptr<TlsContext>> TlsContext::Create(const TlsOptions& options) {
  if (options.mode == TlsMode::kDisabled) return std::shared_ptr<TlsContext>();
  if (options.certificate_key_file.empty()) {
    return Status(ErrorCode::kBadValue, "need tlsCertificateKeyFile when tlsMode is not disabled");
  }
  // OpenSSL writes to the socket with write(2), not send(MSG_NOSIGNAL):
  // a client that leaves mid-reply must be an error, not a SIGPIPE that
  // kills the server.
  std::signal(SIGPIPE, SIG_IGN);
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return Status(ErrorCode::kBadValue, TlsErrors());
  std::shared_ptr<TlsContext> out(new TlsContext(ctx, options.mode));
  // TLS 1.2 and 1.3, as mongod 7 accepts by default.
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
  const char* cert = options.certificate_key_file.c_str();
  if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, cert, SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    return Status(ErrorCode::kBadValue,
                  "cannot use tlsCertificateKeyFile " + options.certificate_key_file + ": " +
                      TlsErrors());
  }
  if (!options.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) != 1) {
      return Status(ErrorCode::kBadValue,
                    "cannot load tlsCAFile " + options.ca_file + ": " + TlsErrors());
    }
    // The CA's subject is offered to clients choosing a certificate.
    SSL_CTX_set_client_CA_list(ctx, SSL_load_client_CA_file(options.ca_file.c_str()));
    int verify = SSL_VERIFY_PEER;
    if (!options.allow_connections_without_certificates) {
      verify |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    }
    SSL_CTX_set_verify(ctx, verify, nullptr);
  }
  return out;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

}  // namespace tigerdoc::wire
