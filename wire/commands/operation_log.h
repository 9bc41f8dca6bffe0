#pragma once
// The dispatcher's log lines (engine/log/log.h), as mongod writes them:
// connection accepted (22943) and ended (22944), left out under --quiet;
// and "Slow query" (51803) for a command that took slowms or longer (every
// command at verbosity 1 and up), with its ns, command, reply size, error
// code, plan summary, keys/documents examined, numYields (long work slots
// handed on), documents returned and durationMillis. Each request's lines
// carry "ctx":"conn<id>".

#include <chrono>

#include "engine/bson/bson_doc.h"
#include "engine/operation_registry.h"
#include "wire/server/request_handler.h"

namespace tigerdoc::wire {

void LogConnectionAccepted(const ConnectionInfo& conn, int64_t open_connections);
void LogConnectionEnded(const ConnectionInfo& conn, int64_t open_connections);

// Names this thread's lines after the connection whose request it runs.
void SetLogContext(const ConnectionInfo& conn);

// Logs the command when `duration` reaches the slow threshold, with what
// its plan did (planSummary, keysExamined, docsExamined, nreturned) when it
// ran one.
void LogIfSlow(const CommandRequest& request, const engine::OperationStats& stats,
               std::chrono::steady_clock::duration duration, const bson::BsonDoc& reply);

}  // namespace tigerdoc::wire
