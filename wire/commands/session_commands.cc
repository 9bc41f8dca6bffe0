// Client sessions: startSession, endSessions, refreshSessions, killSessions,
// killAllSessions (engine/session/logical_session_catalog.h). They work on a
// standalone server too, as on mongod; only transactions and retryable
// writes need --replSet.

#include <array>
#include <string>

#include "wire/auth/random_uuid.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/command_args.h"
#include "wire/commands/session_uid.h"

namespace tigerdoc::wire {
namespace {

using engine::LogicalSessionCatalog;

// A random (version 4) UUID, as mongod makes for startSession, from the
// CSPRNG: an lsid is a capability (wire/auth/random_uuid.h).
void AppendRandomUuid(bson_t* doc, const char* key) {
  const std::array<uint8_t, 16> uuid = auth::RandomUuid();
  BSON_APPEND_BINARY(doc, key, BSON_SUBTYPE_UUID, uuid.data(), uuid.size());
}

// Calls `fn(session_key)` for each lsid of the command's array, keyed
// with the caller's user (another user's sessions are not reached)
// ({endSessions: [{id: UUID}, ...]}); errors as MongoDB's IDL.
template <typename Fn>
Status ForEachSessionId(CommandContext& ctx, Fn fn) {
  bson_iter_t it, elem;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  const std::string name(ctx.name);
  if (!BSON_ITER_HOLDS_ARRAY(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + name + "." + name + "' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&it))) + "', expected type 'array'");
  }
  bson_iter_recurse(&it, &elem);
  while (bson_iter_next(&elem)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&elem)) {
      return Status(ErrorCode::kTypeMismatch, "BSON field '" + name + "." + name +
                                                  "' is the wrong type, expected type 'object'");
    }
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&elem, &len, &data);
    bson_t lsid;
    if (!bson_init_static(&lsid, data, len)) return Status(ErrorCode::kInvalidBSON, "invalid lsid");
    ASSIGN_OR_RETURN(std::string key, LogicalSessionCatalog::SessionKeyOf(&lsid, SessionUidOf(ctx)));
    fn(key);
  }
  return Status::OK();
}

}  // namespace

StatusWith<bson::BsonDoc> RunStartSession(CommandContext& ctx) {
  bson::BsonDoc out;
  bson_t id;
  BSON_APPEND_DOCUMENT_BEGIN(out.mutable_get(), "id", &id);
  AppendRandomUuid(&id, "id");
  bson_append_document_end(out.mutable_get(), &id);
  bson_iter_t lsid;
  bson_iter_init_find(&lsid, out.get(), "id");
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&lsid, &len, &data);
  bson_t lsid_doc;
  bson_init_static(&lsid_doc, data, len);
  RETURN_IF_ERROR(ctx.engine->sessions().Start(&lsid_doc, SessionUidOf(ctx)));
  BSON_APPEND_INT32(out.mutable_get(), "timeoutMinutes",
                    static_cast<int32_t>(LogicalSessionCatalog::kSessionTimeout.count()));
  return out;
}

StatusWith<bson::BsonDoc> RunEndSessions(CommandContext& ctx) {
  RETURN_IF_ERROR(ForEachSessionId(ctx, [&](const std::string& id) { ctx.engine->sessions().End(id); }));
  return bson::BsonDoc();
}

StatusWith<bson::BsonDoc> RunRefreshSessions(CommandContext& ctx) {
  RETURN_IF_ERROR(ForEachSessionId(ctx, [&](const std::string& id) { ctx.engine->sessions().Touch(id); }));
  return bson::BsonDoc();
}

// Ends the caller's sessions of those lsids and aborts their open
// transactions; under --auth another user's session of the same lsid is
// not touched (as in MongoDB, whose lsid carries the user's uid).
StatusWith<bson::BsonDoc> RunKillSessions(CommandContext& ctx) {
  return RunEndSessions(ctx);
}

// {killAllSessions: [<{user, db} patterns>]}: without users every pattern
// names every session.
StatusWith<bson::BsonDoc> RunKillAllSessions(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_ARRAY(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'killAllSessions.killAllSessions' is the wrong type, expected type 'array'");
  }
  ctx.engine->sessions().EndAll();
  return bson::BsonDoc();
}

}  // namespace tigerdoc::wire
