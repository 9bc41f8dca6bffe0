#pragma once
// UserStore: the users of the server, kept as MongoDB keeps them, one
// document per user in admin.system.users:
//
//   { _id: "<db>.<user>", userId: UUID, user: "<user>", db: "<db>",
//     credentials: { "SCRAM-SHA-1":   { iterationCount, salt, storedKey, serverKey },
//                    "SCRAM-SHA-256": { iterationCount, salt, storedKey, serverKey } },
//     roles: [ { role: "<role>", db: "<db>" }, ... ],
//     customData: { ... } }            // only when given
//
// salt, storedKey and serverKey are base64 strings; the password is never
// stored. The documents go through the engine like any other collection's,
// so they are journaled and survive kill -9.
//
// generation() grows with every change, so the holders of a user's roles
// (AuthManager's sessions) notice a grant, revoke or drop on their next
// command.
//
// Thread-safety: all methods are thread-safe.

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "wire/auth/roles.h"
#include "wire/auth/scram.h"

namespace tigerdoc::engine {
class Engine;
}

namespace tigerdoc::wire::auth {

inline constexpr const char* kUsersDb = "admin";
inline constexpr const char* kUsersCollection = "system.users";

struct UserDocument {
  std::string user;
  std::string db;
  std::vector<RoleName> roles;
  std::map<ScramMechanism, ScramCredential> credentials;
  bson::BsonDoc custom_data;  // empty document when none
  bool has_custom_data = false;
  bson::BsonDoc user_id;      // {"": UUID} once stored

  std::string id() const { return db + "." + user; }
  bson::BsonDoc ToBson() const;
  // UserDataInconsistent (44) for a document of another shape.
  static StatusWith<UserDocument> FromBson(const bson_t* doc);
};

class UserStore {
 public:
  explicit UserStore(engine::Engine* engine) : engine_(engine) {}

  // nullopt when there is no such user.
  StatusWith<std::optional<UserDocument>> Find(std::string_view db, std::string_view user);
  // Users of `db`, or of every database when `db` is empty, sorted by _id.
  StatusWith<std::vector<UserDocument>> List(std::string_view db);
  // Location51003 'User "<user>@<db>" already exists'.
  Status Insert(UserDocument user);
  // Replaces the stored document of user.db/user.user; UserNotFound (11).
  Status Replace(const UserDocument& user);
  // Whether a user was removed.
  StatusWith<bool> Remove(std::string_view db, std::string_view user);
  // How many users of `db` were removed.
  StatusWith<int64_t> RemoveAll(std::string_view db);
  // Whether any user exists (the localhost exception closes once one does).
  bool HasUsers();

  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  // Forgets what is cached (whether users exist) and moves generation():
  // called after every change of admin.system.users, also one made by a
  // command other than the user commands (drop, delete, update by root).
  void Changed();

 private:

  engine::Engine* const engine_;
  std::atomic<uint64_t> generation_{1};
  // -1 unknown, 0 no users, 1 some users; reset on every change.
  std::atomic<int> has_users_{-1};
};

}  // namespace tigerdoc::wire::auth
