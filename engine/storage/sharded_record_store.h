#pragma once
// ShardedRecordStore: one collection's documents in N WiredTiger tables.
//
//            document ──shard key value──▶ keystring ──hash64──▶ shard = h % N
//                                                              │
//   table "<ident>-s0"  "<ident>-s1"  ...  "<ident>-s<N-1>"  ◀──┘
//   key   = keystring(shard key value) ++ keystring(_id)        (record key)
//   value = the BSON document
//
// All documents sharing a shard key value (a logical partition) are one
// contiguous key range of one table, so an equality on the shard key is a
// prefix scan of one table. When the shard key is not _id, the table
// "<ident>-id" maps keystring(_id) -> record key, which keeps _id unique
// across shards and makes _id lookups a point read.
//
// The hash (version 1) is FNV-1a 64 over the keystring bytes of the shard
// key value followed by the splitmix64 finaliser (exact formula in
// shard_router.h); it is a compatibility promise (documented in
// engine/README.md), since it decides where data lives. Equal values of different numeric types (1, 1.0, 1L) have the same
// keystring, so they land on the same shard.
//
// Per-shard document counts and data sizes are kept in memory: loaded by a
// scan when the store is opened, then updated by OnCommit callbacks so they
// follow committed data only.
//
// A capped collection's store (`capped`, one shard) keys records by
// insertion instead: record key = u64 big-endian insertion sequence ++
// keystring(_id), with the "<ident>-id" table mapping _id to it, so record
// order is insertion order (engine/README.md, "Capped collections"). Its
// writers take capped_write_mutex() for their whole write unit, so records
// commit in sequence order and a tailing reader never skips one.
//
// Thread-safety: all methods are thread-safe; each call uses the caller's
// Session (writes normally inside its transaction).

#include <bson/bson.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::storage {

struct ShardStats {
  int64_t count = 0;
  int64_t data_bytes = 0;
};

class ShardedRecordStore {
 public:
  // `shard_key_field` is a (possibly dotted) field name; "_id" by default.
  ShardedRecordStore(std::string ident, int num_shards, std::string shard_key_field,
                     bool capped = false);

  // Creates / drops the tables of a collection (shard tables, and the _id
  // table when the shard key is not _id). Create is idempotent.
  // `collated_id`: also the "<ident>-idc" table, which the collection
  // writer fills with keystring(_id under the collection's collation) ->
  // "" so that _id stays unique under that collation.
  static Status CreateTables(Session& session, const std::string& ident, int num_shards,
                             bool shard_key_is_id, bool collated_id = false);
  static Status DropTables(Session& session, const std::string& ident, int num_shards);

  // Scans every shard once to load counts and sizes. Call once after
  // constructing a store for existing data.
  Status LoadStats(Session& session);

  // Calls fn(shard, doc) for every stored document, shard by shard in
  // record-key order, in the session's snapshot; stops at the first non-OK
  // status fn returns. `doc` is valid during the call only. InternalError
  // for a record that is not BSON.
  Status ForEachDocument(Session& session,
                         const std::function<Status(int shard, const bson_t* doc)>& fn) const;

  const std::string& ident() const { return ident_; }
  int num_shards() const { return num_shards_; }
  const std::string& shard_key_field() const { return shard_key_field_; }
  // Whether record keys are keystring(_id) ++ keystring(_id) (never for a
  // capped store, whose records are keyed by insertion sequence).
  bool shard_key_is_id() const { return shard_key_field_ == "_id" && !capped_; }
  bool capped() const { return capped_; }
  // Capped stores: held by a writer for its whole write unit (see above).
  std::mutex& capped_write_mutex() const { return capped_write_mutex_; }
  // Capped stores: the insertion sequence in a record key (its first 8 bytes).
  static uint64_t SequenceOf(std::string_view record_key);
  // Capped stores: a record key no older record stands before, so finding
  // the oldest record skips the head the evictions deleted (WiredTiger keeps
  // deleted entries until the page is reconciled, and a scan from the start
  // would step over every one of them). Advanced by the eviction (after its
  // commit) past the records it removed.
  std::string OldestKeyLowerBound() const;
  void AdvanceOldestKeyLowerBound(std::string_view removed_record_key);
  // Capped stores: waits until a commit that inserted records follows
  // `seen` (a value of commits()) or `deadline` passes; returns commits().
  uint64_t commits() const;
  uint64_t WaitForCommitAfter(uint64_t seen, std::chrono::steady_clock::time_point deadline) const;
  std::string TableName(int shard) const;
  // Table names of a collection: "<ident>-s<shard>" and "<ident>-id".
  static std::string ShardTableName(const std::string& ident, int shard);
  static std::string IdTableName(const std::string& ident);
  static std::string CollatedIdTableName(const std::string& ident);

  // The shard key value of a document: the value at shard_key_field
  // (missing -> null). For a shard key path through an array, MongoDB
  // refuses the document; we report BadValue (code 2) here.
  StatusWith<bson::BsonDoc> ShardKeyOf(const bson_t* doc) const;  // {"": value}
  int ShardForValue(const bson_value_t* shard_key_value) const;
  // Encoded partition prefix: keystring(shard key value).
  static std::string PartitionPrefix(const bson_value_t* shard_key_value);

  // Writes. Should run in a transaction (stats then follow its commit); an
  // auto-committed write outside one updates stats at once.
  // REQUIRES: `doc` has an _id (else BadValue); `old_doc` / the removed doc
  // are the stored versions (their sizes are subtracted from the stats).
  // Insert fails with DuplicateKey (11000) when the _id exists; the message
  // is filled in by the caller, who knows the namespace.
  Status Insert(Session& session, const bson_t* doc);
  // Replaces `old_doc` by `new_doc` (same _id). When the shard key value
  // changes, the document moves to its new partition (and maybe shard).
  Status Update(Session& session, const bson_t* old_doc, const bson_t* new_doc);
  // NoSuchKey (4) when the document is not stored.
  Status Remove(Session& session, const bson_t* doc);

  // Where `doc` is (or would be) stored: its shard and record key. Index
  // entries point there. Same errors as Insert (no _id, array shard key).
  struct Location {
    int shard = 0;
    std::string record_key;
  };
  // Without a session: InternalError for a capped store (its record keys
  // are in the _id table); the session form reads it there.
  StatusWith<Location> LocationOf(const bson_t* doc) const;
  StatusWith<Location> LocationOf(Session& session, const bson_t* doc) const;

  // Point read by _id. Returns nullopt when absent.
  StatusWith<std::optional<bson::BsonDoc>> FindById(Session& session, const bson_value_t* id);

  ShardStats StatsOf(int shard) const;
  ShardStats TotalStats() const;

 private:
  struct Placement {
    int shard = 0;
    std::string record_key;  // keystring(shard key value) ++ keystring(_id)
    std::string id_key;      // keystring(_id)
  };
  StatusWith<Placement> PlacementOf(const bson_t* doc) const;
  // Any store: for a capped one, the stored document's placement from the
  // _id table (NoSuchKey when it is not stored).
  StatusWith<Placement> PlacementOf(Session& session, const bson_t* doc) const;
  // The placement this thread's latest FindById inside a transaction
  // computed, for the Update of that document that usually follows in the
  // same write unit (update by _id: read, apply, replace). Only with the
  // shard key _id, where a placement is a function of the _id value and
  // the shard count alone, so it never goes stale: re-encoding it cost
  // about 1,300 instructions of an update by _id (bench/README.md). Null
  // when `doc` has another _id (or one of a type not remembered).
  const Placement* MemoizedPlacementOf(const bson_t* doc) const;
  struct IdPlacementMemo {
    int num_shards = 0;  // 0: empty
    bson_type_t type = BSON_TYPE_EOD;
    std::string value;  // the _id value's bytes (string, number or ObjectId)
    Placement placement;
  };
  static thread_local IdPlacementMemo last_id_placement_;
  // Positions *out on the shard key value; *found = false when missing.
  Status FindShardKey(const bson_t* doc, bson_iter_t* out, bool* found) const;
  void AddStats(int shard, int64_t count_delta, int64_t bytes_delta);

  std::string ident_;
  int num_shards_;
  std::string shard_key_field_;
  bool capped_ = false;
  std::atomic<uint64_t> next_sequence_{1};
  mutable std::mutex capped_write_mutex_;
  mutable std::mutex commit_mutex_;  // guards commits_ for the condition variable
  mutable std::condition_variable commit_cv_;
  uint64_t commits_ = 0;
  uint64_t oldest_lower_bound_ = 0;  // a sequence; guarded by commit_mutex_
  struct Counters {
    std::atomic<int64_t> count{0};
    std::atomic<int64_t> data_bytes{0};
  };
  std::unique_ptr<Counters[]> stats_;
};

}  // namespace tigerdoc::storage
