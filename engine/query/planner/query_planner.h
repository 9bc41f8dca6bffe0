#pragma once
// QueryPlanner: the candidate plans of one query over one collection and the
// choice among them (MongoDB's QueryPlanner::plan plus a cheap stand-in for
// its multi-planner race).
//
// Candidates:
//   COLLSCAN                      always (the shard / partition scan)
//   IXSCAN [+ FETCH]              per visible index whose leading key field
//                                 the filter bounds, or that provides the
//                                 requested sort; sparse indexes only when
//                                 the filter excludes documents missing every
//                                 key field, partial indexes only when the
//                                 filter implies the partial filter
//   IXSCAN + PROJECTION_COVERED   when the projection and the filter need only
//                                 key fields that never held arrays
//   OR of IXSCANs + FETCH         for a top-level $or (or an $and holding one)
//                                 whose every branch has an index candidate
//   SORT_MERGE of IXSCANs + FETCH for a sorted top-level $or whose every
//                                 branch has an index scan giving the sort
//                                 (after its equality prefix, read forward or
//                                 backward): the branches' streams are merged
//                                 by sort key, no blocking sort (MongoDB's
//                                 MERGE_SORT, explain "SORT_MERGE"); records
//                                 matching several branches come once
//
// Choice: each index plan's cost is the number of index keys its bounds
// hold, counted by the caller's KeyCounter up to a cap (a bounded look at
// the index, as a trial run would), plus the fetches it implies; COLLSCAN
// costs the collection's document count. A blocking sort adds its input
// size; ties prefer covered, then exact, then sort-providing plans, then
// fewer fields. Explain shows the costs of the winner and the rejected
// plans. For distinct, an index plan that can be a DISTINCT_SCAN wins
// outright (the fewest key fields first). A hint bypasses the choice: an index by name or key pattern (hidden
// indexes cannot be hinted), or $natural.
//
// Thread-safety: pure functions over immutable inputs.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/index/index_spec.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/planner/index_bounds.h"
#include "engine/query/sort.h"

namespace tigerdoc::query::planner {

// One index scan: the index, its bounds and key ranges, and what it spares.
struct IndexScanPlan {
  std::shared_ptr<const index::IndexSpec> index;
  IndexShape shape;
  IndexBounds bounds;
  std::vector<KeyRange> ranges;
  size_t fields_enforced = 0;  // leading fields the ranges enforce; KeyInBounds checks the rest
  bool exact = false;          // the whole (branch) filter is implied by the bounds
  bool covered = false;        // no fetch: the projection and filter need only key values
  bool filter_on_keys = false; // covered and inexact: the filter runs on the key values
  bool provides_sort = false;  // entries come in the requested sort order
  bool backward = false;       // ... when read backward (the sort reverses the index's directions)
  bool multikey = false;       // entries may repeat a record: dedupe record keys
  // A distinct on the leading key field can read one entry per value
  // (DISTINCT_SCAN): the field is plain (never an array, not hashed) and
  // the bounds are exact.
  bool distinct_scan = false;
};

struct QueryPlan {
  enum class Kind { kCollScan, kIndexScan, kOr };
  Kind kind = Kind::kCollScan;
  std::vector<IndexScanPlan> scans;  // one for kIndexScan, one per branch for kOr
  // kOr: every branch's scan provides the sort (each its own direction):
  // the branches are merged in sort order (SORT_MERGE) instead of sorted.
  bool sort_merge = false;
  bool blocking_sort = false;
  int64_t cost = 0;
  // The filter must run on what the scans return.
  bool NeedsFilter() const;
  // "COLLSCAN", "IXSCAN a_1", "OR(IXSCAN a_1, IXSCAN b_1)",
  // "SORT_MERGE(IXSCAN a_1_x_1, IXSCAN b_1_x_1)": for logs, tests and the plan cache.
  std::string Describe() const;
};

struct PlanHint {
  enum class Kind { kNone, kNatural, kIndexName, kKeyPattern };
  Kind kind = Kind::kNone;
  std::string name;
  bson::BsonDoc key_pattern;
};

struct PlanRequest {
  const Matcher* matcher = nullptr;
  std::shared_ptr<const index::IndexSet> indexes;  // null or empty: no secondary index
  const SortSpec* sort = nullptr;                   // null: no sort
  const bson_t* projection = nullptr;               // null or empty: whole documents
  // returnKey / showRecordId / positional projections need documents.
  bool needs_documents = false;
  // find's min/max: a hinted wildcard index refuses them (51174).
  bool min_max = false;
  // distinct: its key. An index whose leading field it is becomes a
  // candidate, and a DISTINCT_SCAN candidate wins (as MongoDB prefers it).
  std::string distinct_key;
  PlanHint hint;
  int64_t collection_docs = 0;
  // A $text branch of the filter's top-level $or, or of an $or child of
  // its top-level $and, and the scans that read its terms (text_plan.h):
  // the OR plan of that $or takes them for that branch, and is then the
  // only plan (MongoDB's text predicate is mandatory). When another branch
  // has no index: NoQueryExecutionPlans, "Failed to produce a solution for
  // TEXT under OR ..." for the top-level $or, "No query solutions" for one
  // under $and (as MongoDB's query_planner.cpp).
  const MatchExpression* text_branch = nullptr;
  const MatchExpression* text_or = nullptr;  // the $or text_branch is a branch of
  std::vector<IndexScanPlan> text_scans;
  // The plan cache's winner for this query's shape (QueryPlan::Describe()):
  // chosen again without counting keys when it is still a candidate.
  std::optional<std::string> cached_winner;
};

struct PlanChoice {
  QueryPlan winner;
  std::vector<QueryPlan> rejected;
  bool from_cache = false;
};

// Counts the index keys a scan's ranges hold, stopping at `cap`.
using KeyCounter = std::function<int64_t(const IndexScanPlan& scan, int64_t cap)>;

// Keys counted per candidate before a plan is deemed "at least this big".
inline constexpr int64_t kCostCountCap = 10000;

// Plans the query. Errors: BadValue (2) "hint provided does not correspond
// to an existing index" for a hint naming no visible index (or a partial
// index the filter does not imply).
StatusWith<PlanChoice> ChoosePlan(const PlanRequest& request, const KeyCounter& count_keys);

// The IndexShape of an index spec (multikey per field from its multikey
// paths, the hashed-key function).
IndexShape ShapeOf(const index::IndexSpec& spec);

}  // namespace tigerdoc::query::planner
