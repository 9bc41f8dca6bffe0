// Authentication: saslStart / saslContinue (SCRAM-SHA-1, SCRAM-SHA-256),
// hello's speculativeAuthenticate and saslSupportedMechs (and its
// `compression` negotiation), logout, and the authInfo connectionStatus
// reports. The conversation itself lives in
// wire/auth/auth_manager.h; these handlers parse and format.

#include <string>
#include <vector>

#include "wire/auth/auth_manager.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

// The SASL payload: BinData (what drivers send) or a string.
StatusWith<std::string> PayloadOf(const bson_t* body, std::string_view command) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, body, "payload")) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '" + std::string(command) + ".payload' is missing but a required field");
  }
  if (BSON_ITER_HOLDS_BINARY(&it)) {
    bson_subtype_t subtype;
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_binary(&it, &subtype, &len, &data);
    return std::string(reinterpret_cast<const char*>(data), len);
  }
  if (BSON_ITER_HOLDS_UTF8(&it)) {
    uint32_t len = 0;
    const char* data = bson_iter_utf8(&it, &len);
    return std::string(data, len);
  }
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(command) + ".payload' is the wrong type '" +
                    std::string(BsonTypeName(bson_iter_type(&it))) + "', expected types '[string, binData]'");
}

// options.skipEmptyExchange: the client takes the server-final message as
// the end of the conversation.
bool SkipEmptyExchange(const bson_t* body) {
  bson_iter_t it;
  return bson_iter_init(&it, body) && bson_iter_find_descendant(&it, "options.skipEmptyExchange", &it) &&
         bson_iter_as_bool(&it);
}

void AppendStep(bson_t* out, const auth::SaslStep& step) {
  BSON_APPEND_INT32(out, "conversationId", step.conversation_id);
  BSON_APPEND_BOOL(out, "done", step.done);
  bson_append_binary(out, "payload", -1, BSON_SUBTYPE_BINARY,
                     reinterpret_cast<const uint8_t*>(step.payload.data()),
                     static_cast<uint32_t>(step.payload.size()));
}

// saslStart's work on `body` (the command, or hello's
// speculativeAuthenticate document) for users of database `db`.
StatusWith<auth::SaslStep> StartConversation(CommandContext& ctx, const bson_t* body,
                                             std::string_view db) {
  ASSIGN_OR_RETURN(std::optional<std::string> mechanism, GetString(body, "saslStart", "mechanism"));
  if (!mechanism) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'saslStart.mechanism' is missing but a required field");
  }
  ASSIGN_OR_RETURN(std::string payload, PayloadOf(body, "saslStart"));
  return ctx.auth->SaslStart(*ctx.session, db, *mechanism, payload, SkipEmptyExchange(body));
}

}  // namespace

StatusWith<bson::BsonDoc> RunSaslStart(CommandContext& ctx) {
  ASSIGN_OR_RETURN(auth::SaslStep step, StartConversation(ctx, ctx.body(), ctx.db()));
  bson::BsonDoc out;
  AppendStep(out.mutable_get(), step);
  return out;
}

StatusWith<bson::BsonDoc> RunSaslContinue(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::optional<int64_t> id, GetInt64(ctx.body(), ctx.name, "conversationId"));
  if (!id) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field 'saslContinue.conversationId' is missing but a required field");
  }
  ASSIGN_OR_RETURN(std::string payload, PayloadOf(ctx.body(), ctx.name));
  ASSIGN_OR_RETURN(auth::SaslStep step,
                   ctx.auth->SaslContinue(*ctx.session, static_cast<int32_t>(*id), payload));
  bson::BsonDoc out;
  AppendStep(out.mutable_get(), step);
  return out;
}

StatusWith<bson::BsonDoc> RunLogout(CommandContext& ctx) {
  ctx.session->user.reset();
  ctx.session->sasl.reset();
  return bson::BsonDoc();
}

Status AppendHelloSecurityFields(CommandContext& ctx, bson_t* reply) {
  const bson_t* body = ctx.body();
  // saslSupportedMechs: "<db>.<user>" -> the mechanisms that user can use.
  ASSIGN_OR_RETURN(std::optional<std::string> mechs_of,
                   GetString(body, ctx.name, "saslSupportedMechs"));
  if (mechs_of) {
    const size_t dot = mechs_of->find('.');
    if (dot == std::string::npos) {
      return Status(ErrorCode::kBadValue,
                    "UserName must contain a '.' separated database.user pair");
    }
    std::vector<std::string> mechanisms =
        ctx.auth->MechanismsOf(mechs_of->substr(0, dot), mechs_of->substr(dot + 1));
    if (!mechanisms.empty()) {
      bson_t array;
      bson_append_array_begin(reply, "saslSupportedMechs", -1, &array);
      for (size_t i = 0; i < mechanisms.size(); ++i) {
        const std::string key = std::to_string(i);
        BSON_APPEND_UTF8(&array, key.c_str(), mechanisms[i].c_str());
      }
      bson_append_array_end(reply, &array);
    }
  }
  // compression: the client's compressors the server has too, in the
  // server's order of preference; absent when there is none, as mongod
  // (libmongoc re-reads the handshake reply on every operation, so an empty
  // array costs each request of the client too).
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> offered, GetArray(body, ctx.name, "compression"));
  if (offered) {
    std::vector<const std::string*> agreed;
    for (const std::string& mine : ctx.server->compressors) {
      bson_iter_t it;
      bson_iter_init(&it, offered->get());
      while (bson_iter_next(&it)) {
        if (BSON_ITER_HOLDS_UTF8(&it) && mine == bson_iter_utf8(&it, nullptr)) {
          agreed.push_back(&mine);
          break;
        }
      }
    }
    if (!agreed.empty()) {
      bson_t array;
      bson_append_array_begin(reply, "compression", -1, &array);
      for (size_t i = 0; i < agreed.size(); ++i) {
        const std::string key = std::to_string(i);
        BSON_APPEND_UTF8(&array, key.c_str(), agreed[i]->c_str());
      }
      bson_append_array_end(reply, &array);
    }
  }
  // speculativeAuthenticate: saslStart inside hello, saving a round trip.
  // A failure only leaves the field out; the client then authenticates the
  // ordinary way and sees the error there.
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> speculative,
                   GetObject(body, ctx.name, "speculativeAuthenticate"));
  if (speculative) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, speculative->get(), "saslStart")) {
      ASSIGN_OR_RETURN(std::optional<std::string> db,
                       GetString(speculative->get(), "speculativeAuthenticate", "db"));
      StatusWith<auth::SaslStep> step =
          StartConversation(ctx, speculative->get(), db.value_or(ctx.db()));
      if (step.ok()) {
        bson_t sub;
        bson_append_document_begin(reply, "speculativeAuthenticate", -1, &sub);
        AppendStep(&sub, step.value());
        bson_append_document_end(reply, &sub);
      }
    }
  }
  return Status::OK();
}

void AppendAuthInfo(CommandContext& ctx, bson_t* reply) {
  ctx.auth->RefreshRoles(*ctx.session);
  const auto& user = ctx.session->user;
  bson_t auth_info, users, roles;
  bson_append_document_begin(reply, "authInfo", -1, &auth_info);
  bson_append_array_begin(&auth_info, "authenticatedUsers", -1, &users);
  if (user) {
    bson_t u;
    bson_append_document_begin(&users, "0", -1, &u);
    BSON_APPEND_UTF8(&u, "user", user->user.c_str());
    BSON_APPEND_UTF8(&u, "db", user->db.c_str());
    bson_append_document_end(&users, &u);
  }
  bson_append_array_end(&auth_info, &users);
  bson_append_array_begin(&auth_info, "authenticatedUserRoles", -1, &roles);
  for (size_t i = 0; user && i < user->roles.size(); ++i) {
    bson_t r;
    const std::string key = std::to_string(i);
    bson_append_document_begin(&roles, key.c_str(), -1, &r);
    BSON_APPEND_UTF8(&r, "role", user->roles[i].role.c_str());
    BSON_APPEND_UTF8(&r, "db", user->roles[i].db.c_str());
    bson_append_document_end(&roles, &r);
  }
  bson_append_array_end(&auth_info, &roles);
  bson_append_document_end(reply, &auth_info);
}

}  // namespace tigerdoc::wire
