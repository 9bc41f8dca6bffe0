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
#include "engine/query/cursor_manager.h"
#include "engine/storage/storage_engine.h"
#include "wire/commands/reply_facts.h"
#include "wire/protocol/message.h"

namespace tigerdoc::wire {

// Counts one command and its reply (also in the per-collection totals of
// `top`). Returns what it read of the reply, so the caller need not walk it
// again.
ReplyFacts RecordCommand(std::string_view name, const CommandRequest& request, const bson::BsonDoc& reply,
                   std::chrono::steady_clock::duration duration);

// Counts a request while it runs, for connections.active (a connection runs
// one request at a time, so running requests are active connections).
class ActiveRequest {
 public:
  ActiveRequest();
  ~ActiveRequest();
  ActiveRequest(const ActiveRequest&) = delete;
  ActiveRequest& operator=(const ActiveRequest&) = delete;
};
int64_t ActiveRequests();

// Appends metrics.cursor (inside `metrics`): timedOut, totalOpened and
// open {noTimeout, pinned, total}, from the engine's cursor manager.
void AppendCursorMetrics(bson_t* metrics, const query::CursorStats& stats);

// Appends wiredTiger: {cache: {...}, log: {...}, ...} from WiredTiger's
// statistics cursor, every statistic by section as mongod names them;
// nothing when the statistics cannot be read.
void AppendWiredTigerMetrics(storage::StorageEngine& storage, bson_t* out);

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
