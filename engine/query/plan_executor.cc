#include "engine/query/plan_executor.h"

#include <algorithm>
#include <numeric>

#include "engine/keystring/key_string.h"

namespace tigerdoc::query {
namespace {

// MongoDB's limit for a blocking sort without allowDiskUse.
constexpr int64_t kMaxBlockingSortBytes = 100 * 1024 * 1024;

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

}  // namespace

StatusWith<std::unique_ptr<PlanExecutor>> PlanExecutor::Make(
    std::shared_ptr<catalog::CollectionEntry> collection, FindSpec spec) {
  std::unique_ptr<PlanExecutor> exec(new PlanExecutor());
  ASSIGN_OR_RETURN(exec->matcher_, Matcher::Parse(spec.filter.get()));
  if (!spec.projection.empty()) {
    // The query goes along for the positional ($) projection.
    ASSIGN_OR_RETURN(Projection projection,
                     Projection::Parse(spec.projection.get(), spec.filter.get()));
    exec->projection_.emplace(std::move(projection));
  }
  if (!spec.sort.empty()) {
    ASSIGN_OR_RETURN(SortSpec sort, SortSpec::Parse(spec.sort.get()));
    exec->sort_.emplace(std::move(sort));
  }
  exec->collection_ = std::move(collection);
  exec->spec_ = std::move(spec);
  exec->Target();
  return exec;
}

// Chooses the ranges to read: one partition prefix per shard-key value the
// filter fixes, or every whole shard table.
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
    return;
  }
  for (int shard = 0; shard < store.num_shards(); ++shard) {
    ranges_.push_back(ScanRange{shard, "", ""});
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

StatusWith<std::optional<bson::BsonDoc>> PlanExecutor::NextMatch(storage::Session& session) {
  while (range_index_ < ranges_.size()) {
    const ScanRange& range = ranges_[range_index_];
    ShardExecStats& stats = StatsFor(range.shard);
    if (!open_cursor_) {
      std::string lower = resume_after_ ? KeyAfter(*resume_after_) : range.lower;
      ASSIGN_OR_RETURN(storage::Cursor cursor,
                       session.Scan(collection_->store->TableName(range.shard), lower, range.upper));
      open_cursor_.emplace(std::move(cursor));
    }
    Status status;
    while (open_cursor_->Next(&status)) {
      ++stats.docs_examined;
      std::string_view key = open_cursor_->key();
      resume_after_.emplace(key.data(), key.size());
      bson_t doc;
      std::string_view value = open_cursor_->value();
      if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(value.data()), value.size())) {
        return Status(ErrorCode::kInternalError, "corrupt document in " +
                                                     collection_->store->TableName(range.shard));
      }
      if (matcher_->Matches(&doc)) {
        ++stats.n_returned;
        return std::optional<bson::BsonDoc>(bson::BsonDoc::CopyOf(&doc));
      }
    }
    RETURN_IF_ERROR(status);
    open_cursor_.reset();
    ++range_index_;
    resume_after_.reset();
  }
  return std::optional<bson::BsonDoc>();
}

Status PlanExecutor::LoadSorted(storage::Session& session) {
  struct Keyed {
    std::string key;
    bson::BsonDoc doc;
  };
  std::vector<Keyed> rows;
  int64_t bytes = 0;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextMatch(session));
    if (!doc) break;
    std::string key = sort_->KeyFor(doc->get());
    bytes += static_cast<int64_t>(key.size() + doc->size());
    if (bytes > kMaxBlockingSortBytes && !spec_.allow_disk_use) {
      return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                    "Sort exceeded memory limit of 104857600 bytes, but did not opt in to "
                    "external sorting.");
    }
    rows.push_back(Keyed{std::move(key), std::move(*doc)});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  sorted_docs_.reserve(rows.size());
  for (Keyed& row : rows) sorted_docs_.push_back(std::move(row.doc));
  sorted_loaded_ = true;
  return Status::OK();
}

// Next result after skip/limit, before projection.
StatusWith<std::optional<bson::BsonDoc>> PlanExecutor::NextResult(storage::Session& session) {
  if (!collection_) return std::optional<bson::BsonDoc>();
  if (spec_.limit > 0 && n_returned_ >= spec_.limit) return std::optional<bson::BsonDoc>();
  while (true) {
    std::optional<bson::BsonDoc> doc;
    if (sort_) {
      if (!sorted_loaded_) RETURN_IF_ERROR(LoadSorted(session));
      if (sorted_pos_ < sorted_docs_.size()) doc = std::move(sorted_docs_[sorted_pos_++]);
    } else {
      ASSIGN_OR_RETURN(doc, NextMatch(session));
    }
    if (!doc) return doc;
    if (skipped_ < spec_.skip) {
      ++skipped_;
      continue;
    }
    ++n_returned_;
    return doc;
  }
}

Status PlanExecutor::FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                               std::vector<bson::BsonDoc>* out, bool* exhausted) {
  // The storage cursor lives only for this call: between getMores the
  // executor keeps a resume key instead, so it pins no storage resources.
  ScopeExit release_cursor{[this] { open_cursor_.reset(); }};
  *exhausted = false;
  int64_t bytes = 0;
  while (static_cast<int64_t>(out->size()) < max_docs) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextResult(session));
    if (!doc) {
      *exhausted = true;
      return Status::OK();
    }
    bson::BsonDoc result;
    if (projection_) {
      ASSIGN_OR_RETURN(result, projection_->Apply(doc->get(), nullptr));
    } else {
      result = std::move(*doc);
    }
    bytes += static_cast<int64_t>(result.size());
    out->push_back(std::move(result));
    if (bytes >= max_bytes) break;
  }
  // A batch that ends exactly at the last result still reports the cursor
  // open; the next getMore returns an empty final batch, as MongoDB does
  // when it cannot tell without reading ahead. Peek cheaply when possible.
  if (collection_ == nullptr || (spec_.limit > 0 && n_returned_ >= spec_.limit) ||
      (sort_ && sorted_loaded_ && sorted_pos_ >= sorted_docs_.size()) ||
      (!sort_ && range_index_ >= ranges_.size())) {
    *exhausted = true;
  }
  return Status::OK();
}

StatusWith<int64_t> PlanExecutor::CountAll(storage::Session& session) {
  ScopeExit release_cursor{[this] { open_cursor_.reset(); }};
  int64_t n = 0;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, NextResult(session));
    if (!doc) return n;
    ++n;
  }
}

}  // namespace tigerdoc::query
