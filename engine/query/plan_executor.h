#pragma once
// PlanExecutor: runs one find over a sharded collection, batch by batch.
//
// Shard fan-out (a query that does not fix the shard key reads every shard):
//
//        PlanExecutor ── targets ──▶ [ (shard 0, [lo, hi)), (shard 2, [lo, hi)), ... ]
//             │
//   unsorted: ranges read one after another, each from a resume key, so a
//             cursor survives across getMore calls without pinning storage
//             (no document is returned twice; every document that existed
//             throughout is returned once, since record keys never move).
//   sorted:   every range read into memory with its sort key (keystring),
//             sorted stably, then streamed (blocking SORT, 100 MiB limit,
//             QueryExceededMemoryLimitNoDiskUseAllowed 292 beyond it).
//
// Targeting: when the filter fixes the shard key by equality or $in, only
// the partitions of those values are read: one key-prefix range each.
//
// Thread-safety: none; a PlanExecutor belongs to one cursor, used by one
// request at a time. The Session passed to each call must be the caller's.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/projection.h"
#include "engine/query/sort.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::query {

// One key range of one shard table.
struct ScanRange {
  int shard = 0;
  std::string lower;  // inclusive
  std::string upper;  // exclusive; empty = end of table
};

struct FindSpec {
  bson::BsonDoc filter;
  bson::BsonDoc projection;
  bson::BsonDoc sort;
  int64_t skip = 0;
  int64_t limit = 0;  // 0 = none
  bool allow_disk_use = false;
};

struct ShardExecStats {
  int shard = 0;
  int64_t docs_examined = 0;
  int64_t n_returned = 0;
};

class PlanExecutor {
 public:
  // `collection` may be null: a missing collection reads as empty.
  static StatusWith<std::unique_ptr<PlanExecutor>> Make(
      std::shared_ptr<catalog::CollectionEntry> collection, FindSpec spec);

  // Appends up to `max_docs` results to `out` (fewer when the batch reaches
  // `max_bytes`, but always at least one when any remain). Sets *exhausted
  // when no result remains.
  Status FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                   std::vector<bson::BsonDoc>* out, bool* exhausted);

  // Counts the remaining results without building them (for count).
  StatusWith<int64_t> CountAll(storage::Session& session);

  const std::vector<ScanRange>& ranges() const { return ranges_; }
  bool targeted() const { return targeted_; }
  bool sorted() const { return sort_.has_value(); }
  const std::vector<ShardExecStats>& shard_stats() const { return shard_stats_; }
  int64_t total_docs_examined() const;
  int64_t n_returned() const { return n_returned_; }
  std::shared_ptr<catalog::CollectionEntry> collection() const { return collection_; }

 private:
  PlanExecutor() = default;
  void Target();
  // Next matching document in scan order; nullopt at the end.
  StatusWith<std::optional<bson::BsonDoc>> NextMatch(storage::Session& session);
  Status LoadSorted(storage::Session& session);
  StatusWith<std::optional<bson::BsonDoc>> NextResult(storage::Session& session);
  ShardExecStats& StatsFor(int shard);

  std::shared_ptr<catalog::CollectionEntry> collection_;
  FindSpec spec_;
  std::unique_ptr<Matcher> matcher_;
  std::optional<Projection> projection_;
  std::optional<SortSpec> sort_;
  std::vector<ScanRange> ranges_;
  bool targeted_ = false;

  // Unsorted streaming position.
  size_t range_index_ = 0;
  std::optional<std::string> resume_after_;  // last record key read in the current range
  std::optional<storage::Cursor> open_cursor_;  // only while a call holds the session

  // Sorted results, loaded once.
  bool sorted_loaded_ = false;
  std::vector<bson::BsonDoc> sorted_docs_;
  size_t sorted_pos_ = 0;

  int64_t skipped_ = 0;
  int64_t n_returned_ = 0;
  std::vector<ShardExecStats> shard_stats_;
};

}  // namespace tigerdoc::query
