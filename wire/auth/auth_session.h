#pragma once
// AuthSession: what one client connection has proved about itself: the
// user it authenticated as (and the roles that user held when they were
// last read), and the SCRAM conversation in progress, if any.
//
// Thread-safety: none needed; a connection's requests run one at a time on
// its own thread (wire/server/connection.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wire/auth/roles.h"
#include "wire/auth/scram.h"

namespace tigerdoc::wire::auth {

struct AuthenticatedUser {
  std::string user;
  std::string db;
  std::vector<RoleName> roles;
  uint64_t roles_generation = 0;  // UserStore::generation() when roles were read

  // MongoDB's "user@db" form (cursor owners, messages).
  std::string FullName() const { return user + "@" + db; }
};

struct SaslState {
  std::unique_ptr<ScramServerConversation> scram;
  std::string db;                // where the user is defined
  bool proof_verified = false;   // server-final sent; waiting for the empty last step
  bool skip_empty_exchange = false;
};

struct AuthSession {
  std::optional<AuthenticatedUser> user;
  std::optional<SaslState> sasl;
};

}  // namespace tigerdoc::wire::auth
