#pragma once
// SCRAM (RFC 5802, RFC 7677) as a MongoDB server speaks it: the stored
// credential of a user for one mechanism, and the server side of one
// authentication conversation.
//
//   client-first  "n,,n=<user>,r=<client nonce>"
//   server-first  "r=<client nonce><server nonce>,s=<base64 salt>,i=<iterations>"
//   client-final  "c=biws,r=<nonce>,p=<base64 ClientProof>"
//   server-final  "v=<base64 ServerSignature>"
//
// The server keeps only salt, iteration count, StoredKey = H(ClientKey) and
// ServerKey; the password is never stored. SCRAM-SHA-1 hashes MongoDB's
// digest of the password (hex MD5 of "<user>:mongo:<password>") rather than
// the password itself; SCRAM-SHA-256 hashes the SASLprep'd password.
//
// Every primitive (PBKDF2, HMAC, SHA, MD5, random bytes, base64) is
// OpenSSL's.
//
// Thread-safety: free functions are pure or use OpenSSL's thread-safe RNG;
// a conversation belongs to one connection.

#include <optional>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::wire::auth {

enum class ScramMechanism { kSha1, kSha256 };

// "SCRAM-SHA-1" / "SCRAM-SHA-256".
std::string_view MechanismName(ScramMechanism mechanism);
std::optional<ScramMechanism> ParseMechanism(std::string_view name);

// MongoDB's defaults (scramIterationCount, scramSHA256IterationCount) and
// salt lengths (the hash's output length minus 4 bytes).
int DefaultIterationCount(ScramMechanism mechanism);

struct ScramCredential {
  int iteration_count = 0;
  std::string salt;        // raw bytes
  std::string stored_key;  // raw bytes: H(HMAC(SaltedPassword, "Client Key"))
  std::string server_key;  // raw bytes: HMAC(SaltedPassword, "Server Key")
};

// The string PBKDF2 hashes for `mechanism`. BadValue when SASLprep refuses
// the password (prohibited or unassigned code points) or it is empty.
StatusWith<std::string> PreparePassword(ScramMechanism mechanism, std::string_view user,
                                        std::string_view password);

// The credential of an already prepared password with a given salt.
ScramCredential DeriveCredential(ScramMechanism mechanism, std::string_view prepared_password,
                                 std::string salt, int iteration_count);

// A fresh random salt of the mechanism's length.
std::string NewSalt(ScramMechanism mechanism);

// A new credential: fresh random salt, default iteration count.
StatusWith<ScramCredential> MakeCredential(ScramMechanism mechanism, std::string_view user,
                                           std::string_view password);

// The client-first message, parsed. `user` has "=2C"/"=3D" decoded.
struct ClientFirst {
  std::string user;
  std::string nonce;
  std::string bare;  // client-first-message-bare: "n=...,r=..."
};
// BadValue for anything but "n,," (no channel binding, no authzid other
// than empty) followed by n= and r=.
StatusWith<ClientFirst> ParseClientFirst(std::string_view message);

// 24 random bytes in base64: the server's half of the nonce.
std::string RandomNonce();

class ScramServerConversation {
 public:
  ScramServerConversation(ScramMechanism mechanism, ClientFirst client_first,
                          ScramCredential credential, std::string server_nonce);

  ScramMechanism mechanism() const { return mechanism_; }
  const std::string& user() const { return client_first_.user; }
  std::string ServerFirst() const;

  // Checks the client's proof. Returns the server-final message, or
  // AuthenticationFailed (18) when the nonce or the proof is wrong, BadValue
  // when the message is malformed.
  StatusWith<std::string> Finish(std::string_view client_final) const;

 private:
  ScramMechanism mechanism_;
  ClientFirst client_first_;
  ScramCredential credential_;
  std::string combined_nonce_;
};

std::string Base64Encode(std::string_view bytes);
// BadValue for text that is not base64.
StatusWith<std::string> Base64Decode(std::string_view text);

}  // namespace tigerdoc::wire::auth
