#pragma once
// PlanExecutor: runs one find over a sharded collection, batch by batch.
//
// Shard fan-out (a query that does not fix the shard key reads every shard):
//
//        PlanExecutor ── targets ──▶ [ (shard 0, [lo, hi)), (shard 2, [lo, hi)), ... ]
//             │
//   kCollScan:     ranges read one after another (natural order), each from
//                  a resume key, so a cursor survives across getMore calls
//                  without pinning storage: no document is returned twice,
//                  and every document that existed throughout is returned
//                  once, since record keys never move.
//   kOrderedMerge: when the order asked for is record-key order (sort
//                  {<shard key>: 1} or {<shard key>: 1, _id: 1}; the _id index
//                  hinted on an _id-sharded collection), every range is a
//                  sorted stream: the executor keeps one head per range and
//                  merges them by record key (memcmp), streaming, no sort.
//                  The same orders descending read every range backward
//                  and merge the largest head first.
//
//   Natural order is shard 0's records in record-key order, then shard 1's,
//   and so on ({$natural: 1}); {$natural: -1} is its exact reverse (shards
//   from the last, each read backward). Record keys are (shard key, _id),
//   so natural order is not insertion order (engine/README.md, "Natural
//   order").
//   kBlockingSort: any other sort: every match goes through a Sorter
//                  (engine/query/sorter.h): in memory up to the blocking-sort
//                  limit (100 MiB), then spilled to disk with allowDiskUse or
//                  QueryExceededMemoryLimitNoDiskUseAllowed (292) without;
//                  with a limit only the best skip+limit rows are kept
//                  (top-k, MongoDB's SORT with limitAmount).
//
//   kIndexScan:    the planner (engine/query/planner) chose an index: its
//                  key ranges are read from the index table of each shard
//                  read (one table for a unique index), table after table,
//                  each from a resume key (the last entry key read); each
//                  entry's record is fetched from its shard table (unless
//                  the plan is covered: the entry's key values are the
//                  document) and the filter re-checked unless the bounds
//                  are exact. Multikey indexes and OR plans dedupe record
//                  keys.
//   kIndexMerge:   the index provides the sort: the shards' index streams
//                  are merged by entry key (SORT_MERGE), no blocking sort.
//                  A sorted $or whose every branch's scan provides the sort
//                  (planner sort_merge) merges every branch's streams of
//                  every shard the same way, by the sort key of each
//                  stream's next document, each stream read in its own
//                  scan's direction; a record met in several branches is
//                  returned once (the first time).
//                  A sort against the index's directions (index {a: 1},
//                  sort {a: -1}) reads every stream backward: its ranges
//                  last to first, each from its upper end down, and merges
//                  the largest entry key first.
//
// Targeting: when the filter fixes the shard key by equality or $in, only
// the partitions of those values are read: one key-prefix range each (an
// index scan reads only those shards' index tables). When it fixes _id too
// (or the shard key is _id), each range is one record key: a point read
// per (shard key, _id) value (MongoDB's IDHACK), chosen before any index,
// since no index can do better.
//
// A cursor whose index is dropped fails its next getMore with
// QueryPlanKilled (175), as in MongoDB.
//
// Options (the find command's): hint (_id index, a secondary index or
// $natural), min/max bounds on the hinted index, returnKey (the index key
// of each result), showRecordId. tigerdoc has no
// integer record ids: $recordId is a stable 63-bit hash of the document's
// record key (storage::ShardHashV1), the same on every read of the same
// document, but not insertion-ordered as MongoDB's are.
//
// Interruption: every call checks the Interrupt (maxTimeMS deadline,
// killCursors) every few dozen documents examined.
//
// Thread-safety: none; a PlanExecutor belongs to one cursor, used by one
// request at a time. The Session passed to each call must be the caller's.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/fts/fts_query.h"
#include "engine/query/interrupt.h"
#include "engine/index/index_spec.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/planner/plan_cache.h"
#include "engine/query/planner/query_planner.h"
#include "engine/query/projection.h"
#include "engine/query/sort.h"
#include "engine/query/sorter.h"
#include "engine/storage/directed_cursor.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::query {

// One key range of one shard table.
struct ScanRange {
  int shard = 0;
  std::string lower;  // inclusive
  std::string upper;  // exclusive; empty = end of table
};

// Which access path the hint names: the _id index ("_id_" or {_id: 1}), a
// forward or backward collection scan ({$natural: 1} / {$natural: -1}), or
// a secondary index by name or key pattern (FindSpec::hint_index). A sort
// of {$natural: 1} or {$natural: -1} alone is the same collection scan.
enum class IndexHint { kNone, kIdIndex, kNaturalForward, kIndex, kNaturalBackward };

struct FindSpec {
  bson::BsonDoc filter;
  // The operation's collation (the command's, else the collection's
  // default): the filter, the sort and the index choice follow it. nullptr
  // is the simple (binary) collation. See engine/bson/collator.h.
  const bson::Collator* collator = nullptr;
  bson::BsonDoc projection;
  bson::BsonDoc sort;
  int64_t skip = 0;
  int64_t limit = 0;  // 0 = none
  bool allow_disk_use = false;
  // internalQueryMaxBlockingSortMemoryUsageBytes.
  int64_t max_sort_bytes = kDefaultMaxBlockingSortBytes;
  std::string temp_dir;  // where a spilling sort writes; empty = system temp
  IndexHint hint = IndexHint::kNone;
  // With kIndex: the hint as given, a name ({"": "a_1"}) or a key pattern.
  bson::BsonDoc hint_index;
  // Inclusive lower / exclusive upper bound on the hinted index, one value
  // per key field in key-pattern order ({_id: v}, {a: 1, b: 2});
  // empty = unbounded. Validated by Make() as MongoDB's planner does.
  bson::BsonDoc min;
  bson::BsonDoc max;
  bool return_key = false;
  bool show_record_id = false;
  // A tailable cursor of a capped collection (natural order): it stays open
  // at the end, and RearmTail() resumes it after the last record read;
  // `await_data`: its getMores wait for inserts.
  bool tailable = false;
  bool await_data = false;
  // distinct: its key. When the planner picks a DISTINCT_SCAN, results are
  // {<key>: value} documents, one per distinct leading-key value per index
  // table (distinct_scan()).
  std::string distinct_key;
  // Query variables (`let`), as the command gave them.
  bson::BsonDoc let;
  // Compiles $expr and computed projection fields with the command's
  // variables and $$NOW (engine/agg/query_expressions.h); null: the
  // default parser (expression_hook.h).
  std::shared_ptr<const ExpressionParser> expressions;
  // maxTimeMS of the request that creates the executor; later requests
  // (getMore) set theirs with SetInterrupt().
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// MongoDB's CanonicalQuery::toString() for error messages ("error
// processing query: <this> planner returned error ..."): exact for an empty
// filter; other filters are shown as relaxed JSON rather than MongoDB's
// match-tree debug string.
std::string QueryDescriptionForError(const std::string& ns, const FindSpec& spec);

struct ShardExecStats {
  int shard = 0;
  int64_t keys_examined = 0;
  int64_t docs_examined = 0;
  int64_t n_returned = 0;  // matches produced by this shard's scan
};

// What planning may use beyond the query: a storage engine for the key
// counts that cost index plans (none: every index plan costs the cap), and
// the plan cache.
struct PlannerContext {
  storage::StorageEngine* storage = nullptr;
  planner::PlanCache* cache = nullptr;
};

class PlanExecutor {
 public:
  enum class Access { kCollScan, kOrderedMerge, kIndexScan, kIndexMerge };

  // `collection` may be null: a missing collection reads as empty.
  // Planning errors as MongoDB's planner: min/max without a hint (51173),
  // with $natural (NoQueryExecutionPlans 291), not on the hinted index's key
  // pattern (51174), min not before max (51175); a hint naming no visible
  // index: BadValue (2).
  static StatusWith<std::unique_ptr<PlanExecutor>> Make(
      std::shared_ptr<catalog::CollectionEntry> collection, FindSpec spec,
      const PlannerContext& context = {});

  // The interrupt the next calls check (a getMore's deadline, the cursor's
  // kill flag).
  void SetInterrupt(const Interrupt& interrupt) { interrupt_ = interrupt; }

  // Counts one use of each index the chosen plan reads ($indexStats
  // accesses.ops): the secondary indexes of an index plan, the _id index
  // for an _id hint or a point read targeted by _id (MongoDB's IDHACK).
  // The operation calls it once when it runs the plan; explain does not.
  void RecordIndexUse() const;

  // Appends up to `max_docs` results to `out` (fewer when the batch reaches
  // `max_bytes`, but always at least one when any remain). Sets *exhausted
  // when no result remains.
  Status FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                   std::vector<bson::BsonDoc>* out, bool* exhausted);

  // Tailable cursors (a forward collection scan): lets the next FillBatch
  // read records added after the last one read. Returns that record's key
  // (nullopt when none was read yet).
  std::optional<std::string> RearmTail();

  // Counts the remaining results without building them (for count). With
  // `count_scan`, an index plan whose bounds are exact counts index entries
  // without fetching their documents (MongoDB's COUNT_SCAN).
  StatusWith<int64_t> CountAll(storage::Session& session, bool count_scan = false);
  // The plan can be a COUNT_SCAN: one exact index scan.
  bool CanCountScan() const;

  const std::vector<ScanRange>& ranges() const { return ranges_; }
  bool targeted() const { return targeted_; }
  // Every range is one record key (the filter fixes the shard key and _id).
  bool point_reads() const { return point_reads_; }
  // The filter's _id bounds that narrowed the ranges; null when none did.
  const planner::IndexBounds* id_bounds() const { return id_bounds_ ? &*id_bounds_ : nullptr; }
  bool sorted() const { return sort_.has_value(); }
  // The filter's $text bound to the text index (null: no $text), and that
  // index's name (explain's TEXT_MATCH).
  const fts::TextQuery* text_query() const { return text_query_.get(); }
  const std::string& text_index_name() const { return text_index_name_; }
  // The $text reads its terms from the text index (planner/text_plan.h):
  // plan() holds one scan per term. False: it scans the collection (a text
  // index of the earlier format, or of another collation than the query's).
  bool text_plan() const { return text_plan_; }
  // The equalities on the text index's prefix fields ({} when none).
  const bson::BsonDoc& text_index_prefix() const { return text_index_prefix_; }
  // The projection or the sort asks for {$meta: "textScore"} (explain:
  // MongoDB's TEXT_OR, which scores, instead of OR).
  bool wants_text_score() const {
    return !text_score_fields_.empty() || (sort_ && sort_->has_text_score());
  }
  Access access() const { return access_; }
  // Record keys (collection scans, ordered merges) or index entries (index
  // plans) are read in descending key order: {$natural: -1}, a record-key
  // order descending, an index read against its direction.
  bool backward() const { return direction_ == storage::ScanDirection::kBackward; }
  // A blocking sort runs (sorted() and no merge in sort order).
  bool blocking_sort() const {
    return sort_.has_value() && access_ != Access::kOrderedMerge && access_ != Access::kIndexMerge;
  }
  // The planner's choice; null when no index was considered (no secondary
  // index, a $natural or _id hint, min/max).
  const planner::PlanChoice* plan() const { return plan_ ? &*plan_ : nullptr; }
  // The winning plan reads an index (kIndexScan / kIndexMerge).
  bool index_plan() const { return access_ == Access::kIndexScan || access_ == Access::kIndexMerge; }
  // The plan is a DISTINCT_SCAN (FindSpec::distinct_key): each index table
  // yields one entry per value of the leading key field, skipping the rest.
  bool distinct_scan() const {
    return index_plan() && plan_->winner.kind == planner::QueryPlan::Kind::kIndexScan &&
           plan_->winner.scans[0].distinct_scan;
  }
  // Stats of the blocking sort; null before it ran or when there is none.
  const Sorter* sorter() const { return sorter_.get(); }
  const FindSpec& spec() const { return spec_; }
  const std::vector<ShardExecStats>& shard_stats() const { return shard_stats_; }
  int64_t total_docs_examined() const;
  int64_t total_keys_examined() const;
  int64_t n_returned() const { return n_returned_; }
  std::shared_ptr<catalog::CollectionEntry> collection() const { return collection_; }

 private:
  // One range's read position. The storage cursor lives only during one
  // call; between calls only keys and (in an ordered merge) the range's
  // next match are kept.
  struct RangeState {
    ScanRange range;
    std::optional<std::string> resume_after;  // last record key read
    bool exhausted = false;
    std::optional<storage::DirectedCursor> cursor;
    bool has_head = false;
    std::string head_key;
    bson::BsonDoc head_doc;
  };

  // One index table read by an index plan: the scan (plan_->winner.scans
  // index) it belongs to, and its read position, kept as keys between calls.
  struct IndexStream {
    size_t scan = 0;
    std::string table;
    int shard = -1;  // -1: a unique index's table, entries of every shard
    size_t range = 0;
    std::optional<std::string> resume_after;  // last entry key read in `range`
    bool exhausted = false;
    std::optional<storage::DirectedCursor> cursor;
    // Read against the index's directions (a merge whose scan is backward).
    bool backward = false;
    bool has_head = false;
    std::string head_key;  // the head's entry key
    bson::BsonDoc head_doc;
    // A SORT_MERGE of $or branches orders heads by the sort key of their
    // documents (entry keys of different indexes do not compare).
    std::string head_sort_key;
    // DISTINCT_SCAN: the next read starts at or after this key (past every
    // entry of the leading-field value just returned).
    std::optional<std::string> seek_to;
  };

  PlanExecutor() = default;
  Status ParseBounds();
  // MongoDB's planner error: "error processing query: <query> planner
  // returned error :: caused by :: <reason>".
  Status PlannerError(int code, const std::string& reason) const;
  // Replaces the hinted index plan's bounds by min/max (PlanIndexes).
  Status ApplyMinMax();
  Status PlanIndexes(const PlannerContext& context);
  // The text index plan of a $text query (text_plan()), when its index is
  // keyed by term and of the query's collation.
  Status PlanText();
  // The collection's text index when it is keyed by term and usable with
  // the query's collation (among indexes_); null otherwise.
  std::shared_ptr<const index::IndexSpec> TermKeyedTextIndex() const;
  void SetUpIndexStreams();
  int64_t CountKeys(storage::Session& session, const planner::IndexScanPlan& scan, int64_t cap);
  // Next result of one index stream (fetched or covered, filtered); false at its end.
  StatusWith<bool> NextMatchInStream(storage::Session& session, IndexStream& stream,
                                     std::string* key, bson::BsonDoc* doc);
  // QueryPlanKilled when an index the plan reads was dropped.
  Status CheckIndexesAlive() const;
  void ReleaseCursors();
  void Target();
  // REQUIRES: targeted by the shard key. Makes each range one record key
  // when the filter also fixes _id (point_reads()).
  void NarrowToPointReads();
  // A capped collection's records are keyed by insertion sequence; its
  // "<ident>-id" table maps _id to the record key. When the filter fixes
  // _id, reads just those records (point_reads(), explain IDHACK) instead
  // of the whole collection. REQUIRES: Target() ran.
  Status TargetCappedIds(storage::StorageEngine& storage);
  // Narrows the ranges to the _id bounds of the filter where record keys
  // order by _id: every shard of an _id-sharded collection, each targeted
  // partition of another (record key = shard key ++ _id).
  void NarrowToIdBounds();
  void ChooseAccess();
  // Next matching document of one range; false at its end.
  StatusWith<bool> NextMatchIn(storage::Session& session, RangeState& state, std::string* key,
                               bson::BsonDoc* doc);
  // Next matching document in access order; false at the end.
  StatusWith<bool> NextMatch(storage::Session& session, std::string* key, bson::BsonDoc* doc);
  Status LoadSorted(storage::Session& session);
  // Next result after sort, skip and limit, before projection.
  StatusWith<std::optional<bson::BsonDoc>> NextResult(storage::Session& session);
  // The document a client sees: returnKey / projection, then $recordId.
  StatusWith<bson::BsonDoc> Finish(bson::BsonDoc doc) const;
  bool InBounds(const bson_t* doc) const;
  bool AtEnd() const;
  // The merge takes the head that sorts first (an OR merge: by sort key).
  bool HeadBefore(const IndexStream& a, const IndexStream& b) const;
  // Merge order of two heads' keys: ascending, or descending when backward.
  bool Before(const std::string& a, const std::string& b) const {
    return backward() ? a > b : a < b;
  }
  // Between getMores an ordered merge keeps each range's or stream's next
  // match (its head); a head whose record (or index entry) was removed
  // since is dropped, so a getMore never returns a deleted document.
  Status DropRemovedHeads(storage::Session& session);
  ShardExecStats& StatsFor(int shard);

  std::shared_ptr<catalog::CollectionEntry> collection_;
  FindSpec spec_;
  Interrupt interrupt_;
  int examined_since_check_ = 0;
  std::unique_ptr<Matcher> matcher_;
  std::optional<Projection> projection_;
  std::optional<SortSpec> sort_;
  // The filter's $text bound to the text index (text_search.h); the
  // projection's {$meta: "textScore"} fields, filled from its Score().
  std::shared_ptr<const fts::TextQuery> text_query_;
  std::string text_index_name_;
  std::vector<std::string> text_score_fields_;
  // The projection's {$meta: "sortKey"} fields, filled from sort_.
  std::vector<std::string> sort_key_fields_;
  bool text_plan_ = false;
  bson::BsonDoc text_index_prefix_;
  std::vector<ScanRange> ranges_;
  bool targeted_ = false;
  bool point_reads_ = false;
  // The filter's _id bounds narrowed the ranges (explain: CLUSTERED_IXSCAN).
  std::optional<planner::IndexBounds> id_bounds_;
  Access access_ = Access::kCollScan;
  storage::ScanDirection direction_ = storage::ScanDirection::kForward;
  // Keystring bounds on _id from min/max; empty = none. Checked per
  // document unless folded into the ranges (collections sharded by _id).
  std::string min_id_key_;
  std::string max_id_key_;
  bool bounds_in_ranges_ = false;

  std::vector<RangeState> states_;
  size_t range_index_ = 0;  // kCollScan: the range being read

  std::shared_ptr<const index::IndexSet> indexes_;  // the snapshot planned with
  std::optional<planner::PlanChoice> plan_;
  std::vector<IndexStream> streams_;
  size_t stream_index_ = 0;  // kIndexScan: the stream being read
  // Record keys (shard-qualified) already produced, for multikey and OR plans.
  std::unordered_set<std::string> seen_records_;
  bool dedupe_ = false;
  bool merge_by_sort_key_ = false;  // a SORT_MERGE of $or branches
  bool count_only_ = false;  // CountAll as a COUNT_SCAN: entries are not fetched

  std::unique_ptr<Sorter> sorter_;
  bool sorted_loaded_ = false;

  // The result read after a batch was full by size (MongoDB's stash): the
  // first of the next batch, so a batch that ends at the last result is
  // known to be the last.
  std::optional<bson::BsonDoc> stashed_result_;

  int64_t skipped_ = 0;
  int64_t n_returned_ = 0;
  std::vector<ShardExecStats> shard_stats_;
};

}  // namespace tigerdoc::query
