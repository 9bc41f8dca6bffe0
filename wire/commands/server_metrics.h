#pragma once
// The counters serverStatus reports for monitoring (mongod's sections
// opcounters, opLatencies, network, metrics.document), kept by the
// dispatcher for every command. Process-wide, lock-free (relaxed atomics:
// monitoring reads need no ordering).
//   opcounters: insert/update/delete count statements (documents of an
//   insert, entries of updates/deletes), query counts find, getmore
//   getMore, command everything else (as mongod).
//   network: bytesIn/bytesOut count command bytes (body and document
//   sequences in, reply body out), not the 16-byte headers.

#include <chrono>
#include <string_view>

#include "engine/bson/bson_doc.h"
#include "wire/protocol/message.h"

namespace tigerdoc::wire {

// Counts one command and its reply (also in the per-collection totals of
// `top`).
void RecordCommand(std::string_view name, const CommandRequest& request, const bson::BsonDoc& reply,
                   std::chrono::steady_clock::duration duration);

// Appends opcounters, opLatencies, network and mem to a serverStatus reply.
void AppendServerMetrics(bson_t* out);
// Appends metrics.document's fields (inside `metrics`).
void AppendDocumentMetrics(bson_t* metrics);

// The `top` command's `totals`: per namespace, time (microseconds) and count
// of all its commands (total), of reads (readLock) and writes (writeLock),
// and by kind (queries, getmore, insert, update, remove, commands), as
// mongod's; since start, in memory.
void AppendTopTotals(bson_t* out);

}  // namespace tigerdoc::wire
