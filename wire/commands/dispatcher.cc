#include "wire/commands/dispatcher.h"

#include <exception>
#include <string>

#include "engine/query/deadline.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/server_metrics.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

using engine::OperationInfo;
using engine::ScopedOperation;

// MongoDB's `op` of a command in currentOp.
std::string OpOf(std::string_view name) {
  if (name == "find") return "query";
  if (name == "getMore") return "getmore";
  if (name == "insert") return "insert";
  if (name == "update") return "update";
  if (name == "delete") return "remove";
  return "command";
}

// What currentOp shows of a request: ns is "<db>.<collection>" when the
// first field names one, else "<db>.$cmd"; the deadline of a valid
// maxTimeMS (each command reports a bad one itself).
OperationInfo OperationInfoOf(const ConnectionInfo& conn, const CommandRequest& request,
                              std::string_view name) {
  OperationInfo info;
  info.op = OpOf(name);
  info.command = request.body.get();
  info.client = conn.remote_address;
  info.connection_id = conn.connection_id;
  info.desc = "conn" + std::to_string(conn.connection_id);
  bson_iter_t it;
  std::string coll = "$cmd";
  if (bson_iter_init(&it, request.body.get()) && bson_iter_next(&it) && BSON_ITER_HOLDS_UTF8(&it) &&
      name != "getMore") {
    coll = bson_iter_utf8(&it, nullptr);
  } else if (name == "getMore" && bson_iter_init_find(&it, request.body.get(), "collection") &&
             BSON_ITER_HOLDS_UTF8(&it)) {
    coll = bson_iter_utf8(&it, nullptr);
  }
  info.ns = request.db + "." + coll;
  StatusWith<std::optional<int64_t>> max_time_ms = GetMaxTimeMS(request.body.get());
  if (max_time_ms.ok() && max_time_ms.value()) {
    info.deadline = query::DeadlineAfter(std::chrono::steady_clock::now(), *max_time_ms.value());
  }
  return info;
}

// 127.0.0.0/8 and ::1: where the localhost exception applies.
bool IsLoopback(const std::string& remote_address) {
  return remote_address.rfind("127.", 0) == 0 || remote_address.rfind("[::1]:", 0) == 0 ||
         remote_address.rfind("[::ffff:127.", 0) == 0;
}

}  // namespace

bson::BsonDoc Dispatcher::Handle(const ConnectionInfo& conn, const CommandRequest& request) {
  SetLogContext(conn);
  const auto start = std::chrono::steady_clock::now();
  bson::BsonDoc reply = Dispatch(conn, request);
  const auto duration = std::chrono::steady_clock::now() - start;
  LogIfSlow(request, duration, reply);
  bson_iter_t first;
  if (bson_iter_init(&first, request.body.get()) && bson_iter_next(&first)) {
    RecordCommand(bson_iter_key(&first), request, reply, duration);
  }
  return reply;
}

bson::BsonDoc Dispatcher::Dispatch(const ConnectionInfo& conn, const CommandRequest& request) {
  bson_iter_t it;
  if (!bson_iter_init(&it, request.body.get()) || !bson_iter_next(&it)) {
    return ErrorReply(Status(ErrorCode::kCommandNotFound, "no such command: ''"));
  }
  std::string_view name = bson_iter_key(&it);
  const CommandSpec* spec = FindCommand(name);
  if (spec == nullptr) {
    return ErrorReply(
        Status(ErrorCode::kCommandNotFound, "no such command: '" + std::string(name) + "'"));
  }
  if (spec->admin_only && request.db != "admin") {
    return ErrorReply(Status(ErrorCode::kUnauthorized,
                             std::string(name) + " may only be run against the admin database."));
  }
  // The connection's authenticated user; a handler called without
  // OnConnectionOpened (never by the server) gets a fresh session.
  auto* session = static_cast<auth::AuthSession*>(conn.handler_state.get());
  auth::AuthSession unopened;
  if (session == nullptr) session = &unopened;
  if (Status denied = auth_.Authorize(*session, name, spec->actions, request,
                                      IsLoopback(conn.remote_address), DeclaredActions);
      !denied.ok()) {
    return ErrorReply(denied);
  }
  if (name == "getMore" || name == "killCursors") {
    if (Status denied = auth_.CheckCursorOwner(*session, name, request); !denied.ok()) {
      return ErrorReply(denied);
    }
  }
  const bool replica_set = !server_->repl_set_name.empty();
  if (!replica_set) {
    if (Status refused = RefuseTransactionFields(request.body.get()); !refused.ok()) {
      return ErrorReply(refused);
    }
  }
  ScopedOperation op(engine_->operations(), OperationInfoOf(conn, request, name));
  CommandContext ctx{engine_, server_, conn, request, name, &op.operation(), &auth_, session};
  if (!replica_set) return RunCommandReply(*spec, ctx);
  engine::repl::LogicalClock::ResetThreadTick();
  bson::BsonDoc reply = RunInSession(*spec, ctx);
  AppendClusterTime(ctx, reply.mutable_get());
  return reply;
}

bson::BsonDoc RunCommandReply(const CommandSpec& spec, CommandContext& ctx) {
  try {
    StatusWith<bson::BsonDoc> result = spec.run(ctx);
    if (!result.ok()) return ErrorReply(result.status());
    if (ctx.auth != nullptr && ctx.session != nullptr) {
      ctx.auth->OnReply(*ctx.session, ctx.name, ctx.request, result.value().get());
    }
    return OkReply(std::move(result).value());
  } catch (const std::bad_alloc&) {
    return ErrorReply(Status(ErrorCode::kExceededMemoryLimit, "out of memory running " + std::string(ctx.name)));
  } catch (const std::exception& e) {
    return ErrorReply(Status(ErrorCode::kInternalError, std::string(ctx.name) + " failed: " + e.what()));
  }
}

void Dispatcher::OnReplyUndelivered(const ConnectionInfo&, const bson::BsonDoc& reply) {
  bson_iter_t id_it, ns_it;
  if (!bson_iter_init(&id_it, reply.get()) ||
      !bson_iter_find_descendant(&id_it, "cursor.id", &id_it) || !BSON_ITER_HOLDS_INT64(&id_it)) {
    return;
  }
  const int64_t id = bson_iter_int64(&id_it);
  if (id == 0 || !bson_iter_init(&ns_it, reply.get()) ||
      !bson_iter_find_descendant(&ns_it, "cursor.ns", &ns_it) || !BSON_ITER_HOLDS_UTF8(&ns_it)) {
    return;
  }
  engine_->cursors().Kill(id, bson_iter_utf8(&ns_it, nullptr));
}

}  // namespace tigerdoc::wire
