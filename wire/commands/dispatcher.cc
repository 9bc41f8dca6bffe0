#include "wire/commands/dispatcher.h"

#include <charconv>
#include <exception>
#include <string>

#include "engine/query/deadline.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_redaction.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/profiler.h"
#include "wire/commands/reply_facts.h"
#include "wire/commands/server_metrics.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

// A standalone refuses a write concern it cannot honour (w > 1, a named
// mode) for every command that writes, as mongod checks it before any
// command runs. insert/update/delete/findAndModify check it while parsing
// (CheckWriteConcernW); this covers the other writers, and reads pay one
// look at their traits.
Status CheckStandaloneWriteConcern(const CommandSpec& spec, std::string_view name,
                                   const bson_t* body) {
  const bool other_writer =
      spec.traits.ddl || name == "create" || name == "collMod" || name == "convertToCapped";
  bson_iter_t it;
  if (!other_writer || !bson_iter_init_find(&it, body, "writeConcern") ||
      !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status::OK();
  }
  if (name == "aggregate") {  // only a pipeline ending in $out / $merge writes
    bool writes = false;
    ForEachPipelineStage(body, [&](std::string_view stage, const bson_iter_t&) {
      writes = stage == "$out" || stage == "$merge";
      return true;
    });
    if (!writes) return Status::OK();
  }
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&it, &len, &data);
  bson_t wc;
  if (!bson_init_static(&wc, data, len)) return Status::OK();
  bool unacknowledged = false;
  return CheckWriteConcernW(&wc, &unacknowledged);
}

using engine::OperationInfo;
using engine::ScopedOperation;

std::string_view Utf8At(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return {s, len};
}

// What currentOp shows of a request: ns is "<db>.<collection>" when the
// first field names one, else "<db>.$cmd"; the deadline of a valid
// maxTimeMS (each command reports a bad one itself).
OperationInfo OperationInfoOf(const ConnectionInfo& conn, const CommandRequest& request,
                              const CommandSpec& spec, const bson_t* shown_command) {
  const std::string_view name = spec.name;
  OperationInfo info;
  info.op = LogicalOpName(spec.traits.op);
  info.command = shown_command;
  info.client = conn.remote_address;
  info.connection_id = conn.connection_id;
  // Appended in place: the temporaries of `"conn" + to_string(id)` and
  // `db + "." + coll` were a tenth of this function (issue #18).
  char id_digits[24];
  const char* id_end = std::to_chars(id_digits, id_digits + sizeof id_digits, conn.connection_id).ptr;
  const std::string_view id(id_digits, static_cast<size_t>(id_end - id_digits));
  info.desc.assign("conn").append(id);
  bson_iter_t it;
  std::string_view coll = "$cmd";
  if (bson_iter_init(&it, request.body.get()) && bson_iter_next(&it) && BSON_ITER_HOLDS_UTF8(&it) &&
      name != "getMore") {
    coll = Utf8At(&it);
  } else if (name == "getMore" && bson_iter_init_find(&it, request.body.get(), "collection") &&
             BSON_ITER_HOLDS_UTF8(&it)) {
    coll = Utf8At(&it);
  }
  info.ns.reserve(request.db.size() + 1 + coll.size());
  info.ns.append(request.db).append(1, '.').append(coll);
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
  return HandleRequest(conn, request).reply;
}

RequestHandler::HandledRequest Dispatcher::HandleRequest(const ConnectionInfo& conn,
                                                         const CommandRequest& request) {
  SetLogContext(conn);
  ActiveRequest active;
  const auto start = std::chrono::steady_clock::now();
  engine::OperationInfo info;
  engine::OperationStats stats;
  const int profiling_level = ProfilingLevelOf(request.db);
  // What the operation showed is read only to profile it (a copy of its
  // strings otherwise, issue #18).
  HandledRequest out{Dispatch(conn, request, profiling_level > 0 ? &info : nullptr, &stats)};
  const bson::BsonDoc& reply = out.reply;
  const auto duration = std::chrono::steady_clock::now() - start;
  LogIfSlow(request, stats, duration, reply);
  if (profiling_level > 0 && !info.ns.empty()) {
    auto* session = static_cast<auth::AuthSession*>(conn.handler_state.get());
    const std::string user = session != nullptr && session->user ? session->user->FullName() : "";
    ProfileIfWanted(*engine_, profiling_level, conn, request, user, info, stats, duration, reply);
  }
  // The counters read the reply's facts; the cursor id among them is what
  // ReplyHoldsState would walk the reply again for.
  bson_iter_t first;
  const ReplyFacts facts = bson_iter_init(&first, request.body.get()) && bson_iter_next(&first)
                               ? RecordCommand(bson_iter_key(&first), request, reply, duration)
                               : ReadReplyFacts(reply.get());
  out.holds_state = facts.cursor_id != 0;
  return out;
}

bson::BsonDoc Dispatcher::Dispatch(const ConnectionInfo& conn, const CommandRequest& request,
                                   engine::OperationInfo* info, engine::OperationStats* stats) {
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
    if (Status refused = CheckStandaloneWriteConcern(*spec, name, request.body.get());
        !refused.ok()) {
      return ErrorReply(refused);
    }
  }
  const std::optional<bson::BsonDoc> redacted = RedactSecrets(*spec, request.body.get());
  ScopedOperation op(engine_->operations(),
                     OperationInfoOf(conn, request, *spec, redacted ? redacted->get() : request.body.get()));
  CommandContext ctx{engine_, server_, conn, request, name, &op.operation(), &auth_, session};
  if (replica_set) engine::repl::LogicalClock::ResetThreadTick();
  bson::BsonDoc reply = replica_set ? RunInSession(*spec, ctx) : RunCommandReply(*spec, ctx);
  if (replica_set) AppendClusterTime(ctx, reply.mutable_get());
  if (info != nullptr) {
    *info = op.operation().info();
    info->command = nullptr;  // borrowed from the request
  }
  *stats = op.operation().stats();
  return reply;
}

bson::BsonDoc RunCommandReply(const CommandSpec& spec, CommandContext& ctx) {
  try {
    StatusWith<bson::BsonDoc> result = spec.run(ctx);
    if (!result.ok()) return ErrorReply(result.status());
    if (ctx.auth != nullptr && ctx.session != nullptr) {
      ctx.auth->OnReply(*ctx.session, ctx.name, ctx.request, result.value().get());
    }
    // OkReply's append, without moving the reply into and out of it.
    BSON_APPEND_DOUBLE(result.value().mutable_get(), "ok", 1.0);
    return std::move(result).value();
  } catch (const std::bad_alloc&) {
    return ErrorReply(Status(ErrorCode::kExceededMemoryLimit, "out of memory running " + std::string(ctx.name)));
  } catch (const std::exception& e) {
    return ErrorReply(Status(ErrorCode::kInternalError, std::string(ctx.name) + " failed: " + e.what()));
  }
}

bool Dispatcher::MayCompressReplyTo(std::string_view command) const {
  const CommandSpec* spec = FindCommand(command);
  return spec == nullptr || spec->traits.compress_reply;
}

bool Dispatcher::ReplyHoldsState(const bson::BsonDoc& reply) const {
  return ReadReplyFacts(reply.get()).cursor_id != 0;
}

void Dispatcher::OnReplyUndelivered(const ConnectionInfo&, const bson::BsonDoc& reply) {
  const int64_t id = ReadReplyFacts(reply.get()).cursor_id;
  bson_iter_t ns_it;
  if (id == 0 || !bson_iter_init(&ns_it, reply.get()) ||
      !bson_iter_find_descendant(&ns_it, "cursor.ns", &ns_it) || !BSON_ITER_HOLDS_UTF8(&ns_it)) {
    return;
  }
  engine_->cursors().Kill(id, bson_iter_utf8(&ns_it, nullptr));
}

}  // namespace tigerdoc::wire
