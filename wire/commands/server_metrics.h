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

// Counts one command and its reply.
void RecordCommand(std::string_view name, const CommandRequest& request, const bson::BsonDoc& reply,
                   std::chrono::steady_clock::duration duration);

// Appends opcounters, opLatencies, network and mem to a serverStatus reply.
void AppendServerMetrics(bson_t* out);
// Appends metrics.document's fields (inside `metrics`).
void AppendDocumentMetrics(bson_t* metrics);

}  // namespace tigerdoc::wire
