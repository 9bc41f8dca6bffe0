#include "wire/commands/operation_log.h"

#include <string>

#include "engine/log/log.h"
#include "wire/commands/command_redaction.h"

namespace tigerdoc::wire {
namespace {

thread_local int64_t t_logged_connection = -1;

void LogConnection(int id, const char* msg, const ConnectionInfo& conn, int64_t open_connections) {
  if (log::Quiet()) return;
  bson::BsonDoc attr;
  BSON_APPEND_UTF8(attr.mutable_get(), "remote", conn.remote_address.c_str());
  BSON_APPEND_INT64(attr.mutable_get(), "connectionId", conn.connection_id);
  BSON_APPEND_INT64(attr.mutable_get(), "connectionCount", open_connections);
  log::Write(log::Severity::kInfo, "NETWORK", id, msg, attr.get());
}

// The collection a command names ("find": "c" -> "db.c"), else "db.$cmd".
std::string NamespaceOf(const CommandRequest& request) {
  bson_iter_t it;
  if (bson_iter_init(&it, request.body.get()) && bson_iter_next(&it) && BSON_ITER_HOLDS_UTF8(&it)) {
    return request.db + "." + bson_iter_utf8(&it, nullptr);
  }
  return request.db + ".$cmd";
}

}  // namespace

void LogConnectionAccepted(const ConnectionInfo& conn, int64_t open_connections) {
  LogConnection(22943, "Connection accepted", conn, open_connections);
}

void LogConnectionEnded(const ConnectionInfo& conn, int64_t open_connections) {
  LogConnection(22944, "Connection ended", conn, open_connections);
}

void SetLogContext(const ConnectionInfo& conn) {
  if (t_logged_connection == conn.connection_id) return;
  t_logged_connection = conn.connection_id;
  log::SetThreadContext("conn" + std::to_string(conn.connection_id));
}

void LogIfSlow(const CommandRequest& request, const engine::OperationStats& stats,
               std::chrono::steady_clock::duration duration, const bson::BsonDoc& reply) {
  const int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(duration).count();
  const int64_t slow_ms = log::SlowMs();
  // An awaitable hello (drivers' streaming monitor) waits on purpose. Looked
  // up only for a request that took slowms: this runs after every command.
  bson_iter_t awaiting;
  const bool slow = slow_ms >= 0 && millis >= slow_ms &&
                    !bson_iter_init_find(&awaiting, request.body.get(), "maxAwaitTimeMS");
  if (!slow && !log::Enabled(log::Severity::kDebug1)) return;
  bson::BsonDoc attr;
  BSON_APPEND_UTF8(attr.mutable_get(), "type", "command");
  BSON_APPEND_UTF8(attr.mutable_get(), "ns", NamespaceOf(request).c_str());
  // mongod truncates big commands in the log; so does tigerdoc (documents
  // of an insert can be megabytes).
  constexpr uint32_t kMaxLoggedCommandBytes = 10 * 1024;
  bson_iter_t first;
  const char* name = bson_iter_init(&first, request.body.get()) && bson_iter_next(&first) ? bson_iter_key(&first) : "";
  if (request.body.get()->len <= kMaxLoggedCommandBytes) {
    const std::optional<bson::BsonDoc> redacted = RedactSecrets(name, request.body.get());
    BSON_APPEND_DOCUMENT(attr.mutable_get(), "command", redacted ? redacted->get() : request.body.get());
  } else {
    bson_t truncated;
    bson_append_document_begin(attr.mutable_get(), "command", -1, &truncated);
    BSON_APPEND_UTF8(&truncated, name, "(truncated)");
    BSON_APPEND_INT32(&truncated, "size", static_cast<int32_t>(request.body.get()->len));
    bson_append_document_end(attr.mutable_get(), &truncated);
  }
  // mongod's order: planSummary, keysExamined, docsExamined, ..., numYields, nreturned.
  if (!stats.plan_summary.empty()) {
    BSON_APPEND_UTF8(attr.mutable_get(), "planSummary", stats.plan_summary.c_str());
    BSON_APPEND_INT64(attr.mutable_get(), "keysExamined", stats.keys_examined);
    BSON_APPEND_INT64(attr.mutable_get(), "docsExamined", stats.docs_examined);
  }
  BSON_APPEND_INT64(attr.mutable_get(), "numYields", stats.num_yields);
  if (stats.n_returned >= 0) BSON_APPEND_INT64(attr.mutable_get(), "nreturned", stats.n_returned);
  bson_iter_t it;
  if (bson_iter_init_find(&it, reply.get(), "code") && BSON_ITER_HOLDS_INT32(&it)) {
    BSON_APPEND_INT32(attr.mutable_get(), "errCode", bson_iter_int32(&it));
  }
  BSON_APPEND_INT32(attr.mutable_get(), "reslen", static_cast<int32_t>(reply.size()));
  BSON_APPEND_INT64(attr.mutable_get(), "durationMillis", millis);
  log::Write(slow ? log::Severity::kInfo : log::Severity::kDebug1, "COMMAND", 51803, "Slow query", attr.get());
}

}  // namespace tigerdoc::wire
