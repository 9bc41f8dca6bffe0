#pragma once
// AuthManager: authentication (SCRAM conversations over saslStart /
// saslContinue and hello's speculativeAuthenticate) and authorization (may
// this connection run this command?) for the whole server.
//
//   Dispatcher ─▶ Authorize(session, command, required actions, request)
//                   --auth off            ─▶ OK
//                   kNoAuth (handshake)   ─▶ OK
//                   not authenticated     ─▶ localhost exception (createUser while no
//                                            user exists, from 127.0.0.1 / ::1) or
//                                            13 "command <name> requires authentication"
//                   roles grant actions?  ─▶ OK or 13 "not authorized on <db> to
//                                            execute command { ... }"
//              ─▶ CheckCursorOwner (getMore / killCursors)
//              ─▶ run ─▶ OnReply (remembers who opened a cursor)
//
// The roles of an authenticated user are re-read when the user store
// changed since they were read, so grants, revokes and drops apply to open
// connections at their next command, as in MongoDB.
//
// Thread-safety: all methods are thread-safe; an AuthSession belongs to one
// connection and is passed by the thread serving it.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "wire/auth/action.h"
#include "wire/auth/auth_session.h"
#include "wire/auth/user_store.h"
#include "wire/protocol/message.h"

namespace tigerdoc::wire::auth {

// One step of a SASL conversation, as saslStart/saslContinue answer it.
struct SaslStep {
  int32_t conversation_id = 1;
  bool done = false;
  std::string payload;
};

// The actions a command name declares in the command table; 0 when there
// is no such command (used for the command an explain wraps).
using ActionLookup = ActionSet (*)(std::string_view command);

class AuthManager {
 public:
  // `enforce`: --auth (security.authorization: enabled). Without it users
  // can still be created and authenticate, but nothing is refused.
  AuthManager(engine::Engine* engine, bool enforce)
      : engine_(engine), users_(engine), enforce_(enforce) {}

  bool enforced() const { return enforce_; }
  UserStore& users() { return users_; }

  // saslStart (and hello's speculativeAuthenticate) on database `db`.
  // Errors: MechanismUnavailable (334) for a mechanism other than
  // SCRAM-SHA-1/256, BadValue for a malformed message, AuthenticationFailed
  // (18) for an unknown user or one without credentials for the mechanism.
  StatusWith<SaslStep> SaslStart(AuthSession& session, std::string_view db,
                                 std::string_view mechanism, std::string_view payload,
                                 bool skip_empty_exchange);
  // saslContinue. ProtocolError (17) without a conversation or for another
  // conversationId; AuthenticationFailed (18) for a wrong proof.
  StatusWith<SaslStep> SaslContinue(AuthSession& session, int32_t conversation_id,
                                    std::string_view payload);
  // The mechanisms user db.user has credentials for (hello's
  // saslSupportedMechs); empty for an unknown user.
  std::vector<std::string> MechanismsOf(std::string_view db, std::string_view user);

  // May `session` run `command` (declared actions `declared`) as `request`?
  // `is_localhost`: the client connected from a loopback address.
  Status Authorize(AuthSession& session, std::string_view command, ActionSet declared,
                   const CommandRequest& request, bool is_localhost, ActionLookup lookup);
  // For the user commands' checks beyond their table row (granting a role
  // on another database, viewing other users): whether `session` holds
  // `actions` on `db`. True without --auth, and for the unauthenticated
  // session the localhost exception let through.
  bool Allowed(const AuthSession& session, std::string_view db, ActionSet actions) const;

  // Whether `session` holds any database action on `db` (the databases
  // listDatabases shows a user without the listDatabases action). True
  // without --auth.
  bool HoldsAnyActionOn(const AuthSession& session, std::string_view db) const;

  // getMore / killCursors: only the user who opened a cursor may use it.
  Status CheckCursorOwner(const AuthSession& session, std::string_view command,
                          const CommandRequest& request);
  // After a command succeeded: records the owner of a cursor it opened on
  // the cursor itself (engine/query/cursor_manager.h), so the record ends
  // with the cursor however it ends.
  void OnReply(const AuthSession& session, std::string_view command, const CommandRequest& request,
               const bson_t* reply);

  // What keys the logical sessions of `session`'s user (MongoDB's lsid.uid:
  // the 32-byte SHA-256 of "user@db"); empty without --auth or a user.
  std::string SessionUid(const AuthSession& session) const;

  // The roles of the session's user, re-read when the user store changed
  // (a dropped user logs the session out).
  void RefreshRoles(AuthSession& session);

 private:
  engine::Engine* const engine_;
  UserStore users_;
  const bool enforce_;
};

}  // namespace tigerdoc::wire::auth
