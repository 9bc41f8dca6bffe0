#include "engine/bson/aligned_iter.h"
#include "engine/query/plan_executor.h"

#include "engine/query/planner/text_plan.h"
#include "engine/query/text_search.h"

#include <cstring>

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "engine/index/index_table.h"
#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"

namespace tigerdoc::query {
namespace {

// MongoDB checks for interruption every so many units of work; a clock read
// per 64 documents keeps the cost invisible.
constexpr int kInterruptCheckInterval = 64;

constexpr char kRecordIdField[] = "$recordId";
// With returnKey, an index plan's results carry the entry's key values
// under this name until Finish() makes them the result (a sort may run in
// between, on the document itself).
constexpr char kIndexKeyField[] = "$indexKey";

// The smallest key strictly greater than `key`: keys are compared
// lexicographically, so appending a zero byte gives the immediate successor.
std::string KeyAfter(const std::string& key) { return key + std::string(1, '\0'); }

template <typename F>
struct ScopeExit {
  F f;
  ~ScopeExit() { f(); }
};
template <typename F>
ScopeExit(F) -> ScopeExit<F>;

std::string Json(const bson::BsonDoc& doc) {
  if (doc.empty()) return "{}";  // BSONObj::toString() of an empty object
  size_t len = 0;
  char* json = bson_as_relaxed_extended_json(doc.get(), &len);
  std::string out = json ? std::string(json, len) : "{}";
  bson_free(json);
  return out;
}

// MongoDB checks that min and max name the same fields, in order, before
// it looks at the index (51176).
bool SameFieldNames(const bson::BsonDoc& a, const bson::BsonDoc& b) {
  bson_iter_t x, y;
  if (!bson_iter_init(&x, a.get()) || !bson_iter_init(&y, b.get())) return false;
  for (;;) {
    const bool more_x = bson_iter_next(&x);
    const bool more_y = bson_iter_next(&y);
    if (more_x != more_y) return false;
    if (!more_x) return true;
    if (std::strcmp(bson_iter_key(&x), bson_iter_key(&y)) != 0) return false;
  }
}

// The key of a one-field bound document ({_id: v}) on the _id index.
StatusWith<std::string> IdBoundKey(const bson::BsonDoc& bound) {
  bson_iter_t it;
  if (bson_count_keys(bound.get()) != 1 || !bson_iter_init(&it, bound.get()) ||
      !bson_iter_next(&it) || std::string_view(bson_iter_key(&it)) != "_id") {
    return Status(static_cast<ErrorCode>(51174), "The index chosen is not compatible with min/max");
  }
  return keystring::Encode(&it);
}

// Key values {"a.b": 1, c: 2} rebuilt as the document {a: {b: 1}, c: 2}
// (missing fields stay absent).
// AlignedIter: see engine/bson/aligned_iter.h.
using KeyItem = std::pair<std::vector<std::string>, bson::AlignedIter>;

void AppendNested(bson_t* out, std::vector<KeyItem>& items, size_t begin, size_t end, size_t depth) {
  std::vector<bool> done(end - begin, false);
  for (size_t i = begin; i < end; ++i) {
    if (done[i - begin]) continue;
    const std::string& name = items[i].first[depth];
    if (items[i].first.size() == depth + 1) {
      bson_append_iter(out, name.c_str(), -1, &items[i].second.it);
      done[i - begin] = true;
      continue;
    }
    // Every item under `name`, in order, becomes one sub-document.
    std::vector<KeyItem> group;
    for (size_t j = i; j < end; ++j) {
      if (!done[j - begin] && items[j].first[depth] == name && items[j].first.size() > depth + 1) {
        group.push_back(items[j]);
        done[j - begin] = true;
      }
    }
    bson_t sub;
    bson_append_document_begin(out, name.c_str(), -1, &sub);
    AppendNested(&sub, group, 0, group.size(), depth + 1);
    bson_append_document_end(out, &sub);
  }
}

bson::BsonDoc DocumentFromKeyValues(const bson_t* key_values) {
  std::vector<KeyItem> items;
  bson_iter_t it;
  if (bson_iter_init(&it, key_values)) {
    while (bson_iter_next(&it)) {
      bson::FieldPath path(bson_iter_key(&it));
      items.emplace_back(path.parts(), bson::AlignedIter{it});
    }
  }
  bson::BsonDoc out;
  AppendNested(out.mutable_get(), items, 0, items.size(), 0);
  return out;
}

// An entry's key values with every key field present, a missing one as
// null: the index stores null for it, and MongoDB hands out what the index
// holds, so a covered projection (PROJECTION_COVERED, or the rehydrated
// index key for dotted paths) and returnKey show {a: null} where the
// document has no `a`. `key_values` itself lacks missing fields (a filter
// run on the key values must see them missing).
bson::BsonDoc KeyValuesWithNulls(const bson_t* key_values, const planner::IndexShape& shape) {
  bson::BsonDoc filled;
  for (const planner::IndexKeyField& field : shape.fields) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, key_values, field.path.c_str())) {
      bson_append_iter(filled.mutable_get(), field.path.c_str(), -1, &it);
    } else {
      bson_append_null(filled.mutable_get(), field.path.c_str(), -1);
    }
  }
  return filled;
}

// The direction of a sort that is {$natural: n} alone; nullopt otherwise.
std::optional<int> NaturalSortDirection(const bson::BsonDoc& sort) {
  bson_iter_t it;
  if (sort.empty() || !bson_iter_init(&it, sort.get()) || !bson_iter_next(&it)) return std::nullopt;
  if (std::string_view(bson_iter_key(&it)) != "$natural" || !BSON_ITER_HOLDS_NUMBER(&it)) {
    return std::nullopt;
  }
  const double direction = bson_iter_as_double(&it);
  if (bson_iter_next(&it)) return std::nullopt;
  return direction < 0 ? -1 : 1;
}

bool IsNaturalHint(IndexHint hint) {
  return hint == IndexHint::kNaturalForward || hint == IndexHint::kNaturalBackward;
}

}  // namespace

std::string QueryDescriptionForError(const std::string& ns, const FindSpec& spec) {
  // MongoDB's CanonicalQuery::toString(): "ns=<ns>Tree: <match tree>\nSort:
  // <sort>\nProj: <projection>\n". The match tree is MongoDB's debug
  // string; for an empty filter it is "$and", otherwise we show the filter.
  std::string tree = spec.filter.empty() ? "$and" : Json(spec.filter);
  return "ns=" + ns + "Tree: " + tree + "\nSort: " + Json(spec.sort) +
         "\nProj: " + Json(spec.projection) + "\n";
}

// The indexes a query may use: those of its collation. An index's keys
// order strings by its collation, so another collation's equality or range
// would read the wrong keys (and its order would be the wrong sort).
// TODO(#19): MongoDB also uses an index of another collation for bounds
// that hold no strings; tigerdoc leaves such an index out.
static std::shared_ptr<const index::IndexSet> UsableIndexes(std::shared_ptr<const index::IndexSet> all,
                                                     const bson::Collator* collator) {
  if (!all) return all;
  bool all_usable = true;
  for (const auto& spec : all->specs) {
    if (!bson::SameCollation(spec->collator, collator)) all_usable = false;
  }
  if (all_usable) return all;  // the common case: no copy
  auto usable = std::make_shared<index::IndexSet>();
  usable->next_index_id = all->next_index_id;
  for (const auto& spec : all->specs) {
    if (bson::SameCollation(spec->collator, collator)) usable->specs.push_back(spec);
  }
  return usable;
}

StatusWith<std::unique_ptr<PlanExecutor>> PlanExecutor::Make(
    std::shared_ptr<catalog::CollectionEntry> collection, FindSpec spec,
    const PlannerContext& context) {
  std::unique_ptr<PlanExecutor> exec(new PlanExecutor());
  ASSIGN_OR_RETURN(exec->matcher_,
                   Matcher::Parse(spec.filter.get(), spec.expressions.get(), spec.collator));
  ASSIGN_OR_RETURN(exec->text_query_,
                   BindTextQuery(exec->matcher_.get(),
                                 collection ? collection->indexes().get() : nullptr));
  if (exec->text_query_) {
    for (const auto& index : collection->indexes()->specs) {
      if (index->text) exec->text_index_name_ = index->name;
    }
    if (spec.hint == IndexHint::kIndex) {
      return Status(ErrorCode::kBadValue, "text and hint not allowed in same query");
    }
  } else if (!collection && HasTextQuery(*exec->matcher_)) {
    // MongoDB adds " (no such collection '<ns>')", which the executor
    // cannot name.
    return Status(ErrorCode::kIndexNotFound, "text index required for $text query");
  }
  if (!spec.projection.empty()) {
    ASSIGN_OR_RETURN(MetaProjection split, SplitMetaProjection(spec.projection.get()));
    exec->text_score_fields_ = std::move(split.score_fields);
    exec->sort_key_fields_ = std::move(split.sort_key_fields);
    if (!exec->sort_key_fields_.empty() && spec.sort.empty()) {
      return Status(ErrorCode::kBadValue, "cannot use sortKey $meta projection without a sort");
    }
    if (!exec->text_score_fields_.empty() && !HasTextQuery(*exec->matcher_)) {
      return TextScoreUnavailable();
    }
    // The query goes along for the positional ($) projection.
    if (!split.rest.empty()) {
      ASSIGN_OR_RETURN(Projection projection,
                       Projection::Parse(split.rest.get(), spec.filter.get(),
                                         spec.expressions.get()));
      exec->projection_.emplace(std::move(projection));
    }
  }
  if (std::optional<int> natural = NaturalSortDirection(spec.sort)) {
    // {$natural: 1} / {$natural: -1}: the collection scan in that direction,
    // no sort (a hint other than $natural keeps its index, unsorted).
    if (spec.hint == IndexHint::kNone || spec.hint == IndexHint::kNaturalForward ||
        spec.hint == IndexHint::kNaturalBackward) {
      spec.hint = *natural > 0 ? IndexHint::kNaturalForward : IndexHint::kNaturalBackward;
    }
    spec.sort = bson::BsonDoc();
  }
  if (!spec.sort.empty()) {
    ASSIGN_OR_RETURN(SortSpec sort, SortSpec::Parse(spec.sort.get(), spec.collator,
                                                    /*allow_text_score=*/true));
    if (sort.has_text_score()) {
      if (!HasTextQuery(*exec->matcher_)) return TextScoreUnavailable();
      std::shared_ptr<const fts::TextQuery> text = exec->text_query_;
      sort.SetTextScorer([text](const bson_t* doc) { return text ? text->Score(doc) : 0.0; });
    }
    exec->sort_.emplace(std::move(sort));
  }
  if (spec.deadline) exec->interrupt_.set_deadline(spec.deadline);
  exec->collection_ = std::move(collection);
  exec->spec_ = std::move(spec);
  // A missing collection reads as empty without planning, as in MongoDB
  // (whose planner, and so its min/max errors, never runs then).
  if (exec->collection_) RETURN_IF_ERROR(exec->ParseBounds());
  exec->Target();
  if (exec->collection_ && context.storage) RETURN_IF_ERROR(exec->TargetCappedIds(*context.storage));
  exec->ChooseAccess();
  if (exec->collection_) RETURN_IF_ERROR(exec->PlanIndexes(context));
  return exec;
}

Status PlanExecutor::PlannerError(int code, const std::string& reason) const {
  return Status(static_cast<ErrorCode>(code),
                "error processing query: " + QueryDescriptionForError(collection_->metadata.ns, spec_) +
                    " planner returned error :: caused by :: " + reason);
}

Status PlanExecutor::ParseBounds() {
  bool has_min = !spec_.min.empty();
  bool has_max = !spec_.max.empty();
  if (!has_min && !has_max) return Status::OK();
  if (IsNaturalHint(spec_.hint)) {
    return PlannerError(static_cast<int>(ErrorCode::kNoQueryExecutionPlans),
                        "min and max are incompatible with $natural");
  }
  const bool hinted = spec_.hint == IndexHint::kIndex || spec_.hint == IndexHint::kIdIndex;
  if (!hinted) {
    return PlannerError(51173, "When using min()/max() a hint of which index to use must be provided");
  }
  if (has_min && has_max && !SameFieldNames(spec_.min, spec_.max)) {
    return PlannerError(51176, "min and max must have the same field names");
  }
  if (spec_.hint == IndexHint::kIndex) return Status::OK();  // checked once the index is known
  if (has_min) {
    auto key = IdBoundKey(spec_.min);
    if (!key.ok()) return PlannerError(51174, key.status().reason());
    min_id_key_ = std::move(key.value());
  }
  if (has_max) {
    auto key = IdBoundKey(spec_.max);
    if (!key.ok()) return PlannerError(51174, key.status().reason());
    max_id_key_ = std::move(key.value());
  }
  if (has_min && has_max && min_id_key_ >= max_id_key_) {
    return PlannerError(51175,
                        "The value provided for min() does not come before the value provided "
                        "for max() in the hinted index");
  }
  return Status::OK();
}

Status PlanExecutor::PlanIndexes(const PlannerContext& context) {
  indexes_ = UsableIndexes(collection_->indexes(), spec_.collator);
  // Every index left has the query's collation: bounds are built with it.
  planner::ScopedBoundsCollator bounds_collation(spec_.collator);
  const bool has_indexes = indexes_ && !indexes_->specs.empty();
  // The _id index and $natural keep their own access paths (min/max on the
  // _id index are record-key bounds, ParseBounds); min/max need a hint.
  if (spec_.hint == IndexHint::kIdIndex || IsNaturalHint(spec_.hint)) return Status::OK();
  if (spec_.hint == IndexHint::kNone && (!has_indexes || !spec_.min.empty() || !spec_.max.empty())) {
    return Status::OK();
  }
  // Point reads of the record keys the filter fixes beat any index.
  if (spec_.hint == IndexHint::kNone && point_reads_) return Status::OK();
  // A $text branch of a top-level $or is one branch of an OR plan (below);
  // any other $text is the text plan.
  const MatchExpression* text_branch = text_query_ ? TextBranchOfOr(*matcher_) : nullptr;
  if (text_query_ && text_branch == nullptr) return PlanText();
  planner::PlanRequest request;
  request.matcher = matcher_.get();
  request.indexes = indexes_;
  request.sort = sort_ ? &*sort_ : nullptr;
  request.projection = spec_.projection.empty() ? nullptr : spec_.projection.get();
  request.needs_documents = spec_.return_key || spec_.show_record_id ||
                            (projection_ && projection_->has_positional());
  request.collection_docs = collection_->store->TotalStats().count;
  request.distinct_key = spec_.distinct_key;
  request.min_max = !spec_.min.empty() || !spec_.max.empty();
  if (text_branch != nullptr) {
    std::shared_ptr<const index::IndexSpec> text_index = TermKeyedTextIndex();
    if (text_index) {
      StatusWith<planner::TextPlan> planned =
          planner::PlanTextSearch(text_branch, *text_query_, text_index);
      if (!planned.ok()) {
        return PlannerError(static_cast<int>(planned.status().code()), planned.status().reason());
      }
      request.text_branch = text_branch;
      request.text_or = OrWithTextBranch(*matcher_);
      request.text_scans = std::move(planned.value().plan.scans);
    }
  }
  std::string hint_text;
  if (spec_.hint == IndexHint::kIndex) {
    bson_iter_t it;
    if (bson_iter_init(&it, spec_.hint_index.get()) && bson_iter_next(&it) &&
        BSON_ITER_HOLDS_UTF8(&it) && std::string_view(bson_iter_key(&it)).empty()) {
      request.hint.kind = planner::PlanHint::Kind::kIndexName;
      request.hint.name = bson_iter_utf8(&it, nullptr);
    } else {
      request.hint.kind = planner::PlanHint::Kind::kKeyPattern;
      request.hint.key_pattern = spec_.hint_index.Copy();
    }
    hint_text = std::string(spec_.hint_index.bytes());
  }
  // Queries of different collations are different shapes.
  if (spec_.collator != nullptr) {
    hint_text += std::string(reinterpret_cast<const char*>(bson_get_data(spec_.collator->spec())),
                             spec_.collator->spec()->len);
  }
  const std::string shape = planner::PlanCache::ShapeOf(
      spec_.filter.get(), spec_.sort.get(), spec_.projection.get(), hint_text);
  const std::string& ident = collection_->store->ident();
  // A distinct plans afresh: its DISTINCT_SCAN preference is not a find's.
  const bool use_cache = context.cache && request.hint.kind == planner::PlanHint::Kind::kNone &&
                         spec_.distinct_key.empty() && request.text_branch == nullptr;
  if (use_cache) {
    request.cached_winner = context.cache->Lookup(ident, indexes_, shape);
  }
  std::optional<storage::Session> session;
  planner::KeyCounter counter;
  if (context.storage) {
    counter = [&](const planner::IndexScanPlan& scan, int64_t cap) {
      if (!session) session.emplace(context.storage->NewSession());
      return CountKeys(*session, scan, cap);
    };
  }
  StatusWith<planner::PlanChoice> chosen = planner::ChoosePlan(request, counter);
  if (!chosen.ok()) {
    const Status& error = chosen.status();
    // The planner's own failures carry MongoDB's "error processing query" frame.
    if (error.code() == ErrorCode::kBadValue) return error;
    return PlannerError(static_cast<int>(error.code()), error.reason());
  }
  planner::PlanChoice choice = std::move(chosen).value();
  if (use_cache && !choice.from_cache && !choice.rejected.empty()) {
    context.cache->Store(ident, indexes_, shape, choice.winner.Describe());
  }
  plan_ = std::move(choice);
  if (!spec_.min.empty() || !spec_.max.empty()) RETURN_IF_ERROR(ApplyMinMax());
  if (plan_->winner.kind != planner::QueryPlan::Kind::kCollScan) SetUpIndexStreams();
  return Status::OK();
}

std::shared_ptr<const index::IndexSpec> PlanExecutor::TermKeyedTextIndex() const {
  if (!indexes_) return nullptr;
  for (const auto& spec : indexes_->specs) {
    if (spec->text) return spec->fts_term_keys ? spec : nullptr;
  }
  return nullptr;
}

Status PlanExecutor::PlanText() {
  // An index of the earlier null-entry format, or of another collation
  // (its prefix values are other keys): the collection scan, still right.
  std::shared_ptr<const index::IndexSpec> text_index = TermKeyedTextIndex();
  if (!text_index) return Status::OK();
  StatusWith<planner::TextPlan> planned =
      planner::PlanTextSearch(matcher_->root(), *text_query_, text_index);
  if (!planned.ok()) {
    return PlannerError(static_cast<int>(planned.status().code()), planned.status().reason());
  }
  planner::TextPlan text = std::move(planned).value();
  text.plan.blocking_sort = sort_.has_value();
  text_index_prefix_ = std::move(text.index_prefix);
  plan_.emplace();
  plan_->winner = std::move(text.plan);
  text_plan_ = true;
  SetUpIndexStreams();
  return Status::OK();
}

// min/max on a hinted secondary index, as MongoDB's planner: each bound
// names the index's key fields, in order, and nothing else (51174); the
// scan reads [min, max) in index order (a field's direction included),
// from the start or to the end of the index when one is absent; min must
// come before max (51175). The filter then runs on every fetched document,
// and no sort is provided by the index.
Status PlanExecutor::ApplyMinMax() {
  planner::QueryPlan& plan = plan_->winner;
  planner::IndexScanPlan& scan = plan.scans[0];
  const index::IndexSpec& index = *scan.index;
  auto bound_key = [&](const bson::BsonDoc& bound) -> StatusWith<std::string> {
    keystring::KeyBuilder builder(index.collator);
    bson_iter_t it;
    size_t i = 0;
    if (bson_iter_init(&it, bound.get())) {
      while (bson_iter_next(&it)) {
        if (i >= index.fields.size() || index.fields[i].path.dotted() != bson_iter_key(&it)) break;
        builder.Append(&it, index.fields[i].dir);
        ++i;
      }
    }
    if (i != index.fields.size() || i != bson_count_keys(bound.get())) {
      return PlannerError(51174, "The index chosen is not compatible with min/max");
    }
    return builder.Release();
  };
  planner::KeyRange range;
  if (!spec_.min.empty()) {
    ASSIGN_OR_RETURN(range.lower, bound_key(spec_.min));
  }
  if (!spec_.max.empty()) {
    ASSIGN_OR_RETURN(range.upper, bound_key(spec_.max));
  }
  if (!spec_.min.empty() && !spec_.max.empty() && range.lower >= range.upper) {
    return PlannerError(51175,
                        "The value provided for min() does not come before the value provided "
                        "for max() in the hinted index");
  }
  scan.bounds = planner::IndexBounds::AllValues(index.fields.size());
  scan.ranges = {std::move(range)};
  scan.fields_enforced = index.fields.size();
  scan.exact = false;
  scan.covered = false;
  scan.filter_on_keys = false;
  scan.provides_sort = false;
  plan.blocking_sort = sort_.has_value();
  return Status::OK();
}

void PlanExecutor::SetUpIndexStreams() {
  const storage::ShardedRecordStore& store = *collection_->store;
  std::vector<int> shards;
  if (targeted_) {
    for (const ScanRange& range : ranges_) {
      if (std::find(shards.begin(), shards.end(), range.shard) == shards.end()) {
        shards.push_back(range.shard);
      }
    }
  }
  const planner::QueryPlan& plan = plan_->winner;
  for (size_t i = 0; i < plan.scans.size(); ++i) {
    const planner::IndexScanPlan& scan = plan.scans[i];
    if (scan.ranges.empty()) continue;  // bounds admit nothing
    if (targeted_ && shards.empty()) continue;
    for (const index::IndexTableRef& ref :
         index::IndexTablesFor(store.ident(), *scan.index, store.num_shards(), shards)) {
      IndexStream stream;
      stream.scan = i;
      stream.table = ref.table;
      stream.shard = ref.shard;
      streams_.push_back(std::move(stream));
    }
  }
  dedupe_ = plan.kind == planner::QueryPlan::Kind::kOr ||
            std::any_of(plan.scans.begin(), plan.scans.end(),
                        [](const planner::IndexScanPlan& s) { return s.multikey; });
  merge_by_sort_key_ = plan.kind == planner::QueryPlan::Kind::kOr && plan.sort_merge && sort_;
  access_ = (plan.kind == planner::QueryPlan::Kind::kIndexScan && sort_ && !plan.blocking_sort) ||
                    merge_by_sort_key_
                ? Access::kIndexMerge
                : Access::kIndexScan;
  // The index plan replaces whatever record-key access ChooseAccess picked.
  direction_ = storage::ScanDirection::kForward;
  if (access_ != Access::kIndexMerge) return;
  for (IndexStream& stream : streams_) stream.backward = plan.scans[stream.scan].backward;
  // One index: every stream runs one way, and entry keys order the merge.
  if (!merge_by_sort_key_ && plan.scans[0].backward) {
    direction_ = storage::ScanDirection::kBackward;
  }
}

bool PlanExecutor::HeadBefore(const IndexStream& a, const IndexStream& b) const {
  if (merge_by_sort_key_) return a.head_sort_key < b.head_sort_key;
  return Before(a.head_key, b.head_key);
}

int64_t PlanExecutor::CountKeys(storage::Session& session, const planner::IndexScanPlan& scan,
                                int64_t cap) {
  const storage::ShardedRecordStore& store = *collection_->store;
  int64_t n = 0;
  for (const index::IndexTableRef& ref :
       index::IndexTablesFor(store.ident(), *scan.index, store.num_shards())) {
    for (const planner::KeyRange& range : scan.ranges) {
      auto cursor = session.Scan(ref.table, range.lower, range.upper);
      if (!cursor.ok()) return cap;  // unreadable: never the cheap choice
      Status status;
      while (n < cap && cursor.value().Next(&status)) ++n;
      if (n >= cap) return cap;
    }
  }
  return n;
}

Status PlanExecutor::CheckIndexesAlive() const {
  if (!index_plan()) return Status::OK();
  std::shared_ptr<const index::IndexSet> now = collection_->indexes();
  for (const planner::IndexScanPlan& scan : plan_->winner.scans) {
    if (now == nullptr || now->FindById(scan.index->id) == nullptr) {
      return Status(ErrorCode::kQueryPlanKilled, "index '" + scan.index->name + "' dropped");
    }
  }
  return Status::OK();
}

void PlanExecutor::ReleaseCursors() {
  for (RangeState& state : states_) state.cursor.reset();
  for (IndexStream& stream : streams_) stream.cursor.reset();
}

StatusWith<bool> PlanExecutor::NextMatchInStream(storage::Session& session, IndexStream& stream,
                                                 std::string* key, bson::BsonDoc* out) {
  const planner::QueryPlan& plan = plan_->winner;
  const planner::IndexScanPlan& scan = plan.scans[stream.scan];
  const bool check_filter = plan.NeedsFilter();
  while (!stream.exhausted) {
    if (stream.range >= scan.ranges.size()) {
      stream.exhausted = true;
      break;
    }
    // Backward, the ranges are read last to first, each from its upper end.
    const planner::KeyRange& range =
        scan.ranges[stream.backward ? scan.ranges.size() - 1 - stream.range : stream.range];
    if (!stream.cursor) {
      std::string lower = range.lower;
      std::string upper = range.upper;
      if (stream.backward) {
        if (stream.resume_after) upper = *stream.resume_after;  // exclusive
      } else {
        if (stream.resume_after) lower = KeyAfter(*stream.resume_after);
        if (stream.seek_to && *stream.seek_to > lower) lower = *stream.seek_to;
      }
      if (!upper.empty() && lower >= upper) {
        stream.resume_after.reset();
        ++stream.range;
        continue;
      }
      ASSIGN_OR_RETURN(storage::DirectedCursor cursor,
                       storage::DirectedCursor::Open(session, stream.table, lower, upper,
                                                     stream.backward
                                                         ? storage::ScanDirection::kBackward
                                                         : storage::ScanDirection::kForward));
      stream.cursor.emplace(std::move(cursor));
    }
    Status status;
    if (!stream.cursor->Next(&status)) {
      RETURN_IF_ERROR(status);
      stream.cursor.reset();
      stream.resume_after.reset();
      ++stream.range;
      continue;
    }
    if (++examined_since_check_ >= kInterruptCheckInterval) {
      examined_since_check_ = 0;
      RETURN_IF_ERROR(interrupt_.Check());
    }
    std::string_view entry_key = stream.cursor->key();
    stream.resume_after.emplace(entry_key.data(), entry_key.size());
    ASSIGN_OR_RETURN(index::IndexEntry entry,
                     index::DecodeIndexEntry(entry_key, stream.cursor->value()));
    ShardExecStats& stats = StatsFor(entry.shard);
    ++stats.keys_examined;
    if (!scan.bounds.KeyInBounds(entry.key_values.get(), scan.shape, scan.fields_enforced)) continue;
    if (dedupe_) {
      std::string id = std::to_string(entry.shard) + ":" + entry.record_key;
      if (!seen_records_.insert(std::move(id)).second) continue;
    }
    bson::BsonDoc doc;
    if (distinct_scan()) {
      // DISTINCT_SCAN: the leading field's value, then a seek past every
      // entry with that value (its encoding is a prefix of theirs). A
      // missing field contributes nothing and, since it encodes like null,
      // is stepped over one entry at a time so a real null is not skipped.
      bson_iter_t value;
      const index::IndexField& field = scan.index->fields[0];
      if (!bson_iter_init_find(&value, entry.key_values.get(), field.path.dotted().c_str())) continue;
      // The entry's key holds the index's collation key for strings: the
      // seek key must be built the same way (which also steps over every
      // value equal under the collation, as MongoDB's distinct does).
      keystring::KeyBuilder prefix(scan.index->collator);
      prefix.Append(&value, field.dir);
      std::string next = keystring::PrefixSuccessor(prefix.bytes());
      if (next.empty()) {
        stream.exhausted = true;
      } else {
        stream.seek_to = std::move(next);
      }
      stream.cursor.reset();
      doc = DocumentFromKeyValues(entry.key_values.get());
    } else if (count_only_) {
      // COUNT_SCAN: exact bounds, the entry alone is a match.
    } else if (scan.covered) {
      if (scan.filter_on_keys &&
          !matcher_->Matches(DocumentFromKeyValues(entry.key_values.get()).get())) {
        continue;
      }
      doc = DocumentFromKeyValues(KeyValuesWithNulls(entry.key_values.get(), scan.shape).get());
    } else {
      ASSIGN_OR_RETURN(std::optional<std::string> record,
                       session.Get(collection_->store->TableName(entry.shard), entry.record_key));
      if (!record) continue;  // removed since the entry was read
      ++stats.docs_examined;
      ASSIGN_OR_RETURN(doc, bson::BsonDoc::FromBytes(
                                reinterpret_cast<const uint8_t*>(record->data()), record->size()));
      if (check_filter && !matcher_->Matches(doc.get())) continue;
    }
    ++stats.n_returned;
    *key = *stream.resume_after;
    if (spec_.return_key) {
      BSON_APPEND_DOCUMENT(doc.mutable_get(), kIndexKeyField,
                           KeyValuesWithNulls(entry.key_values.get(), scan.shape).get());
    }
    if (spec_.show_record_id) {
      int64_t record_id = static_cast<int64_t>(storage::ShardHashV1(entry.record_key) & INT64_MAX);
      BSON_APPEND_INT64(doc.mutable_get(), kRecordIdField, record_id);
    }
    *out = std::move(doc);
    return true;
  }
  stream.cursor.reset();
  return false;
}

// Chooses the ranges to read: one partition prefix per shard-key value the
// filter fixes, or every whole shard table; min/max narrow them when the
// record key starts with _id.
void PlanExecutor::Target() {
  if (!collection_) return;
  const storage::ShardedRecordStore& store = *collection_->store;
  // A capped store's record keys lead with the insertion sequence: no
  // filter narrows them to a partition.
  std::optional<std::vector<bson::BsonDoc>> values =
      store.capped() ? std::nullopt : matcher_->EqualityValuesFor(store.shard_key_field());
  if (values) {
    targeted_ = true;
    // A hash set: a $in of 100,000 _ids must not cost n^2 comparisons.
    std::unordered_set<std::string> seen;
    for (const bson::BsonDoc& value_doc : *values) {
      bson_iter_t it;
      if (!bson_iter_init(&it, value_doc.get()) || !bson_iter_next(&it)) continue;
      const bson_value_t* value = bson_iter_value(&it);
      std::string prefix = storage::ShardedRecordStore::PartitionPrefix(value);
      if (!seen.insert(prefix).second) continue;  // $in duplicates
      ranges_.push_back(ScanRange{store.ShardForValue(value), prefix,
                                  keystring::PrefixSuccessor(prefix)});
    }
    NarrowToPointReads();
    // Read shards in order so results come in the same order as a full scan.
    std::sort(ranges_.begin(), ranges_.end(), [](const ScanRange& a, const ScanRange& b) {
      return a.shard != b.shard ? a.shard < b.shard : a.lower < b.lower;
    });
  } else {
    for (int shard = 0; shard < store.num_shards(); ++shard) {
      ranges_.push_back(ScanRange{shard, "", ""});
    }
  }
  if (!point_reads_) NarrowToIdBounds();
  // Sharded by _id, a record key is keystring(_id) ++ keystring(_id): the
  // _id bounds are record-key bounds.
  if (store.shard_key_is_id() && (!min_id_key_.empty() || !max_id_key_.empty())) {
    bounds_in_ranges_ = true;
    std::vector<ScanRange> narrowed;
    for (ScanRange range : ranges_) {
      if (!min_id_key_.empty()) range.lower = std::max(range.lower, min_id_key_);
      if (!max_id_key_.empty()) {
        range.upper = range.upper.empty() ? max_id_key_ : std::min(range.upper, max_id_key_);
      }
      if (range.upper.empty() || range.lower < range.upper) narrowed.push_back(std::move(range));
    }
    ranges_ = std::move(narrowed);
  }
  for (const ScanRange& range : ranges_) {
    RangeState state;
    state.range = range;
    states_.push_back(std::move(state));
  }
}

void PlanExecutor::NarrowToPointReads() {
  const storage::ShardedRecordStore& store = *collection_->store;
  // Sharded by _id, a partition holds one record: each range is one already.
  if (store.shard_key_is_id()) {
    point_reads_ = true;
    return;
  }
  std::optional<std::vector<bson::BsonDoc>> ids = matcher_->EqualityValuesFor("_id");
  // Past a few thousand combinations the partition ranges read less.
  constexpr size_t kMaxPointReads = 4096;
  if (!ids || ids->size() * ranges_.size() > kMaxPointReads) return;
  std::vector<ScanRange> points;
  for (const ScanRange& partition : ranges_) {
    for (const bson::BsonDoc& id_doc : *ids) {
      bson_iter_t it;
      if (!bson_iter_init(&it, id_doc.get()) || !bson_iter_next(&it)) continue;
      // A record key is keystring(shard key value) ++ keystring(_id).
      std::string record_key = partition.lower + keystring::Encode(&it);
      std::string upper = keystring::PrefixSuccessor(record_key);
      points.push_back(ScanRange{partition.shard, std::move(record_key), std::move(upper)});
    }
  }
  // $in may repeat a value: one read per record key.
  std::sort(points.begin(), points.end(),
            [](const ScanRange& a, const ScanRange& b) { return a.lower < b.lower; });
  points.erase(std::unique(points.begin(), points.end(),
                           [](const ScanRange& a, const ScanRange& b) { return a.lower == b.lower; }),
               points.end());
  ranges_ = std::move(points);
  point_reads_ = true;
}

Status PlanExecutor::TargetCappedIds(storage::StorageEngine& storage) {
  const storage::ShardedRecordStore& store = *collection_->store;
  // A tailable cursor re-arms a scan after its last record; min/max bound
  // the scan by _id keys of their own.
  if (!store.capped() || spec_.tailable || !spec_.min.empty() || !spec_.max.empty()) {
    return Status::OK();
  }
  // Under a collation a string _id is not one keystring (nullopt then).
  std::optional<std::vector<bson::BsonDoc>> ids = matcher_->EqualityValuesFor("_id");
  constexpr size_t kMaxPointReads = 4096;  // past it the scan reads less
  if (!ids || ids->size() > kMaxPointReads) return Status::OK();
  storage::Session session = storage.NewSession();
  std::vector<std::string> record_keys;
  for (const bson::BsonDoc& id_doc : *ids) {
    bson_iter_t it;
    if (!bson_iter_init(&it, id_doc.get()) || !bson_iter_next(&it)) continue;
    ASSIGN_OR_RETURN(std::optional<std::string> record_key,
                     session.Get(storage::ShardedRecordStore::IdTableName(store.ident()),
                                 keystring::Encode(&it)));
    if (record_key) record_keys.push_back(std::move(*record_key));
  }
  // Insertion order, as the scan would return them; $in may repeat a value.
  std::sort(record_keys.begin(), record_keys.end());
  record_keys.erase(std::unique(record_keys.begin(), record_keys.end()), record_keys.end());
  ranges_.clear();
  states_.clear();
  for (std::string& record_key : record_keys) {
    std::string upper = keystring::PrefixSuccessor(record_key);
    RangeState state;
    state.range = ScanRange{0, std::move(record_key), std::move(upper)};
    ranges_.push_back(state.range);
    states_.push_back(std::move(state));
  }
  point_reads_ = true;
  return Status::OK();
}

void PlanExecutor::NarrowToIdBounds() {
  const storage::ShardedRecordStore& store = *collection_->store;
  if (!store.shard_key_is_id() && !targeted_) return;
  // Record keys are binary: _id string bounds of a collated query are not
  // record-key ranges.
  if (spec_.collator != nullptr) return;
  planner::IndexShape id_shape;
  id_shape.fields.push_back(planner::IndexKeyField{"_id", keystring::Direction::kAscending, false, false});
  planner::ConjunctionBounds cb = planner::BoundsForConjunction(matcher_->root(), id_shape);
  if (!cb.leading_field_bounded) return;
  size_t enforced = 0;
  // _id ranges as keystring ranges; a record key whose _id lies in one
  // starts with a keystring inside it (keystrings are self-delimiting).
  std::vector<planner::KeyRange> id_ranges = cb.bounds.ToKeyRanges(id_shape, &enforced);
  std::vector<ScanRange> narrowed;
  for (const ScanRange& range : ranges_) {
    // The part of the record key before _id: none when sharded by _id,
    // else the partition prefix (the range is one partition).
    const std::string prefix = store.shard_key_is_id() ? "" : range.lower;
    for (const planner::KeyRange& ids : id_ranges) {
      ScanRange piece = range;
      piece.lower = std::max(range.lower, prefix + ids.lower);
      std::string upper;  // empty: to the end of the table
      if (!ids.upper.empty()) {
        upper = prefix + ids.upper;
      } else if (!prefix.empty()) {
        upper = keystring::PrefixSuccessor(prefix);
      }
      if (!upper.empty() && (range.upper.empty() || upper < range.upper)) piece.upper = upper;
      if (piece.upper.empty() || piece.lower < piece.upper) narrowed.push_back(std::move(piece));
    }
  }
  ranges_ = std::move(narrowed);
  id_bounds_ = std::move(cb.bounds);
}

void PlanExecutor::ChooseAccess() {
  if (!collection_) return;
  // Capped: record order is insertion order, which no sort field names.
  const std::string shard_key =
      collection_->store->capped() ? std::string() : collection_->store->shard_key_field();
  auto on = [](const SortSpec::Field& f, const std::string& path, keystring::Direction d) {
    return !f.text_score && f.direction == d && f.path.dotted() == path;
  };
  if (sort_) {
    // Shard key values are never arrays and a missing one is null, exactly
    // as a sort key treats them, so the record-key order is this sort order
    // (ascending), or its reverse (every field descending). Not under a
    // collation: record keys order strings by bytes.
    const auto& fields = sort_->fields();
    for (keystring::Direction d :
         {keystring::Direction::kAscending, keystring::Direction::kDescending}) {
      const bool record_order =
          sort_->collator() == nullptr && on(fields[0], shard_key, d) &&
          (fields.size() == 1 || (fields.size() == 2 && shard_key != "_id" && on(fields[1], "_id", d)));
      if (!record_order) continue;
      access_ = Access::kOrderedMerge;
      if (d == keystring::Direction::kDescending) direction_ = storage::ScanDirection::kBackward;
    }
  } else if (spec_.hint == IndexHint::kIdIndex && collection_->store->shard_key_is_id()) {
    // Each shard table is clustered by _id: scanning the "_id index" is
    // merging them in record-key order.
    access_ = Access::kOrderedMerge;
  } else if (spec_.hint == IndexHint::kNaturalBackward) {
    // Natural order reversed: the last range first, each read backward.
    direction_ = storage::ScanDirection::kBackward;
    states_.clear();  // nothing read yet: rebuilt last range first
    for (auto range = ranges_.rbegin(); range != ranges_.rend(); ++range) {
      RangeState state;
      state.range = *range;
      states_.push_back(std::move(state));
    }
  }
}

ShardExecStats& PlanExecutor::StatsFor(int shard) {
  for (ShardExecStats& s : shard_stats_) {
    if (s.shard == shard) return s;
  }
  shard_stats_.push_back(ShardExecStats{shard, 0, 0, 0});
  return shard_stats_.back();
}

int64_t PlanExecutor::total_keys_examined() const {
  return std::accumulate(shard_stats_.begin(), shard_stats_.end(), int64_t{0},
                         [](int64_t sum, const ShardExecStats& s) { return sum + s.keys_examined; });
}

void PlanExecutor::RecordIndexUse() const {
  if (!collection_) return;
  if (index_plan()) {
    // An OR plan may scan one index in several branches: one use each.
    std::unordered_set<const index::IndexSpec*> counted;
    for (const planner::IndexScanPlan& scan : plan_->winner.scans) {
      if (counted.insert(scan.index.get()).second) scan.index->usage->Record();
    }
    return;
  }
  // The record keys of an _id-sharded collection are its _id index: a hinted
  // _id scan, or point reads of the _id values the filter fixes (MongoDB's
  // IDHACK / _id IXSCAN).
  if (spec_.hint == IndexHint::kIdIndex || point_reads_) {
    collection_->id_index_usage->Record();
  }
}

int64_t PlanExecutor::total_docs_examined() const {
  return std::accumulate(shard_stats_.begin(), shard_stats_.end(), int64_t{0},
                         [](int64_t sum, const ShardExecStats& s) { return sum + s.docs_examined; });
}

bool PlanExecutor::InBounds(const bson_t* doc) const {
  if (bounds_in_ranges_ || (min_id_key_.empty() && max_id_key_.empty())) return true;
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, "_id")) return false;
  std::string key = keystring::Encode(&it);
  return (min_id_key_.empty() || key >= min_id_key_) && (max_id_key_.empty() || key < max_id_key_);
}

StatusWith<bool> PlanExecutor::NextMatchIn(storage::Session& session, RangeState& state,
                                           std::string* key, bson::BsonDoc* out) {
  if (state.exhausted) return false;
  ShardExecStats& stats = StatsFor(state.range.shard);
  const std::string table = collection_->store->TableName(state.range.shard);
  if (!state.cursor) {
    std::string lower = state.range.lower;
    std::string upper = state.range.upper;
    if (state.resume_after) {
      if (backward()) {
        upper = *state.resume_after;  // exclusive: from the key before it
      } else {
        lower = KeyAfter(*state.resume_after);
      }
    }
    ASSIGN_OR_RETURN(storage::DirectedCursor cursor,
                     storage::DirectedCursor::Open(session, table, lower, upper, direction_));
    state.cursor.emplace(std::move(cursor));
  }
  Status status;
  while (state.cursor->Next(&status)) {
    ++stats.docs_examined;
    if (++examined_since_check_ >= kInterruptCheckInterval) {
      examined_since_check_ = 0;
      RETURN_IF_ERROR(interrupt_.Check());
    }
    std::string_view record_key = state.cursor->key();
    state.resume_after.emplace(record_key.data(), record_key.size());
    bson_t doc;
    std::string_view value = state.cursor->value();
    if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(value.data()), value.size())) {
      return Status(ErrorCode::kInternalError, "corrupt document in " + table);
    }
    if (!InBounds(&doc)) continue;
    if (!matcher_->Matches(&doc)) {
      RETURN_IF_ERROR(matcher_->EvaluationError());  // an $expr failed on this document
      continue;
    }
    ++stats.n_returned;
    *key = *state.resume_after;
    *out = bson::BsonDoc::CopyOf(&doc);
    if (spec_.show_record_id) {
      // Stable per record: the record key never changes while the document
      // lives. 63 bits keep it a positive NumberLong.
      int64_t record_id = static_cast<int64_t>(storage::ShardHashV1(*key) & INT64_MAX);
      BSON_APPEND_INT64(out->mutable_get(), kRecordIdField, record_id);
    }
    return true;
  }
  RETURN_IF_ERROR(status);
  state.cursor.reset();
  state.exhausted = true;
  return false;
}

StatusWith<bool> PlanExecutor::NextMatch(storage::Session& session, std::string* key,
                                         bson::BsonDoc* doc) {
  if (access_ == Access::kIndexScan) {
    while (stream_index_ < streams_.size()) {
      ASSIGN_OR_RETURN(bool found, NextMatchInStream(session, streams_[stream_index_], key, doc));
      if (found) return true;
      ++stream_index_;
    }
    return false;
  }
  if (access_ == Access::kIndexMerge) {
    // SORT_MERGE: every stream is in sort order; take the first head
    // (one index: by entry key, which ends with the record key, a stable
    // order; $or branches: by sort key).
    IndexStream* best = nullptr;
    for (IndexStream& stream : streams_) {
      if (!stream.has_head) {
        ASSIGN_OR_RETURN(stream.has_head,
                         NextMatchInStream(session, stream, &stream.head_key, &stream.head_doc));
        if (stream.has_head && merge_by_sort_key_) {
          stream.head_sort_key = sort_->KeyFor(stream.head_doc.get());
        }
      }
      if (stream.has_head && (best == nullptr || HeadBefore(stream, *best))) best = &stream;
    }
    if (best == nullptr) return false;
    *key = std::move(best->head_key);
    *doc = std::move(best->head_doc);
    best->has_head = false;
    return true;
  }
  if (access_ == Access::kCollScan) {
    while (range_index_ < states_.size()) {
      ASSIGN_OR_RETURN(bool found, NextMatchIn(session, states_[range_index_], key, doc));
      if (found) return true;
      ++range_index_;
    }
    return false;
  }
  // Ordered merge: refill every range's head, then take the smallest.
  RangeState* best = nullptr;
  for (RangeState& state : states_) {
    if (!state.has_head) {
      ASSIGN_OR_RETURN(state.has_head, NextMatchIn(session, state, &state.head_key, &state.head_doc));
    }
    if (state.has_head && (best == nullptr || Before(state.head_key, best->head_key))) best = &state;
  }
  if (best == nullptr) return false;
  *key = std::move(best->head_key);
  *doc = std::move(best->head_doc);
  best->has_head = false;
  return true;
}

Status PlanExecutor::LoadSorted(storage::Session& session) {
  SorterOptions options;
  options.max_memory_bytes = spec_.max_sort_bytes;
  options.allow_disk_use = spec_.allow_disk_use;
  options.temp_dir = spec_.temp_dir;
  if (spec_.limit > 0) {
    options.limit = spec_.skip > INT64_MAX - spec_.limit ? 0 : spec_.skip + spec_.limit;
  }
  sorter_ = std::make_unique<Sorter>(std::move(options));
  std::string record_key;
  bson::BsonDoc doc;
  while (true) {
    ASSIGN_OR_RETURN(bool found, NextMatch(session, &record_key, &doc));
    if (!found) break;
    std::string sort_key = sort_->KeyFor(doc.get());
    RETURN_IF_ERROR(sorter_->Add(std::move(sort_key), std::move(doc)));
  }
  RETURN_IF_ERROR(interrupt_.Check());
  RETURN_IF_ERROR(sorter_->Done());
  sorted_loaded_ = true;
  return Status::OK();
}

StatusWith<std::optional<bson::BsonDoc>> PlanExecutor::NextResult(storage::Session& session) {
  if (!collection_) return std::optional<bson::BsonDoc>();
  if (spec_.limit > 0 && n_returned_ >= spec_.limit) return std::optional<bson::BsonDoc>();
  while (true) {
    bson::BsonDoc doc;
    bool found = false;
    if (blocking_sort()) {
      if (!sorted_loaded_) RETURN_IF_ERROR(LoadSorted(session));
      ASSIGN_OR_RETURN(found, sorter_->Next(&doc));
    } else {
      std::string record_key;
      ASSIGN_OR_RETURN(found, NextMatch(session, &record_key, &doc));
    }
    if (!found) return std::optional<bson::BsonDoc>();
    if (skipped_ < spec_.skip) {
      ++skipped_;
      continue;
    }
    ++n_returned_;
    return std::optional<bson::BsonDoc>(std::move(doc));
  }
}

StatusWith<bson::BsonDoc> PlanExecutor::Finish(bson::BsonDoc doc) const {
  std::optional<int64_t> record_id;
  if (spec_.show_record_id) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, doc.get(), kRecordIdField)) record_id = bson_iter_int64(&it);
  }
  bson::BsonDoc out;
  if (spec_.return_key) {
    // The index key that produced the document, {<key field>: value, ...}
    // in key-pattern order with dotted names as in the pattern (MongoDB's
    // RETURN_KEY); {_id: v} on the _id index; nothing for a collection
    // scan (MongoDB returns {} then), and for $text, whose documents come
    // fetched from its TEXT_MATCH, without an index key.
    bson_iter_t it;
    if (index_plan() && !text_query_ && bson_iter_init_find(&it, doc.get(), kIndexKeyField) &&
        BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      out = bson::BsonDoc::CopyOf(data, len);
    } else if (spec_.hint == IndexHint::kIdIndex && bson_iter_init_find(&it, doc.get(), "_id")) {
      bson_append_iter(out.mutable_get(), "_id", 3, &it);
    }
  } else if (projection_) {
    ASSIGN_OR_RETURN(out, projection_->Apply(doc.get(), nullptr));
  } else if (!record_id && text_score_fields_.empty() && sort_key_fields_.empty()) {
    return doc;
  } else {
    out = doc.Copy();
  }
  if (!text_score_fields_.empty() && !spec_.return_key) {
    const double score = text_query_ ? text_query_->Score(doc.get()) : 0.0;
    out = WithTextScore(out.get(), text_score_fields_, score);
  }
  if (!sort_key_fields_.empty() && !spec_.return_key) {
    // A {$natural: ...} sort is no sort here: its key is empty.
    bson_t key_array = BSON_INITIALIZER;
    if (sort_) sort_->AppendSortKey(doc.get(), &key_array);
    bson_value_t key;
    key.value_type = BSON_TYPE_ARRAY;
    key.value.v_doc.data = const_cast<uint8_t*>(bson_get_data(&key_array));
    key.value.v_doc.data_len = key_array.len;
    out = WithMetaValue(out.get(), sort_key_fields_, &key);
    bson_destroy(&key_array);
  }
  if (record_id) {
    // $recordId goes last, whatever the projection made of it.
    bson::BsonDoc without;
    bson_copy_to_excluding_noinit(out.get(), without.mutable_get(), kRecordIdField, nullptr);
    BSON_APPEND_INT64(without.mutable_get(), kRecordIdField, *record_id);
    return without;
  }
  return out;
}

bool PlanExecutor::AtEnd() const {
  if (stashed_result_) return false;
  if (collection_ == nullptr) return true;
  if (spec_.limit > 0 && n_returned_ >= spec_.limit) return true;
  if (blocking_sort()) return sorted_loaded_ && sorter_->AtEnd();
  if (access_ == Access::kCollScan) return range_index_ >= states_.size();
  if (access_ == Access::kIndexScan) return stream_index_ >= streams_.size();
  if (access_ == Access::kIndexMerge) {
    return std::all_of(streams_.begin(), streams_.end(),
                       [](const IndexStream& s) { return s.exhausted && !s.has_head; });
  }
  return std::all_of(states_.begin(), states_.end(),
                     [](const RangeState& s) { return s.exhausted && !s.has_head; });
}

Status PlanExecutor::DropRemovedHeads(storage::Session& session) {
  // The head's key was the last one read (resume_after), so dropping it
  // resumes the range right after it.
  for (RangeState& state : states_) {
    if (!state.has_head) continue;
    ASSIGN_OR_RETURN(std::optional<std::string> record,
                     session.Get(collection_->store->TableName(state.range.shard), state.head_key));
    if (!record) state.has_head = false;
  }
  for (IndexStream& stream : streams_) {
    if (!stream.has_head) continue;
    ASSIGN_OR_RETURN(std::optional<std::string> entry, session.Get(stream.table, stream.head_key));
    if (!entry) stream.has_head = false;
  }
  return Status::OK();
}

Status PlanExecutor::FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                               std::vector<bson::BsonDoc>* out, bool* exhausted) {
  // Storage cursors live only for this call: between getMores the executor
  // keeps resume keys instead, so it pins no storage resources.
  ScopeExit release_cursors{[this] { ReleaseCursors(); }};
  *exhausted = false;
  RETURN_IF_ERROR(interrupt_.Check());
  RETURN_IF_ERROR(CheckIndexesAlive());
  RETURN_IF_ERROR(DropRemovedHeads(session));
  int64_t bytes = 0;
  while (static_cast<int64_t>(out->size()) < max_docs) {
    bson::BsonDoc result;
    if (stashed_result_) {
      result = std::move(*stashed_result_);
      stashed_result_.reset();
    } else {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextResult(session));
      if (!doc) {
        *exhausted = true;
        return Status::OK();
      }
      ASSIGN_OR_RETURN(result, Finish(std::move(*doc)));
    }
    // As MongoDB: the first result always goes; a later one that would
    // pass the size limit waits for the next batch. Reading it is what
    // tells a batch ending at the last result from one with more to come.
    const int64_t size = static_cast<int64_t>(result.size());
    if (!out->empty() && bytes + size > max_bytes) {
      stashed_result_ = std::move(result);
      break;
    }
    bytes += size;
    out->push_back(std::move(result));
  }
  // A batch that ends exactly at the last result (batchSize reached) still
  // reports the cursor open when the executor cannot tell without reading
  // ahead (a scan with ranges left); the next getMore then returns an empty
  // final batch, as MongoDB does.
  *exhausted = AtEnd();
  return interrupt_.Check();
}

std::optional<std::string> PlanExecutor::RearmTail() {
  std::optional<std::string> last;
  for (RangeState& state : states_) {
    state.exhausted = false;
    state.cursor.reset();
    if (state.resume_after) last = state.resume_after;
  }
  range_index_ = 0;
  return last;
}

bool PlanExecutor::CanCountScan() const {
  return index_plan() && plan_->winner.kind == planner::QueryPlan::Kind::kIndexScan &&
         !plan_->winner.NeedsFilter() && !spec_.show_record_id;
}

StatusWith<int64_t> PlanExecutor::CountAll(storage::Session& session, bool count_scan) {
  count_only_ = count_scan && CanCountScan();
  ScopeExit release_cursors{[this] { ReleaseCursors(); }};
  RETURN_IF_ERROR(interrupt_.Check());
  RETURN_IF_ERROR(CheckIndexesAlive());
  int64_t n = 0;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextResult(session));
    if (!doc) return n;
    ++n;
  }
}

}  // namespace tigerdoc::query
