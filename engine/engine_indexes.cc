// Engine's index DDL: createIndexes (with builds over existing documents),
// listIndexes, dropIndexes, collMod's index option, index sizes.
//
// A build runs under the collection's write mutex held exclusively, so it
// sees every committed document and no writer runs until the new index is
// published:
//
//   reserve ids (persisted) -> create tables -> scan every shard, sort the
//   keys, load them in key order (index_builder.h) -> publish in the catalog
//
// Any failure (a duplicate for a unique index, parallel arrays, a hashed
// array) drops the new tables; the catalog never names a half-built index,
// and a crash mid-build leaves tables the start-up reaper drops.

#include <algorithm>
#include <cstdio>

#include "engine/catalog/id_index_document.h"
#include "engine/bson/shell_string.h"
#include "engine/write/collection_writer.h"
#include "engine/engine.h"
#include "engine/index/index_table.h"
#include "engine/index_builder.h"

namespace tigerdoc::engine {
namespace {

constexpr char kNotFoundPrefix[] = "ns does not exist: ";

Status NamespaceNotFound(const std::string& ns) {
  return Status(ErrorCode::kNamespaceNotFound, kNotFoundPrefix + ns);
}

}  // namespace

StatusWith<CreateIndexesResult> Engine::CreateIndexes(const CreateIndexesParams& params) {
  if (auto view = TimeseriesView(params.db, params.coll)) return CreateTimeseriesIndexes(*view, params);
  // Every spec is validated before anything changes (the collection
  // included).
  std::vector<index::IndexSpec> requested;
  // An index without a collation of its own takes the collection's default.
  std::shared_ptr<catalog::CollectionEntry> existing = catalog_->Lookup(Namespace(params.db, params.coll));
  const bson::Collator* default_collator = existing ? existing->metadata.default_collator : nullptr;
  for (const bson::BsonDoc& doc : params.specs) {
    ASSIGN_OR_RETURN(index::IndexSpec spec, index::ParseIndexSpec(doc.get(), default_collator));
    requested.push_back(std::move(spec));
  }
  RETURN_IF_ERROR(catalog::Catalog::ValidateNamespace(params.db, params.coll));
  CreateIndexesResult result;
  const std::string ns = Namespace(params.db, params.coll);
  if (catalog_->LookupView(ns) != nullptr) {
    return Status(ErrorCode::kCommandNotSupportedOnView, "Cannot create indexes on a view");
  }
  result.created_collection = catalog_->Lookup(ns) == nullptr;
  ASSIGN_OR_RETURN(std::shared_ptr<catalog::CollectionEntry> coll,
                   catalog_->GetOrCreate(params.db, params.coll, options_.default_shards));

  std::unique_lock<std::shared_mutex> lock(coll->write_mutex());
  std::shared_ptr<const index::IndexSet> current = coll->indexes();
  result.num_indexes_before = 1 + static_cast<int>(current->specs.size());
  // Conflicts are checked against the existing indexes and the ones
  // accepted earlier in this request.
  index::IndexSet pending = *current;
  std::vector<index::IndexSpec> to_build;
  for (index::IndexSpec& spec : requested) {
    ASSIGN_OR_RETURN(bool exists, index::CheckNewIndex(spec, pending));
    if (exists) continue;
    // MongoDB's limit: 64 indexes per collection, _id's included.
    constexpr size_t kMaxIndexesPerCollection = 64;
    if (1 + pending.specs.size() >= kMaxIndexesPerCollection) {
      return Status(ErrorCode::kCannotCreateIndex,
                    "add index fails, too many indexes for " + ns +
                        " key:" + bson::ToShellString(spec.key_pattern.get()));
    }
    pending.specs.push_back(std::make_shared<const index::IndexSpec>(spec.Clone()));
    to_build.push_back(std::move(spec));
  }
  if (to_build.empty()) {
    result.num_indexes_after = result.num_indexes_before;
    result.all_already_existed = true;
    return result;
  }

  ASSIGN_OR_RETURN(int64_t first_id,
                   catalog_->ReserveIndexIds(*coll, static_cast<int>(to_build.size())));
  storage::Session session = storage_->NewUnboundSession();
  Status built;
  for (size_t i = 0; i < to_build.size() && built.ok(); ++i) {
    to_build[i].id = first_id + static_cast<int64_t>(i);
    built = index::CreateIndexTables(session, coll->metadata.ident, to_build[i],
                                     coll->metadata.num_shards);
  }
  if (built.ok()) built = BuildIndexesSorted(*storage_, *coll, to_build, SortSpillDirectory());
  if (!built.ok()) {
    for (const index::IndexSpec& spec : to_build) {
      if (spec.id == 0) continue;
      Status dropped =
          index::DropIndexTables(session, coll->metadata.ident, spec, coll->metadata.num_shards);
      if (!dropped.ok()) {
        std::fprintf(stderr, "engine: failed index build left tables of %s (reaped at start): %s\n",
                     spec.name.c_str(), dropped.ToString().c_str());
      }
    }
    return built;
  }
  const int built_count = static_cast<int>(to_build.size());
  RETURN_IF_ERROR(catalog_->AddIndexes(*coll, std::move(to_build)));
  result.num_indexes_after = result.num_indexes_before + built_count;
  return result;
}

StatusWith<std::vector<bson::BsonDoc>> Engine::ListIndexes(std::string_view db,
                                                          std::string_view coll_name) {
  const std::string ns = Namespace(db, coll_name);
  if (auto view = TimeseriesView(db, coll_name)) return ListTimeseriesIndexes(*view);
  RETURN_IF_ERROR(RefuseView(db, coll_name));
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  if (!coll) return NamespaceNotFound(ns);
  std::vector<bson::BsonDoc> out;
  out.push_back(catalog::IdIndexDocumentOf(coll->metadata));
  for (const auto& spec : coll->indexes()->specs) out.push_back(spec->ToListIndexesBson());
  return out;
}

StatusWith<int> Engine::DropIndexes(const DropIndexesParams& params) {
  if (auto view = TimeseriesView(params.db, params.coll)) return DropTimeseriesIndexes(*view, params);
  const std::string ns = Namespace(params.db, params.coll);
  if (catalog_->LookupView(ns) != nullptr) {
    return Status(ErrorCode::kCommandNotSupportedOnView, "Cannot drop indexes on view " + ns);
  }
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  if (!coll) return NamespaceNotFound(ns);
  std::unique_lock<std::shared_mutex> lock(coll->write_mutex());
  std::shared_ptr<const index::IndexSet> current = coll->indexes();
  const int was = 1 + static_cast<int>(current->specs.size());
  std::vector<int64_t> ids;
  auto by_name = [&](const std::string& name) -> Status {
    if (name == index::kIdIndexName) {
      return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
    }
    const index::IndexSpec* spec = current->FindByName(name);
    if (spec == nullptr) {
      return Status(ErrorCode::kIndexNotFound, "index not found with name [" + name + "]");
    }
    ids.push_back(spec->id);
    return Status::OK();
  };
  switch (params.kind) {
    case DropIndexesParams::Kind::kAll:
      for (const auto& spec : current->specs) ids.push_back(spec->id);
      break;
    case DropIndexesParams::Kind::kName:
    case DropIndexesParams::Kind::kNames:
      for (const std::string& name : params.names) RETURN_IF_ERROR(by_name(name));
      break;
    case DropIndexesParams::Kind::kKeyPattern: {
      bson::BsonDoc id_key;
      BSON_APPEND_INT32(id_key.mutable_get(), "_id", 1);
      if (index::KeyPatternsEqual(params.key_pattern.get(), id_key.get())) {
        return Status(ErrorCode::kInvalidOptions, "cannot drop _id index");
      }
      std::vector<const index::IndexSpec*> found =
          current->FindByKeyPattern(params.key_pattern.get());
      if (found.empty()) {
        return Status(ErrorCode::kIndexNotFound,
                      "can't find index with key: " + bson::ToShellString(params.key_pattern.get()));
      }
      if (found.size() > 1) {
        std::string names;
        for (const index::IndexSpec* spec : found) {
          names += (names.empty() ? "" : ", ") + bson::ToShellString(spec->ToListIndexesBson().get());
        }
        return Status(ErrorCode::kAmbiguousIndexKeyPattern,
                      bson::ToShellString(params.key_pattern.get()) +
                          " matches more than one index: " + names);
      }
      ids.push_back(found[0]->id);
      break;
    }
  }
  if (!ids.empty()) RETURN_IF_ERROR(catalog_->DropIndexes(*coll, ids));
  return was;
}

StatusWith<IndexModificationResult> Engine::ModifyIndex(std::string_view db,
                                                        std::string_view coll_name,
                                                        const IndexModification& modification) {
  const std::string ns = Namespace(db, coll_name);
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  if (!coll) return NamespaceNotFound(ns);
  std::unique_lock<std::shared_mutex> lock(coll->write_mutex());
  std::shared_ptr<const index::IndexSet> current = coll->indexes();
  const index::IndexSpec* spec = nullptr;
  if (modification.name) {
    if (*modification.name == index::kIdIndexName) {
      return Status(ErrorCode::kBadValue, "can't hide _id index");
    }
    spec = current->FindByName(*modification.name);
    if (spec == nullptr) {
      return Status(ErrorCode::kIndexNotFound,
                    "cannot find index " + *modification.name + " for ns " + ns);
    }
  } else if (modification.key_pattern) {
    std::vector<const index::IndexSpec*> found =
        current->FindByKeyPattern(modification.key_pattern->get());
    if (found.empty()) {
      return Status(ErrorCode::kIndexNotFound,
                    "cannot find index " + bson::ToShellString(modification.key_pattern->get()) +
                        " for ns " + ns);
    }
    if (found.size() > 1) {
      return Status(ErrorCode::kAmbiguousIndexKeyPattern,
                    "index keyPattern " + bson::ToShellString(modification.key_pattern->get()) +
                        " matches " + std::to_string(found.size()) + " indexes, must use index name");
    }
    spec = found[0];
  }
  if (spec == nullptr) {
    return Status(ErrorCode::kInvalidOptions, "no index name or key pattern specified");
  }
  IndexModificationResult result;
  index::IndexSpec changed = spec->Clone();
  // A modified index starts its $indexStats accesses anew, as in MongoDB.
  changed.usage = std::make_shared<index::IndexUsage>();
  if (modification.expire_after_seconds) {
    if (!spec->expire_after_seconds) {
      return Status(ErrorCode::kInvalidOptions,
                    "no expireAfterSeconds field to update");
    }
    result.expire_after_seconds_old = spec->expire_after_seconds;
    result.expire_after_seconds_new = modification.expire_after_seconds;
    changed.expire_after_seconds = modification.expire_after_seconds;
  }
  if (modification.hidden) {
    if (spec->hidden != *modification.hidden) {
      result.hidden_old = spec->hidden;
      result.hidden_new = *modification.hidden;
    }
    changed.hidden = *modification.hidden;
  }
  RETURN_IF_ERROR(catalog_->ReplaceIndex(*coll, std::move(changed)));
  return result;
}

std::vector<std::pair<std::string, int64_t>> Engine::IndexSizes(
    const catalog::CollectionEntry& coll, std::optional<int> shard) {
  std::vector<std::pair<std::string, int64_t>> out;
  storage::Session session = storage_->NewUnboundSession();
  // The _id index is the record keys themselves (plus the "<ident>-id"
  // table when the shard key is not _id): approximated by the key bytes.
  const storage::ShardStats stats = shard ? coll.store->StatsOf(*shard) : coll.store->TotalStats();
  out.emplace_back(index::kIdIndexName, stats.count * 16);
  for (const auto& spec : coll.indexes()->specs) {
    std::vector<int> shards;
    if (shard) shards.push_back(*shard);
    StatusWith<int64_t> bytes = int64_t{0};
    if (!shard || !spec->unique || *shard == 0) {
      bytes = index::IndexSizeBytes(session, coll.metadata.ident, *spec, coll.metadata.num_shards,
                                    shards);
    }
    out.emplace_back(spec->name, bytes.ok() ? bytes.value() : 0);
  }
  return out;
}

}  // namespace tigerdoc::engine

namespace tigerdoc::engine {
namespace {

// One $indexStats document: {name, key, host, accesses: {ops, since}, spec}.
bson::BsonDoc IndexStatsDocument(const bson::BsonDoc& spec, const index::IndexUsage& usage,
                                 const std::string& host) {
  bson::BsonDoc out;
  bson_t* d = out.mutable_get();
  bson_iter_t it;
  if (bson_iter_init_find(&it, spec.get(), "name")) bson_append_iter(d, "name", -1, &it);
  if (bson_iter_init_find(&it, spec.get(), "key")) bson_append_iter(d, "key", -1, &it);
  BSON_APPEND_UTF8(d, "host", host.c_str());
  bson_t accesses;
  bson_append_document_begin(d, "accesses", -1, &accesses);
  BSON_APPEND_INT64(&accesses, "ops", usage.ops());
  BSON_APPEND_DATE_TIME(&accesses, "since",
                        std::chrono::duration_cast<std::chrono::milliseconds>(
                            usage.since().time_since_epoch())
                            .count());
  bson_append_document_end(d, &accesses);
  BSON_APPEND_DOCUMENT(d, "spec", spec.get());
  return out;
}

}  // namespace

StatusWith<std::vector<bson::BsonDoc>> Engine::IndexStats(std::string_view db,
                                                          std::string_view coll_name,
                                                          const std::string& host) {
  std::string target(coll_name);
  if (catalog_->LookupView(Namespace(db, coll_name)) != nullptr) {
    // The views' stages come first in the pipeline that runs.
    ASSIGN_OR_RETURN(ResolvedView resolved, ResolveView(db, coll_name));
    if (!resolved.pipeline.empty()) {
      return Status(static_cast<ErrorCode>(40602),
                    "$indexStats is only valid as the first stage in a pipeline");
    }
    target = resolved.coll;
  }
  std::vector<bson::BsonDoc> out;
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(Namespace(db, target));
  if (!coll) return out;  // MongoDB: no documents for a missing collection
  out.push_back(IndexStatsDocument(catalog::IdIndexDocumentOf(coll->metadata), *coll->id_index_usage, host));
  for (const auto& spec : coll->indexes()->specs) {
    out.push_back(IndexStatsDocument(spec->ToListIndexesBson(), *spec->usage, host));
  }
  return out;
}

}  // namespace tigerdoc::engine
