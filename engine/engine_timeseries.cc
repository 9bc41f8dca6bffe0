// Engine: time-series collections, MongoDB's layout.
//
//   db.c                   a view (type "timeseries" in listCollections):
//                          [{$_internalUnpackBucket: {timeField, metaField,
//                            bucketMaxSpanSeconds}}] over
//   db.system.buckets.c    the buckets (engine/agg/timeseries/bucket_format.h),
//                          configured with the bucket pattern
//                          (patterns/bucket/), which stores what is
//                          inserted into db.c (PatternHook::InsertRouted)
//   db.<bucket.view>       optional: the buckets in the reference article's
//                          shape ($_internalBucketView)
//
// Reads of db.c are reads of the view; the bucket filters of
// bucket_pushdown.h skip whole buckets. Inserts go to the buckets
// collection's writer in groups, one write unit per group as InsertMany
// does. Creating makes the buckets collection first and the views last, so
// a crash in between leaves at most a buckets collection without its view
// (drop it by name).

#include <string>

#include "engine/agg/timeseries/index_translation.h"
#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/engine.h"
#include "engine/write/collection_writer.h"
#include "engine/write/document_rules.h"
#include "engine/write/grouped_insert.h"
#include "engine/write/pattern_registry.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

std::string BucketsName(std::string_view coll) {
  return std::string(agg::kBucketsPrefix) + std::string(coll);
}

// The index MongoDB 6.3+ creates on a time-series collection with a meta
// field ({<meta>: 1, <time>: 1} on the collection), on the buckets' fields.
bson::BsonDoc MetaTimeIndexSpec(const agg::TimeseriesConfig& config) {
  bson::BsonDoc spec;
  bson_t key;
  bson_append_document_begin(spec.mutable_get(), "key", -1, &key);
  BSON_APPEND_INT32(&key, "meta", 1);
  BSON_APPEND_INT32(&key, ("control.min." + config.time_field).c_str(), 1);
  BSON_APPEND_INT32(&key, ("control.max." + config.time_field).c_str(), 1);
  bson_append_document_end(spec.mutable_get(), &key);
  const std::string name = *config.meta_field + "_1_" + config.time_field + "_1";
  BSON_APPEND_UTF8(spec.mutable_get(), "name", name.c_str());
  return spec;
}

// expireAfterSeconds: a bucket goes when its greatest time has expired,
// that is when every measurement in it has.
bson::BsonDoc ExpiryIndexSpec(const agg::TimeseriesConfig& config) {
  bson::BsonDoc spec;
  bson_t key;
  bson_append_document_begin(spec.mutable_get(), "key", -1, &key);
  BSON_APPEND_INT32(&key, ("control.max." + config.time_field).c_str(), 1);
  bson_append_document_end(spec.mutable_get(), &key);
  BSON_APPEND_UTF8(spec.mutable_get(), "name", agg::kBucketExpiryIndexName);
  BSON_APPEND_INT64(spec.mutable_get(), "expireAfterSeconds", *config.expire_after_seconds);
  return spec;
}

Status Exists(const std::string& ns) {
  return Status(ErrorCode::kNamespaceExists, "Collection " + ns + " already exists.");
}

}  // namespace

std::shared_ptr<const catalog::ViewDefinition> Engine::TimeseriesView(std::string_view db,
                                                                      std::string_view coll) const {
  auto view = catalog_->LookupView(Namespace(db, coll));
  return view && view->is_timeseries() ? view : nullptr;
}

Status Engine::CreateTimeseries(const CreateParams& params) {
  RETURN_IF_ERROR(catalog::Catalog::ValidateNamespace(params.db, params.name));
  ASSIGN_OR_RETURN(bson::BsonDoc patterns,
                   patterns_->Configure("create", params.options.get(), nullptr));
  bson_iter_t it;
  if (!bson_iter_init_find(&it, patterns.get(), "bucket") || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kNotImplemented,
                  "create option 'timeseries' needs the bucket pattern, which this server lacks");
  }
  bson_t config_doc = bson::SubDocumentView(&it);
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, agg::TimeseriesConfig::FromCanonical(&config_doc));
  const std::string ns = Namespace(params.db, params.name);
  // Creating it again with the same options succeeds (MongoDB 7).
  if (auto existing = TimeseriesView(params.db, params.name)) {
    if (existing->timeseries.bytes() == config.ToCanonical().bytes()) return Status::OK();
    return Exists(ns);
  }
  // Options that would change what a bucket is, or that other patterns
  // own, have no meaning here.
  bson_iter_init(&it, params.options.get());
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key != "timeseries" && key != "expireAfterSeconds" && key != "bucket" && key != "shards" &&
        key != "storageEngine" && key != "indexOptionDefaults") {
      return Status(ErrorCode::kInvalidOptions,
                    "option '" + std::string(key) + "' is not supported with 'timeseries' by tigerdoc");
    }
  }
  const std::string buckets = BucketsName(params.name);
  RETURN_IF_ERROR(catalog::Catalog::ValidateNamespace(params.db, buckets));
  for (const std::string& name : {params.name, buckets, config.view.value_or(params.name)}) {
    const std::string taken = Namespace(params.db, name);
    if (catalog_->Lookup(taken) || catalog_->LookupView(taken)) return Exists(taken);
  }
  if (config.view) RETURN_IF_ERROR(catalog::Catalog::ValidateNamespace(params.db, *config.view));

  // The buckets collection: what listCollections shows of it, the config.
  catalog::CreateCollectionRequest request;
  request.db = params.db;
  request.name = buckets;
  request.num_shards = params.num_shards.value_or(options_.default_shards);
  {
    bson::BsonDoc ts_options = config.TimeseriesOptions();
    BSON_APPEND_DOCUMENT(request.options.mutable_get(), "timeseries", ts_options.get());
    if (config.expire_after_seconds) {
      BSON_APPEND_INT64(request.options.mutable_get(), "expireAfterSeconds",
                        *config.expire_after_seconds);
    }
  }
  request.patterns = std::move(patterns);
  RETURN_IF_ERROR(CreateCollectionEntry(std::move(request)).status());

  // Anything failing from here drops what was made.
  auto undo = [&](Status failure) {
    (void)catalog_->DropCollection(Namespace(params.db, buckets));
    (void)catalog_->DropCollection(ns);
    return failure;
  };
  CreateIndexesParams indexes;
  indexes.db = params.db;
  indexes.coll = buckets;
  if (config.meta_field) indexes.specs.push_back(MetaTimeIndexSpec(config));
  if (config.expire_after_seconds) indexes.specs.push_back(ExpiryIndexSpec(config));
  if (!indexes.specs.empty()) {
    Status built = CreateIndexes(indexes).status();
    if (!built.ok()) return undo(built);
  }

  catalog::ViewDefinition view;
  view.ns = ns;
  view.db = params.db;
  view.name = params.name;
  view.view_on = buckets;
  view.pipeline = config.UnpackPipeline();
  view.timeseries = config.ToCanonical();
  Status created = catalog_->CreateView(std::move(view));
  if (!created.ok()) return undo(created);
  if (config.view) {
    CreateViewParams bucket_view;
    bucket_view.db = params.db;
    bucket_view.name = *config.view;
    bucket_view.view_on = buckets;
    bucket_view.pipeline = config.BucketViewPipeline();
    Status made = CreateView(bucket_view);
    if (!made.ok()) return undo(made);
  }
  return Status::OK();
}

StatusWith<CreateIndexesResult> Engine::CreateTimeseriesIndexes(const catalog::ViewDefinition& view,
                                                                const CreateIndexesParams& params) {
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, agg::TimeseriesConfig::FromCanonical(view.timeseries.get()));
  CreateIndexesParams on_buckets;
  on_buckets.db = params.db;
  on_buckets.coll = view.view_on;
  for (const bson::BsonDoc& spec : params.specs) {
    ASSIGN_OR_RETURN(bson::BsonDoc translated, agg::ToBucketIndexSpec(config, spec.get()));
    on_buckets.specs.push_back(std::move(translated));
  }
  return CreateIndexes(on_buckets);
}

StatusWith<std::vector<bson::BsonDoc>> Engine::ListTimeseriesIndexes(const catalog::ViewDefinition& view) {
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, agg::TimeseriesConfig::FromCanonical(view.timeseries.get()));
  std::shared_ptr<catalog::CollectionEntry> buckets = catalog_->Lookup(Namespace(view.db, view.view_on));
  std::vector<bson::BsonDoc> out;
  if (!buckets) return out;
  // As MongoDB: no _id index (the buckets are clustered by _id), and the
  // expiry index is the collection's expireAfterSeconds, not an index.
  for (const auto& spec : buckets->indexes()->specs) {
    if (spec->name == agg::kBucketExpiryIndexName) continue;
    bson::BsonDoc listed = spec->ToListIndexesBson();
    bson::BsonDoc translated;
    bson_iter_t it;
    bson_iter_init(&it, listed.get());
    while (bson_iter_next(&it)) {
      if (std::string_view(bson_iter_key(&it)) == "key" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
        bson_t key = bson::SubDocumentView(&it);
        bson::BsonDoc original = agg::FromBucketKey(config, &key);
        BSON_APPEND_DOCUMENT(translated.mutable_get(), "key", original.get());
      } else {
        bson_append_iter(translated.mutable_get(), bson_iter_key(&it), -1, &it);
      }
    }
    out.push_back(std::move(translated));
  }
  return out;
}

StatusWith<int> Engine::DropTimeseriesIndexes(const catalog::ViewDefinition& view,
                                              const DropIndexesParams& params) {
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, agg::TimeseriesConfig::FromCanonical(view.timeseries.get()));
  DropIndexesParams on_buckets;
  on_buckets.db = params.db;
  on_buckets.coll = view.view_on;
  on_buckets.kind = params.kind;
  on_buckets.names = params.names;
  if (params.kind == DropIndexesParams::Kind::kKeyPattern) {
    ASSIGN_OR_RETURN(bson::BsonDoc spec, [&]() {
      bson::BsonDoc wrapped;
      BSON_APPEND_DOCUMENT(wrapped.mutable_get(), "key", params.key_pattern.get());
      return agg::ToBucketIndexSpec(config, wrapped.get());
    }());
    bson_iter_t it;
    if (bson_iter_init_find(&it, spec.get(), "key") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t key = bson::SubDocumentView(&it);
      on_buckets.key_pattern = bson::BsonDoc::CopyOf(&key);
    }
  } else if (params.kind == DropIndexesParams::Kind::kAll) {
    // "*": the indexes listIndexes shows, not the expiry index.
    ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> listed, ListTimeseriesIndexes(view));
    on_buckets.kind = DropIndexesParams::Kind::kNames;
    on_buckets.names.clear();
    for (const bson::BsonDoc& index : listed) {
      bson_iter_t name;
      if (bson_iter_init_find(&name, index.get(), "name")) on_buckets.names.emplace_back(bson_iter_utf8(&name, nullptr));
    }
    if (on_buckets.names.empty()) return static_cast<int>(listed.size());
  }
  return DropIndexes(on_buckets);
}

Status Engine::ModifyTimeseries(const catalog::ViewDefinition& view, const bson_t* fields) {
  bson_iter_t it;
  bson_iter_init(&it, fields);
  bson_iter_t expire;
  bool has_expire = false;
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key == "expireAfterSeconds") {
      expire = it;
      has_expire = true;
    } else if (key == "timeseries" || key == "bucket") {
      return Status(ErrorCode::kNotImplemented, "collMod of '" + std::string(key) +
                                                    "' of a time-series collection is not supported by "
                                                    "tigerdoc yet");
    } else {
      return Status(ErrorCode::kInvalidOptions,
                    "option not supported on a time-series collection: " + std::string(key));
    }
  }
  if (!has_expire) return Status::OK();
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, agg::TimeseriesConfig::FromCanonical(view.timeseries.get()));
  ASSIGN_OR_RETURN(config.expire_after_seconds,
                   agg::TimeseriesConfig::ParseExpireAfterSeconds("collMod", &expire));
  // The buckets' expiry index first (what the TTL monitor acts on), then
  // the configs that show it.
  std::shared_ptr<catalog::CollectionEntry> buckets = catalog_->Lookup(Namespace(view.db, view.view_on));
  if (!buckets) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
  const bool indexed = buckets->indexes()->FindByName(agg::kBucketExpiryIndexName) != nullptr;
  if (config.expire_after_seconds && indexed) {
    IndexModification mod;
    mod.name = agg::kBucketExpiryIndexName;
    mod.expire_after_seconds = *config.expire_after_seconds;
    RETURN_IF_ERROR(ModifyIndex(view.db, view.view_on, mod).status());
  } else if (config.expire_after_seconds) {
    CreateIndexesParams index;
    index.db = view.db;
    index.coll = view.view_on;
    index.specs.push_back(ExpiryIndexSpec(config));
    RETURN_IF_ERROR(CreateIndexes(index).status());
  } else if (indexed) {
    DropIndexesParams drop;
    drop.db = view.db;
    drop.coll = view.view_on;
    drop.names.push_back(agg::kBucketExpiryIndexName);
    RETURN_IF_ERROR(DropIndexes(drop).status());
  }
  bson::BsonDoc pattern_fields;
  if (config.expire_after_seconds) {
    BSON_APPEND_INT64(pattern_fields.mutable_get(), "expireAfterSeconds", *config.expire_after_seconds);
  } else {
    BSON_APPEND_NULL(pattern_fields.mutable_get(), "expireAfterSeconds");
  }
  RETURN_IF_ERROR(ModifyPatterns(view.db, view.view_on, pattern_fields.get()));
  catalog::ViewDefinition modified;
  modified.ns = view.ns;
  modified.db = view.db;
  modified.name = view.name;
  modified.view_on = view.view_on;
  modified.pipeline = view.pipeline.Copy();
  modified.timeseries = config.ToCanonical();
  return catalog_->ModifyView(std::move(modified));
}

Status Engine::DropTimeseries(const catalog::ViewDefinition& view) {
  StatusWith<agg::TimeseriesConfig> config = agg::TimeseriesConfig::FromCanonical(view.timeseries.get());
  // The bucket view goes with the collection it shows (when it is still
  // the one made for it).
  if (config.ok() && config.value().view) {
    const std::string bucket_view = Namespace(view.db, *config.value().view);
    auto shown = catalog_->LookupView(bucket_view);
    if (shown && shown->view_on == view.view_on) (void)catalog_->DropCollection(bucket_view);
  }
  RETURN_IF_ERROR(catalog_->DropCollection(view.ns));
  Status dropped = catalog_->DropCollection(Namespace(view.db, view.view_on));
  return dropped.code() == ErrorCode::kNamespaceNotFound ? Status::OK() : dropped;
}

StatusWith<std::vector<Status>> Engine::InsertMeasurements(const catalog::ViewDefinition& view,
                                                           std::span<const std::string_view> docs,
                                                           bool ordered) {
  // Larger than InsertMany's groups: measurements of one group that share a
  // bucket rewrite it once, and a batch usually holds several per bucket.
  constexpr size_t kGroupSize = 1000;
  std::shared_ptr<catalog::CollectionEntry> buckets =
      catalog_->Lookup(Namespace(view.db, view.view_on));
  if (!buckets) {
    return Status(ErrorCode::kNamespaceNotFound,
                  "the buckets collection " + Namespace(view.db, view.view_on) + " of " + view.ns +
                      " is missing");
  }
  storage::Session session = storage_->NewSession();
  auto insert_group = [&](const PreparedInsert* group, size_t count) -> Status {
    // Views of the group, each initialised in place (a bson_t view may not
    // be moved), so no regrowth.
    std::vector<bson_t> views(count);
    std::vector<const bson_t*> ptrs;
    ptrs.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      group[i].View(&views[i]);
      ptrs.push_back(&views[i]);
    }
    CollectionWriter writer(*catalog_, *buckets);
    return RunWriteUnit(session, [&]() -> Status { return writer.InsertRouted(session, ptrs); });
  };
  auto prepare = [&](std::string_view input) -> StatusWith<PreparedInsert> {
    bson_t view;
    INVARIANT(bson_init_static(&view, reinterpret_cast<const uint8_t*>(input.data()),
                               input.size()));
    ASSIGN_OR_RETURN(bson::BsonDoc prepared, WithIdFirst(&view));
    if (static_cast<int64_t>(prepared.size()) > buckets->metadata.max_document_bytes) {
      return Status(ErrorCode::kBSONObjectTooLarge,
                    "object to insert too large. size in bytes: " +
                        std::to_string(prepared.size()) + ", max size: " +
                        std::to_string(buckets->metadata.max_document_bytes));
    }
    return PreparedInsert(std::move(prepared));
  };
  return InsertInGroups(docs, kGroupSize, ordered, prepare, insert_group);
}

}  // namespace tigerdoc::engine
