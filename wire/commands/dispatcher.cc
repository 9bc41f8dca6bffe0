#include "wire/commands/dispatcher.h"

#include <charconv>
#include <exception>
#include <string>

#include "engine/bson/first_key.h"
#include "engine/bson/raw_fields.h"
#include "engine/query/deadline.h"
#include "wire/commands/command_arg_values.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_redaction.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/profiler.h"
#include "wire/commands/reply_facts.h"
#include "wire/commands/server_metrics.h"
#include "wire/protocol/msg_header.h"
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

// What the dispatcher's own checks read of a command's top-level fields,
// from one walk of it: the transaction-field check and the maxTimeMS look
// each walked the whole command, and currentOp's ns read its first field
// with libbson (about 1,000 instructions of a find by _id, issue #18).
struct CommandShape {
  bool walked = false;             // false: the raw walk broke; libbson's helpers answer
  bool transaction_field = false;  // txnNumber, autocommit or startTransaction
  uint32_t max_time_ms_at = 0;     // offset of the first maxTimeMS; 0: absent
  std::optional<std::string_view> first_utf8;  // the first field's value when a string
};

CommandShape ShapeOf(const bson_t* body) {
  CommandShape shape;
  bson::RawFields fields(body);
  bool first = true;
  while (fields.Next()) {
    const std::string_view key = fields.key();
    if (first && fields.type() == BSON_TYPE_UTF8) {  // int32 length with the NUL, chars
      const uint8_t* value = bson_get_data(body) + fields.offset() + key.size() + 2;
      shape.first_utf8.emplace(reinterpret_cast<const char*>(value + 4),
                               static_cast<size_t>(LoadInt32(value)) - 1);
    }
    first = false;
    if (key == "txnNumber" || key == "autocommit" || key == "startTransaction") {
      shape.transaction_field = true;
    } else if (key == "maxTimeMS" && shape.max_time_ms_at == 0) {
      shape.max_time_ms_at = fields.offset();
    }
  }
  shape.walked = !fields.broken();
  return shape;
}

// RefuseTransactionFields' verdict, which only a command holding one of
// those fields (or one the walk left to libbson) needs asked.
Status RefuseTransactionFieldsOf(const bson_t* body, const CommandShape& shape) {
  if (shape.walked && !shape.transaction_field) return Status::OK();
  return RefuseTransactionFields(body);
}

// GetMaxTimeMS(body), from where the walk saw maxTimeMS.
StatusWith<std::optional<int64_t>> MaxTimeMSOf(const bson_t* body, const CommandShape& shape) {
  if (!shape.walked) return GetMaxTimeMS(body);
  if (shape.max_time_ms_at == 0) return std::optional<int64_t>();
  bson_iter_t it;
  if (!bson_iter_init_from_data_at_offset(&it, bson_get_data(body), body->len, shape.max_time_ms_at,
                                          sizeof "maxTimeMS" - 1)) {
    return GetMaxTimeMS(body);
  }
  return MaxTimeMSAt(&it);
}

// What currentOp shows of a request: ns is "<db>.<collection>" when the
// first field names one, else "<db>.$cmd"; the deadline of a valid
// maxTimeMS (each command reports a bad one itself). Written over `*out`,
// whose strings' buffers an earlier command left (ScopedOperation swaps
// them back), so that a command allocates none (issue #18).
void FillOperationInfo(const ConnectionInfo& conn, const CommandRequest& request,
                       const CommandSpec& spec, const bson_t* shown_command,
                       const CommandShape& shape, OperationInfo* out) {
  const std::string_view name = spec.name;
  OperationInfo& info = *out;
  info.op = LogicalOpName(spec.traits.op);
  info.command = shown_command;
  // A connection's client and desc never change, and `*out` was last
  // filled for this thread's connection, usually this one: kept as is then.
  if (info.connection_id != conn.connection_id || info.client != conn.remote_address) {
    info.client = conn.remote_address;
    info.connection_id = conn.connection_id;
    // Appended in place: the temporaries of `"conn" + to_string(id)` and
    // `db + "." + coll` were a tenth of this function (issue #18).
    char id_digits[24];
    const char* id_end = std::to_chars(id_digits, id_digits + sizeof id_digits, conn.connection_id).ptr;
    const std::string_view id(id_digits, static_cast<size_t>(id_end - id_digits));
    info.desc.assign("conn").append(id);
  }
  bson_iter_t it;
  std::string_view coll = "$cmd";
  if (name == "getMore") {
    if (bson_iter_init_find(&it, request.body.get(), "collection") && BSON_ITER_HOLDS_UTF8(&it)) {
      coll = Utf8At(&it);
    }
  } else if (shape.walked) {
    if (shape.first_utf8) coll = *shape.first_utf8;
  } else if (bson_iter_init(&it, request.body.get()) && bson_iter_next(&it) &&
             BSON_ITER_HOLDS_UTF8(&it)) {
    coll = Utf8At(&it);
  }
  info.ns.reserve(request.db.size() + 1 + coll.size());
  info.ns.assign(request.db).append(1, '.').append(coll);
  info.deadline.reset();
  StatusWith<std::optional<int64_t>> max_time_ms = MaxTimeMSOf(request.body.get(), shape);
  if (max_time_ms.ok() && max_time_ms.value()) {
    info.deadline = query::DeadlineAfter(std::chrono::steady_clock::now(), *max_time_ms.value());
  }
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
  std::string_view command_name;
  const ReplyFacts facts = bson::FirstKey(request.body.get(), &command_name)
                               ? RecordCommand(command_name, request, reply, duration)
                               : ReadReplyFacts(reply.get());
  out.holds_state = facts.cursor_id != 0;
  return out;
}

bson::BsonDoc Dispatcher::Dispatch(const ConnectionInfo& conn, const CommandRequest& request,
                                   engine::OperationInfo* info, engine::OperationStats* stats) {
  std::string_view name;
  if (!bson::FirstKey(request.body.get(), &name)) {
    return ErrorReply(Status(ErrorCode::kCommandNotFound, "no such command: ''"));
  }
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
  const CommandShape shape = ShapeOf(request.body.get());
  if (!replica_set) {
    if (Status refused = RefuseTransactionFieldsOf(request.body.get(), shape); !refused.ok()) {
      return ErrorReply(refused);
    }
    if (Status refused = CheckStandaloneWriteConcern(*spec, name, request.body.get());
        !refused.ok()) {
      return ErrorReply(refused);
    }
  }
  const std::optional<bson::BsonDoc> redacted = RedactSecrets(*spec, request.body.get());
  // One per thread: it holds the strings of this thread's previous command.
  thread_local OperationInfo t_operation_info;
  FillOperationInfo(conn, request, *spec, redacted ? redacted->get() : request.body.get(), shape,
                    &t_operation_info);
  ScopedOperation op(engine_->operations(), &t_operation_info);
  CommandContext ctx{engine_, server_, conn, request, name, &op.operation(), &auth_, session};
  if (replica_set) engine::repl::LogicalClock::ResetThreadTick();
  bson::BsonDoc reply = replica_set ? RunInSession(*spec, ctx) : RunCommandReply(*spec, ctx);
  if (replica_set) AppendClusterTime(ctx, reply.mutable_get());
  if (info != nullptr) {
    *info = op.operation().info();
    info->command = nullptr;  // borrowed from the request
  }
  *stats = op.operation().stats();
  stats->num_yields = op.operation().num_yields();
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
