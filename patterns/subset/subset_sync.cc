#include "patterns/subset/subset_sync.h"

#include <map>

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

StatusWith<CounterState> ReadState(storage::Session& session, const std::string& table,
                                   const std::string& row, size_t counters) {
  ASSIGN_OR_RETURN(std::optional<std::string> bytes, session.Get(table, row));
  if (!bytes) return CounterState(counters);
  return CounterState::Decode(*bytes, counters);
}

Status WriteState(storage::Session& session, const std::string& table, const std::string& row,
                  const CounterState& state) {
  if (state.empty()) {
    Status removed = session.Remove(table, row);
    return removed.code() == ErrorCode::kNoSuchKey ? Status::OK() : removed;
  }
  return session.Put(table, row, state.Encode());
}

StatusWith<std::vector<bson::BsonDoc>> TopChildren(storage::Session& session,
                                                   std::shared_ptr<catalog::CollectionEntry> child,
                                                   const SubsetConfig& config,
                                                   const bson_value_t* key) {
  query::FindSpec spec;
  spec.filter = EqualityFilter(config.local_field(), key);
  spec.sort = config.SortWithId();
  spec.limit = config.limit();
  // Whole children, projected here: a covered plan would give the fields
  // in index order, and the parent must not depend on the plan.
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> children,
                   RunQuery(session, std::move(child), std::move(spec)));
  for (bson::BsonDoc& doc : children) {
    ASSIGN_OR_RETURN(doc, config.Project(doc.get()));
  }
  return children;
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

bson::BsonDoc ParentUpdate(const SubsetConfig& config, const std::vector<bson::BsonDoc>& top,
                           const CounterState& state) {
  bson::BsonDoc update;
  bson_t set, array;
  BSON_APPEND_DOCUMENT_BEGIN(update.mutable_get(), "$set", &set);
  BSON_APPEND_ARRAY_BEGIN(&set, config.as().c_str(), &array);
  for (size_t i = 0; i < top.size(); ++i) {
    const std::string index = std::to_string(i);
    BSON_APPEND_DOCUMENT(&array, index.c_str(), top[i].get());
  }
  bson_append_array_end(&set, &array);
  state.Render(config, &set);
  bson_append_document_end(update.mutable_get(), &set);
  return update;
}

Status RefreshParents(storage::Session& session, std::shared_ptr<catalog::CollectionEntry> child,
                      std::shared_ptr<catalog::CollectionEntry> parent,
                      engine::CollectionWriter& parent_writer, const SubsetConfig& config,
                      const bson_value_t* key, const CounterState& state) {
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> parents, ParentsOf(session, parent, config, key));
  if (parents.empty()) return Status::OK();  // a child without a parent leaves it alone
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> top, TopChildren(session, child, config, key));
  bson::BsonDoc update = ParentUpdate(config, top, state);
  ASSIGN_OR_RETURN(update::UpdateDriver driver, update::UpdateDriver::Parse(update.get()));
  for (const bson::BsonDoc& doc : parents) {
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
    // Written even when unchanged: writers of one parent then conflict and
    // retry, so none of them decides from a snapshot that misses another.
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
    std::map<std::string, CounterState> states;
    RETURN_IF_ERROR(child.store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
      ASSIGN_OR_RETURN(std::optional<ParentKey> key, KeyOf(config, child.metadata.ns, doc));
      if (!key) return Status::OK();
      auto [it, inserted] = states.try_emplace(key->row, config.counters().size());
      it->second.Apply(config, doc, 1);
      return Status::OK();
    }));
    std::vector<std::string> old_keys;
    {
      ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
      Status status;
      while (cursor.Next(&status)) old_keys.emplace_back(cursor.key());
      RETURN_IF_ERROR(status);
    }
    for (const std::string& key : old_keys) RETURN_IF_ERROR(session.Remove(table, key));
    for (const auto& [row, state] : states) RETURN_IF_ERROR(WriteState(session, table, row, state));
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
