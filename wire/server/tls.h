#pragma once
// TLS for client connections (mongod's net.tls), through OpenSSL on the
// connection's own blocking socket:
//
//   --tlsMode disabled | allowTLS | preferTLS | requireTLS
//   --tlsCertificateKeyFile PEM   the server's certificate and private key
//   --tlsCAFile PEM               CA that signs client certificates; when
//                                 given, clients must present one unless
//   --tlsAllowConnectionsWithoutCertificates
//
// allowTLS and preferTLS accept TLS and plain connections alike (they differ
// only for replica-set members' outgoing connections, which tigerdoc has
// not); requireTLS closes a connection whose first byte is not a TLS
// handshake record.
//
// Thread-safety: a TlsContext is immutable after Create() and shared by
// every connection (OpenSSL's SSL_CTX is safe for concurrent SSL_new);
// each connection's SSL object is its own.

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "engine/base/status.h"

namespace tigerdoc::wire {

enum class TlsMode { kDisabled, kAllow, kPrefer, kRequire };

struct TlsOptions {
  TlsMode mode = TlsMode::kDisabled;
  std::string certificate_key_file;
  std::string ca_file;
  bool allow_connections_without_certificates = false;
};

// "disabled", "allowTLS", "preferTLS", "requireTLS"; BadValue otherwise.
StatusWith<TlsMode> ParseTlsMode(const std::string& text);

class TlsContext {
 public:
  // Loads the certificate, key and CA. BadValue when the mode needs a
  // certificate and none is given, InvalidSSLConfiguration-style
  // BadValue with OpenSSL's reason when a file does not load.
  static StatusWith<std::shared_ptr<TlsContext>> Create(const TlsOptions& options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  TlsMode mode() const { return mode_; }
  SSL_CTX* get() const { return ctx_; }

 private:
  TlsContext(SSL_CTX* ctx, TlsMode mode) : ctx_(ctx), mode_(mode) {}
  SSL_CTX* ctx_;
  TlsMode mode_;
};

// OpenSSL's queued error messages, joined (and cleared).
std::string TlsErrors();

}  // namespace tigerdoc::wire
