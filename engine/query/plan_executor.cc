#include "engine/query/plan_executor.h"

#include <algorithm>
#include <numeric>

#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"

namespace tigerdoc::query {
namespace {

// MongoDB checks for interruption every so many units of work; a clock read
// per 64 documents keeps the cost invisible.
constexpr int kInterruptCheckInterval = 64;

constexpr char kRecordIdField[] = "$recordId";

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

// The key of a one-field bound document ({_id: v}) on the _id index.
StatusWith<std::string> IdBoundKey(const bson::BsonDoc& bound) {
  bson_iter_t it;
  if (bson_count_keys(bound.get()) != 1 || !bson_iter_init(&it, bound.get()) ||
      !bson_iter_next(&it) || std::string_view(bson_iter_key(&it)) != "_id") {
    return Status(static_cast<ErrorCode>(51174), "The index chosen is not compatible with min/max");
  }
  return keystring::Encode(&it);
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

StatusWith<std::unique_ptr<PlanExecutor>> PlanExecutor::Make(
    std::shared_ptr<catalog::CollectionEntry> collection, FindSpec spec) {
  std::unique_ptr<PlanExecutor> exec(new PlanExecutor());
  ASSIGN_OR_RETURN(exec->matcher_, Matcher::Parse(spec.filter.get(), spec.expressions.get()));
  if (!spec.projection.empty()) {
    // The query goes along for the positional ($) projection.
    ASSIGN_OR_RETURN(Projection projection,
                     Projection::Parse(spec.projection.get(), spec.filter.get(),
                                       spec.expressions.get()));
    exec->projection_.emplace(std::move(projection));
  }
  if (!spec.sort.empty()) {
    ASSIGN_OR_RETURN(SortSpec sort, SortSpec::Parse(spec.sort.get()));
    exec->sort_.emplace(std::move(sort));
  }
  if (spec.deadline) exec->interrupt_.set_deadline(spec.deadline);
  exec->collection_ = std::move(collection);
  exec->spec_ = std::move(spec);
  // A missing collection reads as empty without planning, as in MongoDB
  // (whose planner, and so its min/max errors, never runs then).
  if (exec->collection_) RETURN_IF_ERROR(exec->ParseBounds());
  exec->Target();
  exec->ChooseAccess();
  return exec;
}

Status PlanExecutor::ParseBounds() {
  bool has_min = !spec_.min.empty();
  bool has_max = !spec_.max.empty();
  if (!has_min && !has_max) return Status::OK();
  auto planner_error = [&](int code, const std::string& reason) {
    return Status(static_cast<ErrorCode>(code),
                  "error processing query: " + QueryDescriptionForError(collection_->metadata.ns, spec_) +
                      " planner returned error :: caused by :: " + reason);
  };
  if (spec_.hint == IndexHint::kNaturalForward) {
    return planner_error(static_cast<int>(ErrorCode::kNoQueryExecutionPlans),
                         "min and max are incompatible with $natural");
  }
  if (spec_.hint != IndexHint::kIdIndex) {
    return planner_error(51173, "When using min()/max() a hint of which index to use must be provided");
  }
  if (has_min) {
    auto key = IdBoundKey(spec_.min);
    if (!key.ok()) return planner_error(51174, key.status().reason());
    min_id_key_ = std::move(key.value());
  }
  if (has_max) {
    auto key = IdBoundKey(spec_.max);
    if (!key.ok()) return planner_error(51174, key.status().reason());
    max_id_key_ = std::move(key.value());
  }
  if (has_min && has_max && min_id_key_ >= max_id_key_) {
    return planner_error(51175,
                         "The value provided for min() does not come before the value provided "
                         "for max() in the hinted index");
  }
  return Status::OK();
}

// Chooses the ranges to read: one partition prefix per shard-key value the
// filter fixes, or every whole shard table; min/max narrow them when the
// record key starts with _id.
void PlanExecutor::Target() {
  if (!collection_) return;
  const storage::ShardedRecordStore& store = *collection_->store;
  std::optional<std::vector<bson::BsonDoc>> values =
      matcher_->EqualityValuesFor(store.shard_key_field());
  if (values) {
    targeted_ = true;
    std::vector<std::string> seen;
    for (const bson::BsonDoc& value_doc : *values) {
      bson_iter_t it;
      if (!bson_iter_init(&it, value_doc.get()) || !bson_iter_next(&it)) continue;
      const bson_value_t* value = bson_iter_value(&it);
      std::string prefix = storage::ShardedRecordStore::PartitionPrefix(value);
      if (std::find(seen.begin(), seen.end(), prefix) != seen.end()) continue;  // $in duplicates
      seen.push_back(prefix);
      ranges_.push_back(ScanRange{store.ShardForValue(value), prefix,
                                  keystring::PrefixSuccessor(prefix)});
    }
    // Read shards in order so results come in the same order as a full scan.
    std::sort(ranges_.begin(), ranges_.end(), [](const ScanRange& a, const ScanRange& b) {
      return a.shard != b.shard ? a.shard < b.shard : a.lower < b.lower;
    });
  } else {
    for (int shard = 0; shard < store.num_shards(); ++shard) {
      ranges_.push_back(ScanRange{shard, "", ""});
    }
  }
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

void PlanExecutor::ChooseAccess() {
  if (!collection_) return;
  const std::string& shard_key = collection_->store->shard_key_field();
  auto ascending_on = [](const SortSpec::Field& f, const std::string& path) {
    return f.direction == keystring::Direction::kAscending && f.path.dotted() == path;
  };
  if (sort_) {
    // Shard key values are never arrays and a missing one is null, exactly
    // as a sort key treats them, so the record-key order is this sort order.
    const auto& fields = sort_->fields();
    bool record_order =
        ascending_on(fields[0], shard_key) &&
        (fields.size() == 1 ||
         (fields.size() == 2 && shard_key != "_id" && ascending_on(fields[1], "_id")));
    if (record_order) access_ = Access::kOrderedMerge;
  } else if (spec_.hint == IndexHint::kIdIndex && collection_->store->shard_key_is_id()) {
    // Each shard table is clustered by _id: scanning the "_id index" is
    // merging them in record-key order.
    access_ = Access::kOrderedMerge;
  }
}

ShardExecStats& PlanExecutor::StatsFor(int shard) {
  for (ShardExecStats& s : shard_stats_) {
    if (s.shard == shard) return s;
  }
  shard_stats_.push_back(ShardExecStats{shard, 0, 0});
  return shard_stats_.back();
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
    std::string lower = state.resume_after ? KeyAfter(*state.resume_after) : state.range.lower;
    ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, lower, state.range.upper));
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
    if (state.has_head && (best == nullptr || state.head_key < best->head_key)) best = &state;
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
    // The index keys of the document: {_id: v} on the _id index, nothing
    // for a collection scan (MongoDB returns {} then).
    bson_iter_t it;
    if (spec_.hint == IndexHint::kIdIndex && bson_iter_init_find(&it, doc.get(), "_id")) {
      bson_append_iter(out.mutable_get(), "_id", 3, &it);
    }
  } else if (projection_) {
    ASSIGN_OR_RETURN(out, projection_->Apply(doc.get(), nullptr));
  } else if (!record_id) {
    return doc;
  } else {
    out = std::move(doc);
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
  if (collection_ == nullptr) return true;
  if (spec_.limit > 0 && n_returned_ >= spec_.limit) return true;
  if (blocking_sort()) return sorted_loaded_ && sorter_->AtEnd();
  if (access_ == Access::kCollScan) return range_index_ >= states_.size();
  return std::all_of(states_.begin(), states_.end(),
                     [](const RangeState& s) { return s.exhausted && !s.has_head; });
}

Status PlanExecutor::FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                               std::vector<bson::BsonDoc>* out, bool* exhausted) {
  // Storage cursors live only for this call: between getMores the executor
  // keeps resume keys instead, so it pins no storage resources.
  ScopeExit release_cursors{[this] {
    for (RangeState& state : states_) state.cursor.reset();
  }};
  *exhausted = false;
  RETURN_IF_ERROR(interrupt_.Check());
  int64_t bytes = 0;
  while (static_cast<int64_t>(out->size()) < max_docs) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextResult(session));
    if (!doc) {
      *exhausted = true;
      return Status::OK();
    }
    ASSIGN_OR_RETURN(bson::BsonDoc result, Finish(std::move(*doc)));
    bytes += static_cast<int64_t>(result.size());
    out->push_back(std::move(result));
    if (bytes >= max_bytes) break;
  }
  // A batch that ends exactly at the last result still reports the cursor
  // open when the executor cannot tell without reading ahead (a scan with
  // ranges left); the next getMore then returns an empty final batch, as
  // MongoDB does.
  *exhausted = AtEnd();
  return interrupt_.Check();
}

StatusWith<int64_t> PlanExecutor::CountAll(storage::Session& session) {
  ScopeExit release_cursors{[this] {
    for (RangeState& state : states_) state.cursor.reset();
  }};
  RETURN_IF_ERROR(interrupt_.Check());
  int64_t n = 0;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextResult(session));
    if (!doc) return n;
    ++n;
  }
}

}  // namespace tigerdoc::query
