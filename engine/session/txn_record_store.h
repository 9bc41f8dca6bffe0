#pragma once
// TxnRecordStore: the durable record of each client session's latest
// retryable write or committed transaction (MongoDB's config.transactions).
//
// Format (a compatibility promise, engine/README.md): the WiredTiger table
// `_txn_records`, one row per session:
//   key   = the 16 bytes of the session's lsid UUID, followed under --auth by the
//           32-byte SHA-256 of its user ("user@db"), as MongoDB's lsid.uid
//   value = BSON {txnNumber: long, kind: "write" | "commit",
//                 reply: <the write's reply document, kind "write" only>,
//                 lastWriteDate: date}
// The row is written through the Session of the write it records, inside
// that write's WiredTiger transaction, so the write and its record commit
// (or vanish, on a crash) together.
//
// Thread-safety: stateless; a Session belongs to one thread at a time.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

struct TxnRecord {
  enum class Kind { kWrite, kCommit };
  int64_t txn_number = -1;
  Kind kind = Kind::kWrite;
  bson::BsonDoc reply;         // kWrite: what the write answered
  int64_t last_write_ms = 0;   // wall clock, ms since the epoch
};

class TxnRecordStore {
 public:
  static constexpr char kTable[] = "_txn_records";

  // Creates the table when missing.
  static Status Create(storage::Session& session);
  static StatusWith<std::optional<TxnRecord>> Read(storage::Session& session,
                                                   std::string_view session_id);
  static Status Write(storage::Session& session, std::string_view session_id,
                      const TxnRecord& record);
  static Status Remove(storage::Session& session, std::string_view session_id);
  // Removes the records written before `cutoff_ms` (sessions that expired
  // while the server was down).
  static Status RemoveOlderThan(storage::Session& session, int64_t cutoff_ms);
};

}  // namespace tigerdoc::engine
