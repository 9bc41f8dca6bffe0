#include "wire/auth/auth_manager.h"

#include <openssl/sha.h>

#include <algorithm>

#include "engine/bson/field_path.h"
#include "engine/bson/shell_string.h"
#include "engine/engine.h"

namespace tigerdoc::wire::auth {
namespace {

constexpr ErrorCode kMechanismUnavailable = ErrorCode::kMechanismUnavailable;

Status AuthenticationFailed() {
  return Status(ErrorCode::kAuthenticationFailed, "Authentication failed.");
}

// Whether any string in `doc` (at any depth) is "system.users": a command
// on admin that names the user collection anywhere (its target, a $lookup
// or $unionWith source, ...) could read or change credentials.
bool NamesUsersCollection(const bson_t* doc, int depth = 0) {
  bson_iter_t it;
  if (depth > 32 || !bson_iter_init(&it, doc)) return false;
  while (bson_iter_next(&it)) {
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      if (std::string_view(bson_iter_utf8(&it, nullptr)) == kUsersCollection) return true;
    } else {
      // A document or an array is searched too (OpenSubdocument is false
      // for every other type).
      bson_t child;
      if (bson::OpenSubdocument(&it, &child) && NamesUsersCollection(&child, depth + 1)) {
        return true;
      }
    }
  }
  return false;
}

// A sub-document of `doc` by key, borrowed.
bool SubDocument(const bson_t* doc, const char* key, bson_t* out) {
  bson_iter_t it;
  return bson_iter_init_find(&it, doc, key) && bson::OpenSubdocument(&it, out);
}

// What the writing and monitoring stages of an aggregation add to `find`:
// $out needs insert+remove, $merge insert+update (on their target database,
// `*target_db`, which is the command's unless they name another);
// $currentOp needs the inprog cluster action.
ActionSet AggregateStageActions(const bson_t* aggregate, std::string* target_db) {
  bson_t pipeline;
  if (!SubDocument(aggregate, "pipeline", &pipeline)) return 0;
  ActionSet actions = 0;
  bson_iter_t stage;
  if (!bson_iter_init(&stage, &pipeline)) return 0;
  while (bson_iter_next(&stage)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&stage)) continue;
    bson_iter_t op;
    if (!bson_iter_recurse(&stage, &op) || !bson_iter_next(&op)) continue;
    std::string_view name = bson_iter_key(&op);
    if (name == "$currentOp") actions |= action::kInprog;
    if (name != "$out" && name != "$merge") continue;
    actions |= name == "$out" ? action::kInsert | action::kRemove | action::kCreateCollection
                              : action::kInsert | action::kUpdate | action::kCreateCollection;
    // {$out: {db, coll}} / {$merge: {into: {db, coll}}}
    bson_iter_t db_it;
    const char* path = name == "$out" ? "db" : "into.db";
    if (BSON_ITER_HOLDS_DOCUMENT(&op) && bson_iter_recurse(&op, &db_it) &&
        bson_iter_find_descendant(&db_it, path, &db_it) && BSON_ITER_HOLDS_UTF8(&db_it)) {
      *target_db = bson_iter_utf8(&db_it, nullptr);
    }
  }
  return actions;
}

int64_t Int64At(const bson_t* doc, const char* key) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, key) || !BSON_ITER_HOLDS_NUMBER(&it)) return 0;
  return bson_iter_as_int64(&it);
}

}  // namespace

StatusWith<SaslStep> AuthManager::SaslStart(AuthSession& session, std::string_view db,
                                            std::string_view mechanism_name,
                                            std::string_view payload, bool skip_empty_exchange) {
  session.sasl.reset();
  std::optional<ScramMechanism> mechanism = ParseMechanism(mechanism_name);
  if (!mechanism) {
    return Status(kMechanismUnavailable, "Received authentication for mechanism " +
                                             std::string(mechanism_name) +
                                             " which is unknown or not enabled");
  }
  ASSIGN_OR_RETURN(ClientFirst client_first, ParseClientFirst(payload));
  ASSIGN_OR_RETURN(std::optional<UserDocument> user, users_.Find(db, client_first.user));
  if (!user) return AuthenticationFailed();
  auto credential = user->credentials.find(*mechanism);
  if (credential == user->credentials.end()) return AuthenticationFailed();

  SaslState state;
  state.db = std::string(db);
  state.skip_empty_exchange = skip_empty_exchange;
  state.scram = std::make_unique<ScramServerConversation>(*mechanism, std::move(client_first),
                                                          credential->second, RandomNonce());
  SaslStep step;
  step.payload = state.scram->ServerFirst();
  session.sasl = std::move(state);
  return step;
}

StatusWith<SaslStep> AuthManager::SaslContinue(AuthSession& session, int32_t conversation_id,
                                               std::string_view payload) {
  if (!session.sasl) {
    return Status(ErrorCode::kProtocolError, "No SASL session state found");
  }
  if (conversation_id != 1) {
    session.sasl.reset();
    return Status(ErrorCode::kProtocolError, "sasl: Mismatched conversation id");
  }
  SaslState& state = *session.sasl;
  SaslStep step;
  if (!state.proof_verified) {
    StatusWith<std::string> server_final = state.scram->Finish(payload);
    if (!server_final.ok()) {
      session.sasl.reset();
      return server_final.status();
    }
    step.payload = std::move(server_final).value();
    state.proof_verified = true;
    // Without skipEmptyExchange the client answers the server's signature
    // with an empty message and is authenticated after that.
    if (!state.skip_empty_exchange) return step;
  } else if (!payload.empty()) {
    session.sasl.reset();
    return Status(ErrorCode::kBadValue, "SCRAM final message must be empty");
  }
  // The conversation is over: the user is authenticated with the roles it
  // has now.
  ASSIGN_OR_RETURN(std::optional<UserDocument> user, users_.Find(state.db, state.scram->user()));
  const std::string db = state.db;
  session.sasl.reset();
  if (!user) return AuthenticationFailed();
  AuthenticatedUser authenticated;
  authenticated.user = user->user;
  authenticated.db = db;
  authenticated.roles = user->roles;
  authenticated.roles_generation = users_.generation();
  session.user = std::move(authenticated);
  step.done = true;
  return step;
}

std::vector<std::string> AuthManager::MechanismsOf(std::string_view db, std::string_view user) {
  std::vector<std::string> out;
  StatusWith<std::optional<UserDocument>> found = users_.Find(db, user);
  if (!found.ok() || !found.value()) return out;
  for (const auto& entry : found.value()->credentials) {
    out.emplace_back(MechanismName(entry.first));
  }
  return out;
}

void AuthManager::RefreshRoles(AuthSession& session) {
  if (!session.user) return;
  // Read the generation first: a change racing with the read below bumps
  // it again, and the next command reads once more.
  const uint64_t generation = users_.generation();
  if (session.user->roles_generation == generation) return;
  StatusWith<std::optional<UserDocument>> found = users_.Find(session.user->db, session.user->user);
  if (!found.ok()) return;  // keep the roles we have; try again next command
  if (!found.value()) {
    session.user.reset();  // the user was dropped
    return;
  }
  session.user->roles = found.value()->roles;
  session.user->roles_generation = generation;
}

Status AuthManager::Authorize(AuthSession& session, std::string_view command, ActionSet declared,
                              const CommandRequest& request, bool is_localhost,
                              ActionLookup lookup) {
  if (!enforce_ || (declared & action::kNoAuth)) return Status::OK();
  RefreshRoles(session);
  if (!session.user) {
    // The localhost exception: the first user may be created from the
    // server's own machine.
    if (command == "createUser" && is_localhost && !users_.HasUsers()) return Status::OK();
    return Status(ErrorCode::kUnauthorized,
                  "command " + std::string(command) + " requires authentication");
  }
  if (declared & action::kAuthenticated) return Status::OK();

  ActionSet required = declared;
  std::string target_db = request.db;
  const bson_t* body = request.body.get();
  bson_t explained;
  if (command == "explain" && SubDocument(body, "explain", &explained)) {
    bson_iter_t it;
    if (bson_iter_init(&it, &explained) && bson_iter_next(&it)) {
      const ActionSet inner = lookup(bson_iter_key(&it));
      if (inner != 0) required = inner;
      if (std::string_view(bson_iter_key(&it)) == "aggregate") {
        required |= AggregateStageActions(&explained, &target_db);
      }
    }
  }
  ActionSet target_required = 0;
  if (command == "aggregate") {
    const ActionSet stages = AggregateStageActions(body, &target_db);
    // {aggregate: 1, pipeline: [{$currentOp: ...}]} (mongosh's
    // db.currentOp()) reads no collection: inprog alone is needed.
    bson_iter_t target;
    if ((stages & action::kInprog) && bson_iter_init(&target, body) && bson_iter_next(&target) &&
        BSON_ITER_HOLDS_NUMBER(&target)) {
      required &= ~action::kFind;
    }
    required |= stages & ~(action::kInsert | action::kUpdate | action::kRemove |
                           action::kCreateCollection);
    target_required = stages & (action::kInsert | action::kUpdate | action::kRemove |
                                action::kCreateCollection);
  }
  // admin.system.users is reached only through the user commands, unless
  // the user is root.
  if (request.db == kUsersDb && NamesUsersCollection(body)) required |= action::kUndeclared;

  const std::vector<RoleName>& roles = session.user->roles;
  const bool allowed =
      (required & ~ActionsOn(roles, request.db)) == 0 &&
      (target_required == 0 || (target_required & ~ActionsOn(roles, target_db)) == 0);
  if (allowed) return Status::OK();
  return Status(ErrorCode::kUnauthorized, "not authorized on " + request.db +
                                              " to execute command " + bson::ToShellString(body));
}

bool AuthManager::Allowed(const AuthSession& session, std::string_view db,
                          ActionSet actions) const {
  if (!enforce_ || !session.user) return true;
  return (actions & ~ActionsOn(session.user->roles, db)) == 0;
}

bool AuthManager::HoldsAnyActionOn(const AuthSession& session, std::string_view db) const {
  if (!enforce_ || !session.user) return true;
  return (ActionsOn(session.user->roles, db) & action::kDatabaseActions) != 0;
}

Status AuthManager::CheckCursorOwner(const AuthSession& session, std::string_view command,
                                     const CommandRequest& request) {
  if (!enforce_ || !session.user) return Status::OK();
  std::vector<int64_t> ids;
  if (command == "getMore") {
    ids.push_back(Int64At(request.body.get(), "getMore"));
  } else {
    bson_t cursors;
    bson_iter_t it;
    if (SubDocument(request.body.get(), "cursors", &cursors) && bson_iter_init(&it, &cursors)) {
      while (bson_iter_next(&it)) {
        if (BSON_ITER_HOLDS_NUMBER(&it)) ids.push_back(bson_iter_as_int64(&it));
      }
    }
  }
  const std::string me = session.user->FullName();
  for (int64_t id : ids) {
    const std::optional<std::string> owner = engine_->cursors().OwnerOf(id);
    if (owner && !owner->empty() && *owner != me) {
      return Status(ErrorCode::kUnauthorized,
                    "cursor id " + std::to_string(id) + " was not created by the authenticated user");
    }
  }
  return Status::OK();
}

std::string AuthManager::SessionUid(const AuthSession& session) const {
  if (!enforce_ || !session.user) return "";
  const std::string name = session.user->FullName();
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(name.data()), name.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

void AuthManager::OnReply(const AuthSession& session, std::string_view command,
                          const CommandRequest& request, const bson_t* reply) {
  // A command other than the user commands that changed admin.system.users
  // (drop, delete, update, findAndModify, ...: root only).
  if (request.db == kUsersDb && NamesUsersCollection(request.body.get())) users_.Changed();
  if (!enforce_ || !session.user || command == "getMore" || command == "killCursors") return;
  bson_iter_t it;
  if (!bson_iter_init(&it, reply) || !bson_iter_find_descendant(&it, "cursor.id", &it) ||
      !BSON_ITER_HOLDS_NUMBER(&it)) {
    return;
  }
  const int64_t id = bson_iter_as_int64(&it);
  if (id != 0) engine_->cursors().SetOwner(id, session.user->FullName());
}

}  // namespace tigerdoc::wire::auth
