#pragma once
// Command: what every command handler sees and returns.
//
// A handler parses its arguments into a typed struct first (with
// command_args.h, which gives MongoDB's IDL-style errors), calls the engine,
// and returns the reply's fields without `ok`; the dispatcher appends
// `ok: 1`, or turns a non-OK Status into MongoDB's error reply.
//
// Thread-safety: handlers run on worker threads, many at once; a
// CommandContext belongs to one request.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/engine.h"
#include "wire/auth/action.h"
#include "wire/protocol/message.h"
#include "wire/server/request_handler.h"

namespace tigerdoc::wire {

namespace auth {
class AuthManager;
struct AuthSession;
}  // namespace auth

// Process-wide facts that commands report (serverStatus, getCmdLineOpts, ...).
struct ServerInfo {
  std::vector<std::string> argv;
  std::string bind_ip;
  int port = 0;
  std::string dbpath;
  int64_t cache_size_mb = 0;
  int64_t max_connections = 1000000;  // --maxConns
  std::string repl_set_name;  // --replSet: a one-member replica set; empty = standalone
  bool auth = false;                  // --auth (security.authorization: enabled)
  // --networkMessageCompressors (net.compression.compressors), in the
  // server's order of preference; empty when "disabled".
  std::vector<std::string> compressors = {"snappy", "zstd", "zlib"};
  std::chrono::system_clock::time_point start_time = std::chrono::system_clock::now();
  std::atomic<int64_t> current_connections{0};
  std::atomic<int64_t> total_connections{0};
};

struct CommandContext {
  engine::Engine* engine;
  ServerInfo* server;
  const ConnectionInfo& connection;
  const CommandRequest& request;
  std::string_view name;  // the command name as sent (first field)
  // The registered operation running this command (currentOp, killOp,
  // maxTimeMS); null outside the dispatcher.
  engine::Operation* operation = nullptr;
  // Authentication and the connection's authenticated user (wire/auth/);
  // null outside the dispatcher.
  auth::AuthManager* auth = nullptr;
  auth::AuthSession* session = nullptr;

  const bson_t* body() const { return request.body.get(); }
  const std::string& db() const { return request.db; }
};

using CommandRun = StatusWith<bson::BsonDoc> (*)(CommandContext& ctx);

// MongoDB's Command::ReadWriteType: the class serverStatus's opLatencies
// counts a command in.
enum class CommandKind : uint8_t { kCommand, kRead, kWrite };

// MongoDB's LogicalOp: currentOp's `op` ("query", "getmore", "insert",
// "update", "remove", "command"), and the opcounters and top field a
// command counts in.
enum class LogicalOp : uint8_t { kCommand, kQuery, kGetMore, kInsert, kUpdate, kRemove };

// The lock mongod takes on the collection a command's first field (getMore:
// its `collection`) names, which is what `top` records: kRead counts in
// readLock, kWrite in writeLock, kOther in neither; kNone: top does not
// record the command.
enum class CollectionLock : uint8_t { kNone, kRead, kWrite, kOther };

// What the rest of the server needs to know of a command, declared once in
// its row of the table (mongod declares the same per command class). A row
// that gives none is a kCommand that is no retryable write, not allowed in
// transactions, has a compressible reply and carries no secret.
struct CommandTraits {
  CommandKind kind = CommandKind::kCommand;
  LogicalOp op = LogicalOp::kCommand;
  CollectionLock lock = CollectionLock::kNone;
  // With txnNumber and without autocommit it is a retryable write (else 50768).
  bool retryable = false;
  // May run as a statement of a multi-document transaction (else 263).
  bool in_transaction = false;
  // Drops, replaces or indexes collections (aggregate: when a stage is
  // $out): outside transactions it first waits for the open transactions
  // that wrote them (AwaitTransactionsUsing, transaction_ddl.h). Only these
  // rows pay for that look.
  bool ddl = false;
  // The reply to a compressed request is compressed too; false for the
  // handshake and authentication commands (MongoDB's compression spec).
  bool compress_reply = true;
  // The field that holds a password or an authentication payload: shown
  // as "xxx" in the log, getLog and currentOp (command_redaction.h).
  const char* secret = nullptr;
};

struct CommandSpec {
  std::string_view name;
  CommandRun run;
  bool admin_only = false;  // must run against the admin database
  // What a user must be granted to run it (wire/auth/action.h); a row
  // that says nothing is for root only.
  auth::ActionSet actions = auth::action::kUndeclared;
  CommandTraits traits = {};
};

// MongoDB's name of `op` in currentOp and the profiler ("remove" for delete).
const char* LogicalOpName(LogicalOp op);

}  // namespace tigerdoc::wire
