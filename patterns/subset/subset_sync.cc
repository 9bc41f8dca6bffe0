#include "patterns/subset/subset_sync.h"
#include "patterns/common/backfill_walk.h"

#include <algorithm>
#include <map>

#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"
#include "engine/query/plan_executor.h"
#include "engine/storage/sharded_record_store.h"
#include "engine/update/update_driver.h"

namespace tigerdoc::patterns::subset {
namespace {

constexpr char kMarker[] = "m";
constexpr int64_t kBatchBytes = 16 * 1024 * 1024;

// {<field>: {$eq: key}}: a key that is a regex or a document is compared,
// not interpreted.
bson::BsonDoc EqualityFilter(const std::string& field, const bson_value_t* key) {
  bson::BsonDoc filter;
  bson_t cond;
  bson_append_document_begin(filter.mutable_get(), field.c_str(), -1, &cond);
  bson_append_value(&cond, "$eq", 3, key);
  bson_append_document_end(filter.mutable_get(), &cond);
  return filter;
}

StatusWith<std::vector<bson::BsonDoc>> RunQuery(storage::Session& session,
                                                std::shared_ptr<catalog::CollectionEntry> coll,
                                                query::FindSpec spec) {
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(std::move(coll), std::move(spec)));
  std::vector<bson::BsonDoc> out;
  bool exhausted = false;
  while (!exhausted) {
    std::vector<bson::BsonDoc> batch;
    RETURN_IF_ERROR(exec->FillBatch(session, 1000, kBatchBytes, &batch, &exhausted));
    for (bson::BsonDoc& doc : batch) out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace

std::string StateTableName(const std::string& ident) { return ident + "-subset"; }

const bson_value_t* ParentKey::get(bson_iter_t* it) const {
  bson_iter_init(it, value.get());
  bson_iter_next(it);
  return bson_iter_value(it);
}

ParentKey KeyFor(const bson_iter_t* value) {
  ParentKey key;
  bson_append_iter(key.value.mutable_get(), "v", 1, value);
  bson_iter_t copy = *value;
  key.row = "p" + storage::ShardedRecordStore::PartitionPrefix(bson_iter_value(&copy));
  return key;
}

StatusWith<std::optional<ParentKey>> KeyOf(const SubsetConfig& config, const std::string& child_ns,
                                           const bson_t* child) {
  bson_iter_t root, it;
  if (!bson_iter_init(&root, child) ||
      !bson_iter_find_descendant(&root, config.local_field().c_str(), &it) ||
      BSON_ITER_HOLDS_NULL(&it) || BSON_ITER_HOLDS_UNDEFINED(&it)) {
    return std::optional<ParentKey>();
  }
  if (BSON_ITER_HOLDS_ARRAY(&it)) {
    return Status(ErrorCode::kBadValue,
                  "the subset option of " + child_ns + " links each document to one parent by '" +
                      config.local_field() + "', which must not be an array (got " +
                      bson::ToShellString(&it) + ")");
  }
  return std::optional<ParentKey>(KeyFor(&it));
}

size_t KeyRow::PositionOf(const SubsetConfig& config, const bson_t* child_key) const {
  size_t position = 0;
  while (position < top.size() && config.CompareSortKeys(top[position].get(), child_key) < 0) {
    ++position;
  }
  return position;
}

bool KeyRow::Has(const SubsetConfig& config, const bson_t* child_key) const {
  bson_iter_t a;
  const bson_value_t* id = config.IdOfSortKey(child_key, &a);
  for (const bson::BsonDoc& key : top) {
    bson_iter_t b;
    const bson_value_t* other = config.IdOfSortKey(key.get(), &b);
    if (id != nullptr && other != nullptr && bson::CompareValues(id, other) == 0) return true;
  }
  return false;
}

StatusWith<KeyRow> ReadRow(storage::Session& session, const std::string& table,
                           const std::string& row, const SubsetConfig& config) {
  KeyRow out;
  out.counters = CounterState(config.counters().size());
  ASSIGN_OR_RETURN(std::optional<std::string> bytes, session.Get(table, row));
  if (!bytes) return out;
  ASSIGN_OR_RETURN(bson::BsonDoc doc, bson::BsonDoc::FromBytes(
                                          reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), "s") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    ASSIGN_OR_RETURN(out.counters,
                     CounterState::Decode(std::string_view(reinterpret_cast<const char*>(data), len),
                                          config.counters().size()));
  }
  if (bson_iter_init_find(&it, doc.get(), "t") && BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t item;
    bson_iter_recurse(&it, &item);
    while (bson_iter_next(&item)) {
      if (!BSON_ITER_HOLDS_ARRAY(&item)) continue;
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_array(&item, &len, &data);
      out.top.push_back(bson::BsonDoc::CopyOf(data, len));
    }
  }
  return out;
}

Status WriteRow(storage::Session& session, const std::string& table, const std::string& row,
                const KeyRow& key_row) {
  if (key_row.counters.empty() && key_row.top.empty()) {
    Status removed = session.Remove(table, row);
    return removed.code() == ErrorCode::kNoSuchKey ? Status::OK() : removed;
  }
  bson::BsonDoc doc;
  const std::string counters = key_row.counters.Encode();
  bson::BsonDoc counters_doc = bson::BsonDoc::CopyOf(
      reinterpret_cast<const uint8_t*>(counters.data()), counters.size());
  BSON_APPEND_DOCUMENT(doc.mutable_get(), "s", counters_doc.get());
  bson_t top;
  BSON_APPEND_ARRAY_BEGIN(doc.mutable_get(), "t", &top);
  for (size_t i = 0; i < key_row.top.size(); ++i) {
    const std::string index = std::to_string(i);
    BSON_APPEND_ARRAY(&top, index.c_str(), key_row.top[i].get());
  }
  bson_append_array_end(doc.mutable_get(), &top);
  return session.Put(table, row, doc.bytes());
}

StatusWith<std::vector<bson::BsonDoc>> BestChildren(storage::Session& session,
                                                    std::shared_ptr<catalog::CollectionEntry> child,
                                                    const SubsetConfig& config,
                                                    const bson_value_t* key) {
  query::FindSpec spec;
  spec.filter = EqualityFilter(config.local_field(), key);
  spec.sort = config.SortWithId();
  spec.limit = config.limit();
  // Whole children (projected by the caller): a covered plan would give
  // the fields in index order, and the parent must not depend on the plan.
  return RunQuery(session, std::move(child), std::move(spec));
}

StatusWith<CounterState> CountChildren(storage::Session& session,
                                       std::shared_ptr<catalog::CollectionEntry> child,
                                       const SubsetConfig& config, const bson_value_t* key) {
  query::FindSpec spec;
  spec.filter = EqualityFilter(config.local_field(), key);
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(std::move(child), std::move(spec)));
  CounterState state(config.counters().size());
  bool exhausted = false;
  while (!exhausted) {
    std::vector<bson::BsonDoc> batch;
    RETURN_IF_ERROR(exec->FillBatch(session, 1000, kBatchBytes, &batch, &exhausted));
    for (const bson::BsonDoc& doc : batch) state.Apply(config, doc.get(), 1);
  }
  return state;
}

StatusWith<std::vector<bson::BsonDoc>> ParentsOf(storage::Session& session,
                                                 std::shared_ptr<catalog::CollectionEntry> parent,
                                                 const SubsetConfig& config,
                                                 const bson_value_t* key) {
  if (config.foreign_field() == "_id") {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, parent->store->FindById(session, key));
    std::vector<bson::BsonDoc> out;
    if (doc) out.push_back(std::move(*doc));
    return out;
  }
  query::FindSpec spec;
  spec.filter = EqualityFilter(config.foreign_field(), key);
  return RunQuery(session, std::move(parent), std::move(spec));
}

bson::BsonDoc ParentUpdate(const SubsetConfig& config, const std::vector<bson::BsonDoc>* top,
                           const CounterState& state) {
  bson::BsonDoc update;
  bson_t set, array;
  BSON_APPEND_DOCUMENT_BEGIN(update.mutable_get(), "$set", &set);
  if (top != nullptr) {
    BSON_APPEND_ARRAY_BEGIN(&set, config.as().c_str(), &array);
    for (size_t i = 0; i < top->size(); ++i) {
      const std::string index = std::to_string(i);
      BSON_APPEND_DOCUMENT(&array, index.c_str(), (*top)[i].get());
    }
    bson_append_array_end(&set, &array);
  }
  state.Render(config, &set);
  bson_append_document_end(update.mutable_get(), &set);
  return update;
}

namespace {

// The parent's `as` array, element by element (nullopt when it is not an
// array of documents).
std::optional<std::vector<bson::BsonDoc>> EmbeddedOf(const SubsetConfig& config, const bson_t* parent) {
  bson_iter_t root, it;
  if (!bson_iter_init(&root, parent) || !bson_iter_find_descendant(&root, config.as().c_str(), &it) ||
      !BSON_ITER_HOLDS_ARRAY(&it)) {
    return std::nullopt;
  }
  std::vector<bson::BsonDoc> out;
  bson_iter_t item;
  bson_iter_recurse(&it, &item);
  while (bson_iter_next(&item)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&item)) return std::nullopt;
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&item, &len, &data);
    out.push_back(bson::BsonDoc::CopyOf(data, len));
  }
  return out;
}

// The embedded entries are the children `top` names, in its order.
bool Matches(const SubsetConfig& config, const std::vector<bson::BsonDoc>& embedded,
             const std::vector<bson::BsonDoc>& top) {
  if (embedded.size() != top.size()) return false;
  for (size_t i = 0; i < top.size(); ++i) {
    bson_iter_t a, b;
    const bson_value_t* want = config.IdOfSortKey(top[i].get(), &a);
    if (want == nullptr || !bson_iter_init_find(&b, embedded[i].get(), "_id") ||
        bson::CompareValues(want, bson_iter_value(&b)) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status RefreshParents(storage::Session& session, std::shared_ptr<catalog::CollectionEntry> child,
                      std::shared_ptr<catalog::CollectionEntry> parent,
                      engine::CollectionWriter& parent_writer, const SubsetConfig& config,
                      const bson_value_t* key, const KeyRow& row, ParentChange change) {
  if (change.mode == ParentChange::Mode::kNone) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> parents, ParentsOf(session, parent, config, key));
  if (parents.empty()) return Status::OK();  // a child without a parent leaves it alone
  std::optional<std::vector<bson::BsonDoc>> rebuilt;  // projected best children
  for (const bson::BsonDoc& doc : parents) {
    ParentChange::Mode mode = change.mode;
    std::optional<std::vector<bson::BsonDoc>> embedded;
    if (mode != ParentChange::Mode::kRebuild) {
      embedded = EmbeddedOf(config, doc.get());
      if (!embedded || !Matches(config, *embedded, change.old_top)) mode = ParentChange::Mode::kRebuild;
    }
    bson::BsonDoc update;
    if (mode == ParentChange::Mode::kRebuild) {
      if (!rebuilt) {
        if (!change.best_children) {
          ASSIGN_OR_RETURN(change.best_children, BestChildren(session, child, config, key));
        }
        rebuilt.emplace();
        for (const bson::BsonDoc& best : *change.best_children) {
          ASSIGN_OR_RETURN(bson::BsonDoc projected, config.Project(best.get()));
          rebuilt->push_back(std::move(projected));
        }
      }
      update = ParentUpdate(config, &*rebuilt, row.counters);
    } else if (mode == ParentChange::Mode::kInsertAt) {
      embedded->insert(embedded->begin() + static_cast<std::ptrdiff_t>(change.position),
                       change.entry.Copy());
      if (embedded->size() > static_cast<size_t>(config.limit())) embedded->pop_back();
      update = ParentUpdate(config, &*embedded, row.counters);
    } else {
      update = ParentUpdate(config, nullptr, row.counters);
    }
    ASSIGN_OR_RETURN(update::UpdateDriver driver, update::UpdateDriver::Parse(update.get()));
    StatusWith<update::ApplyResult> applied = driver.Apply(doc.get(), false);
    if (!applied.ok()) {
      return applied.status().WithContext("the subset option of " + child->metadata.ns +
                                          " cannot update its parent in " + parent->metadata.ns +
                                          " :: caused by :: ");
    }
    const bson_t* next = applied.value().doc.get();
    if (static_cast<int64_t>(next->len) > parent->metadata.max_document_bytes) {
      return Status(ErrorCode::kLocation17419,
                    "Resulting document after update is larger than " +
                        std::to_string(parent->metadata.max_document_bytes) + " (parent " +
                        parent->metadata.ns + " of the subset option of " + child->metadata.ns + ")");
    }
    if (!applied.value().modified) continue;
    RETURN_IF_ERROR(parent_writer.Update(session, doc.get(), next));
  }
  return Status::OK();
}

Status RebuildStates(storage::Session& session, const catalog::CollectionEntry& child,
                     const SubsetConfig& config) {
  const std::string table = StateTableName(child.metadata.ident);
  RETURN_IF_ERROR(session.CreateTable(table));
  RETURN_IF_ERROR(session.Begin());
  auto body = [&]() -> Status {
    std::map<std::string, KeyRow> rows;
    RETURN_IF_ERROR(ForEachDocumentWithProgress(session, child, "subset", [&](int, const bson_t* doc) -> Status {
      ASSIGN_OR_RETURN(std::optional<ParentKey> key, KeyOf(config, child.metadata.ns, doc));
      if (!key) return Status::OK();
      auto [it, inserted] = rows.try_emplace(key->row);
      if (inserted) it->second.counters = CounterState(config.counters().size());
      it->second.counters.Apply(config, doc, 1);
      it->second.top.push_back(config.SortKeyOf(doc));
      // Bounded memory: keep the best `limit` of each key as the scan goes.
      if (it->second.top.size() > 2 * static_cast<size_t>(config.limit())) {
        std::sort(it->second.top.begin(), it->second.top.end(), [&](const auto& a, const auto& b) {
          return config.CompareSortKeys(a.get(), b.get()) < 0;
        });
        it->second.top.resize(static_cast<size_t>(config.limit()));
      }
      return Status::OK();
    }));
    for (auto& [row, key_row] : rows) {
      std::sort(key_row.top.begin(), key_row.top.end(), [&](const auto& a, const auto& b) {
        return config.CompareSortKeys(a.get(), b.get()) < 0;
      });
      if (key_row.top.size() > static_cast<size_t>(config.limit())) {
        key_row.top.resize(static_cast<size_t>(config.limit()));
      }
    }
    RETURN_IF_ERROR(session.RemoveAll(table));
    for (const auto& [row, key_row] : rows) RETURN_IF_ERROR(WriteRow(session, table, row, key_row));
    return session.Put(table, kMarker, "\x01");
  };
  Status status = body();
  if (!status.ok()) {
    session.Rollback();
    return status;
  }
  return session.Commit();
}

}  // namespace tigerdoc::patterns::subset
