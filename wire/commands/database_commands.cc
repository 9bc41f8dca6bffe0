// Namespace commands: listDatabases, listCollections, create, drop,
// dropDatabase, dbStats, collStats.

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/bson/shell_string.h"
#include "engine/catalog/capped_options.h"
#include "engine/catalog/id_index_document.h"
#include "engine/query/matcher/matcher.h"
#include "engine/write/pattern_registry.h"
#include "wire/commands/collation_option.h"
#include "wire/auth/auth_manager.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

std::string Namespace(const std::string& db, const std::string& coll) { return db + "." + coll; }

// A filter from the command ({filter: {...}}), applied with the query matcher.
StatusWith<std::unique_ptr<query::Matcher>> FilterOf(const bson_t* body, std::string_view command) {
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> filter, GetObject(body, command, "filter"));
  bson::BsonDoc empty;
  return query::Matcher::Parse(filter ? filter->get() : empty.get());
}

// Stats of one collection summed over its shards.
struct CollectionSizes {
  int64_t count = 0;
  int64_t data_bytes = 0;
};

CollectionSizes SizesOf(const catalog::CollectionEntry& entry) {
  storage::ShardStats total = entry.store->TotalStats();
  return CollectionSizes{total.count, total.data_bytes};
}

int64_t Scaled(int64_t bytes, int64_t scale) { return bytes / scale; }

// listCollections' entry of a time-series collection, as mongod shows it:
// {name, type: "timeseries", options: {timeseries: {...}, [expireAfterSeconds]},
//  info: {readOnly: false}}.
bson::BsonDoc TimeseriesInfo(const catalog::ViewDefinition& view, bool name_only) {
  bson::BsonDoc info;
  bson_t* doc = info.mutable_get();
  BSON_APPEND_UTF8(doc, "name", view.name.c_str());
  BSON_APPEND_UTF8(doc, "type", "timeseries");
  if (name_only) return info;
  StatusWith<agg::TimeseriesConfig> config = agg::TimeseriesConfig::FromCanonical(view.timeseries.get());
  bson_t options;
  bson_append_document_begin(doc, "options", -1, &options);
  if (config.ok()) {
    bson::BsonDoc ts = config.value().TimeseriesOptions();
    BSON_APPEND_DOCUMENT(&options, "timeseries", ts.get());
    if (config.value().expire_after_seconds) {
      BSON_APPEND_INT64(&options, "expireAfterSeconds", *config.value().expire_after_seconds);
    }
  }
  bson_append_document_end(doc, &options);
  bson_t sub;
  bson_append_document_begin(doc, "info", -1, &sub);
  BSON_APPEND_BOOL(&sub, "readOnly", false);
  bson_append_document_end(doc, &sub);
  return info;
}

// listCollections' entry of a view.
bson::BsonDoc ViewInfo(const catalog::ViewDefinition& view, bool name_only) {
  if (view.is_timeseries()) return TimeseriesInfo(view, name_only);
  bson::BsonDoc info;
  bson_t* doc = info.mutable_get();
  BSON_APPEND_UTF8(doc, "name", view.name.c_str());
  BSON_APPEND_UTF8(doc, "type", "view");
  if (!name_only) {
    bson_t options;
    bson_append_document_begin(doc, "options", -1, &options);
    BSON_APPEND_UTF8(&options, "viewOn", view.view_on.c_str());
    BSON_APPEND_ARRAY(&options, "pipeline", view.pipeline.get());
    if (view.collator != nullptr) BSON_APPEND_DOCUMENT(&options, "collation", view.collator->spec());
    bson_append_document_end(doc, &options);
    bson_t sub;
    bson_append_document_begin(doc, "info", -1, &sub);
    BSON_APPEND_BOOL(&sub, "readOnly", true);
    bson_append_document_end(doc, &sub);
  }
  return info;
}

// create {viewOn, pipeline}: a view. Options that make no sense for a view
// are refused as MongoDB refuses them (InvalidOptions).
StatusWith<bson::BsonDoc> CreateView(CommandContext& ctx, const std::string& name) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"viewOn", "pipeline", "collation"}));
  ASSIGN_OR_RETURN(std::optional<std::string> view_on, GetString(ctx.body(), ctx.name, "viewOn"));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> pipeline, GetArray(ctx.body(), ctx.name, "pipeline"));
  ASSIGN_OR_RETURN(engine::CollationOption collation, GetCollation(ctx.body(), ctx.name));
  engine::CreateViewParams params;
  params.db = ctx.db();
  params.name = name;
  params.view_on = *view_on;
  params.collator = collation ? *collation : nullptr;  // none given: simple, whatever viewOn's
  if (pipeline) params.pipeline = std::move(*pipeline);
  Status status = ctx.engine->CreateView(params);
  if (status.code() == ErrorCode::kNamespaceExists) {
    // As for collections: creating the same view again succeeds.
    auto existing = ctx.engine->catalog().LookupView(Namespace(ctx.db(), name));
    if (existing && existing->view_on == params.view_on &&
        bson::SameCollation(existing->collator, params.collator) &&
        existing->pipeline.bytes() == params.pipeline.bytes()) {
      return bson::BsonDoc();
    }
  }
  RETURN_IF_ERROR(status);
  return bson::BsonDoc();
}

// collStats of a time-series collection, as mongod answers it: the
// buckets collection's sizes under the collection's name, without count
// and avgObjSize (those would count buckets), and a `timeseries` section.
StatusWith<bson::BsonDoc> TimeseriesCollStats(CommandContext& ctx, const catalog::ViewDefinition& view,
                                              int64_t scale) {
  const std::string buckets_ns = Namespace(view.db, view.view_on);
  auto entry = ctx.engine->catalog().Lookup(buckets_ns);
  if (!entry) return Status(ErrorCode::kNamespaceNotFound, "Collection [" + view.ns + "] not found.");
  bson::BsonDoc buckets = CollStatsDocument(*ctx.engine, *entry, scale);
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "ns", view.ns.c_str());
  bson_iter_t it;
  bson_iter_init(&it, buckets.get());
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key == "ns" || key == "count" || key == "avgObjSize") continue;
    bson_append_iter(out.mutable_get(), bson_iter_key(&it), -1, &it);
  }
  const CollectionSizes sizes = SizesOf(*entry);
  bson_t ts;
  bson_append_document_begin(out.mutable_get(), "timeseries", -1, &ts);
  BSON_APPEND_UTF8(&ts, "bucketsNs", buckets_ns.c_str());
  BSON_APPEND_INT64(&ts, "bucketCount", sizes.count);
  BSON_APPEND_INT64(&ts, "avgBucketSize", sizes.count > 0 ? sizes.data_bytes / sizes.count : 0);
  bson_append_document_end(out.mutable_get(), &ts);
  return out;
}

}  // namespace

StatusWith<bson::BsonDoc> RunListDatabases(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"filter", "nameOnly", "authorizedDatabases"}));
  ASSIGN_OR_RETURN(std::optional<bool> name_only, GetBool(ctx.body(), ctx.name, "nameOnly"));
  ASSIGN_OR_RETURN(auto matcher, FilterOf(ctx.body(), ctx.name));
  // As MongoDB: a user without the listDatabases action sees the databases
  // it holds privileges on, unless it asks authorizedDatabases: false.
  ASSIGN_OR_RETURN(std::optional<bool> authorized_only,
                   GetBool(ctx.body(), ctx.name, "authorizedDatabases"));
  const bool sees_all =
      ctx.auth == nullptr || ctx.auth->Allowed(*ctx.session, "", auth::action::kListDatabases);
  if (!sees_all && authorized_only == false) {
    return Status(ErrorCode::kUnauthorized,
                  "not authorized on admin to execute command " + bson::ToShellString(ctx.body()));
  }
  bson::BsonDoc out;
  bson_t databases;
  int64_t total_size = 0;
  bson_append_array_begin(out.mutable_get(), "databases", -1, &databases);
  uint32_t index = 0;
  for (const std::string& db : ctx.engine->catalog().ListDatabases()) {
    if (!sees_all && !ctx.auth->HoldsAnyActionOn(*ctx.session, db)) continue;
    int64_t size = 0;
    for (const auto& entry : ctx.engine->catalog().List(db)) size += SizesOf(*entry).data_bytes;
    bson::BsonDoc info;
    BSON_APPEND_UTF8(info.mutable_get(), "name", db.c_str());
    if (!name_only.value_or(false)) {
      BSON_APPEND_DOUBLE(info.mutable_get(), "sizeOnDisk", static_cast<double>(size));
      BSON_APPEND_BOOL(info.mutable_get(), "empty", size == 0);
    }
    if (!matcher->Matches(info.get())) continue;
    total_size += size;
    std::string key = std::to_string(index++);
    BSON_APPEND_DOCUMENT(&databases, key.c_str(), info.get());
  }
  bson_append_array_end(out.mutable_get(), &databases);
  if (!name_only.value_or(false)) {
    BSON_APPEND_DOUBLE(out.mutable_get(), "totalSize", static_cast<double>(total_size));
    BSON_APPEND_INT64(out.mutable_get(), "totalSizeMb", total_size / (1024 * 1024));
  }
  return out;
}

StatusWith<bson::BsonDoc> RunListCollections(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name,
                              {"filter", "nameOnly", "authorizedCollections", "cursor", "includePendingDrops"}));
  ASSIGN_OR_RETURN(std::optional<bool> name_only, GetBool(ctx.body(), ctx.name, "nameOnly"));
  ASSIGN_OR_RETURN(auto matcher, FilterOf(ctx.body(), ctx.name));
  RETURN_IF_ERROR(catalog::Catalog::ValidateDbName(ctx.db()));
  std::vector<bson::BsonDoc> docs;
  for (const auto& entry : ctx.engine->catalog().List(ctx.db())) {
    const catalog::CollectionMetadata& meta = entry->metadata;
    bson::BsonDoc info;
    bson_t* doc = info.mutable_get();
    BSON_APPEND_UTF8(doc, "name", meta.name.c_str());
    BSON_APPEND_UTF8(doc, "type", "collection");
    if (!name_only.value_or(false)) {
      {
        // collMod replaces the options under the exclusive write lock.
        std::shared_lock<std::shared_mutex> options_lock(entry->write_mutex());
        BSON_APPEND_DOCUMENT(doc, "options", meta.options.get());
      }
      bson_t sub;
      bson_append_document_begin(doc, "info", -1, &sub);
      BSON_APPEND_BOOL(&sub, "readOnly", false);
      bson_append_document_end(doc, &sub);
      BSON_APPEND_DOCUMENT(doc, "idIndex", catalog::IdIndexDocumentOf(meta).get());
    }
    if (matcher->Matches(info.get())) docs.push_back(std::move(info));
  }
  for (const auto& view : ctx.engine->catalog().ListViews(ctx.db())) {
    bson::BsonDoc info = ViewInfo(*view, name_only.value_or(false));
    if (matcher->Matches(info.get())) docs.push_back(std::move(info));
  }
  // One list in name order, views among the collections.
  std::sort(docs.begin(), docs.end(), [](const bson::BsonDoc& a, const bson::BsonDoc& b) {
    bson_iter_t ia, ib;
    bson_iter_init_find(&ia, a.get(), "name");
    bson_iter_init_find(&ib, b.get(), "name");
    return std::string_view(bson_iter_utf8(&ia, nullptr)) < std::string_view(bson_iter_utf8(&ib, nullptr));
  });
  // The whole (small) list goes in the first batch; the cursor is closed.
  return CursorFields("firstBatch", 0, ctx.db() + ".$cmd.listCollections", docs);
}

// autoIndexId (a safeBool): true is the default. false, a collection
// without the _id index, is refused as MongoDB 7 refuses it on every
// replicated namespace (all but the `local` database and system.profile):
// 50001. MongoDB honours it there; tigerdoc's record keys are built from
// _id, which keeps it unique, so it says so (238) rather than ignore it.
Status CheckAutoIndexId(CommandContext& ctx, const std::string& name) {
  ASSIGN_OR_RETURN(std::optional<bool> auto_index_id, GetBool(ctx.body(), ctx.name, "autoIndexId"));
  if (!auto_index_id || *auto_index_id) return Status::OK();
  const std::string ns = Namespace(ctx.db(), name);
  if (ctx.db() != "local" && name != "system.profile") {
    return Status(static_cast<ErrorCode>(50001),
                  "autoIndexId:false is not allowed for collection " + ns + " because it can be replicated");
  }
  return Status(ErrorCode::kNotImplemented,
                "autoIndexId:false is not supported by tigerdoc: every collection keeps its _id index");
}

StatusWith<bson::BsonDoc> RunCreate(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string name, CollectionArgument(ctx.body(), ctx.name));
  bson_iter_t view_on;
  if (bson_iter_init_find(&view_on, ctx.body(), "viewOn")) return CreateView(ctx, name);
  bson_iter_t pipeline;
  if (bson_iter_init_find(&pipeline, ctx.body(), "pipeline")) {
    return Status(ErrorCode::kBadValue, "'pipeline' requires 'viewOn' to also be specified");
  }
  // Options tigerdoc does not have yet are refused, not ignored.
  for (const char* unsupported : {"clusteredIndex", "encryptedFields"}) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, ctx.body(), unsupported)) {
      return Status(ErrorCode::kNotImplemented,
                    std::string("create option '") + unsupported + "' is not supported by tigerdoc yet");
    }
  }
  // Options patterns own are theirs to check (the engine's registry).
  bson::BsonDoc without_patterns;
  bson_iter_t field;
  bson_iter_init(&field, ctx.body());
  while (bson_iter_next(&field)) {
    if (ctx.engine->patterns().IsOption(bson_iter_key(&field))) continue;
    bson_append_iter(without_patterns.mutable_get(), bson_iter_key(&field), -1, &field);
  }
  RETURN_IF_ERROR(CheckFields(without_patterns.get(), ctx.name,
                              {"shardKey", "shards", "capped", "size", "max", "autoIndexId", "idIndex",
                               "storageEngine", "validator", "validationLevel", "validationAction",
                               "indexOptionDefaults", "expireAfterSeconds", "flags", "collation"}));
  RETURN_IF_ERROR(CheckAutoIndexId(ctx, name));
  ASSIGN_OR_RETURN(bson::BsonDoc capped, catalog::ParseCappedCreateOptions(ctx.body()));
  ASSIGN_OR_RETURN(engine::CollationOption collation, GetCollation(ctx.body(), ctx.name));
  engine::CreateParams params;
  params.db = ctx.db();
  params.name = name;
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> shard_key, GetObject(ctx.body(), ctx.name, "shardKey"));
  if (shard_key) {
    bson_iter_t it;
    if (bson_count_keys(shard_key->get()) != 1 || !bson_iter_init(&it, shard_key->get()) ||
        !bson_iter_next(&it) || !(BSON_ITER_HOLDS_NUMBER(&it) && bson_iter_as_int64(&it) == 1)) {
      return Status(ErrorCode::kBadValue,
                    "shardKey must name exactly one field with value 1, e.g. {shardKey: {customerId: 1}}");
    }
    params.shard_key_field = bson_iter_key(&it);
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> shards, GetInt64(ctx.body(), ctx.name, "shards"));
  if (shards) {
    if (*shards < 1 || *shards > 1024) {
      return Status(ErrorCode::kBadValue, "shards must be between 1 and 1024, got " + std::to_string(*shards));
    }
    params.num_shards = static_cast<int>(*shards);
  }
  if (!capped.empty()) {
    // A capped collection is kept in insertion order in one table
    // (engine/README.md, "Capped collections"): it cannot be spread by a key.
    if ((shard_key && params.shard_key_field != "_id") || (shards && *shards != 1)) {
      return Status(ErrorCode::kInvalidOptions,
                    "a capped collection is one shard in tigerdoc: 'shardKey' and 'shards' "
                    "cannot be given with 'capped: true'");
    }
    params.num_shards = 1;
    params.shard_key_field = "_id";
    // MongoDB lists {capped, size, max} first, as it normalised them.
    bson_concat(params.options.mutable_get(), capped.get());
  }
  // Keep the options as given (minus the command name and generic fields)
  // for listCollections.
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  while (bson_iter_next(&it)) {
    if (IsGenericArgument(bson_iter_key(&it))) continue;
    const std::string_view key = bson_iter_key(&it);
    if (key == "capped" || key == "size" || key == "max") continue;  // see above
    if (std::string_view(bson_iter_key(&it)) == "collation") {
      // Kept normalized, every field filled in, as MongoDB stores and
      // lists it; {locale: "simple"} is no default at all.
      if (*collation != nullptr) {
        BSON_APPEND_DOCUMENT(params.options.mutable_get(), "collation", (*collation)->spec());
      }
      continue;
    }
    bson_append_iter(params.options.mutable_get(), bson_iter_key(&it), -1, &it);
  }
  Status status = ctx.engine->CreateCollection(params);
  if (status.code() == ErrorCode::kNamespaceExists) {
    // As MongoDB 7.0: creating an existing collection with the same options succeeds.
    auto existing = ctx.engine->catalog().Lookup(Namespace(ctx.db(), name));
    if (existing && existing->metadata.options.bytes() == params.options.bytes()) {
      return bson::BsonDoc();
    }
  }
  RETURN_IF_ERROR(status);
  return bson::BsonDoc();
}

StatusWith<bson::BsonDoc> RunDrop(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string name, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckCollectionNamespace(ctx.db(), name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {}));
  std::string ns = Namespace(ctx.db(), name);
  bool existed = ctx.engine->catalog().Lookup(ns) != nullptr;
  Status status = ctx.engine->DropCollection(ctx.db(), name);
  // As MongoDB 7.0: dropping a missing collection succeeds.
  if (status.code() == ErrorCode::kNamespaceNotFound) return bson::BsonDoc();
  RETURN_IF_ERROR(status);
  bson::BsonDoc out;
  if (existed) {
    BSON_APPEND_INT32(out.mutable_get(), "nIndexesWas", 1);
    BSON_APPEND_UTF8(out.mutable_get(), "ns", ns.c_str());
  }
  return out;
}

StatusWith<bson::BsonDoc> RunDropDatabase(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {}));
  RETURN_IF_ERROR(catalog::Catalog::ValidateDbName(ctx.db()));
  // admin holds the users (admin.system.users): dropping it would remove
  // every login and, after a restart, reopen the localhost exception.
  if (ctx.db() == "admin") {
    return Status(ErrorCode::kIllegalOperation, "Dropping the 'admin' database is prohibited.");
  }
  if (ctx.db() == "local" && !ctx.server->repl_set_name.empty()) {
    return Status(ErrorCode::kIllegalOperation,
                  "Cannot drop 'local' database while replication is active");
  }
  RETURN_IF_ERROR(ctx.engine->DropDatabase(ctx.db()));
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "dropped", ctx.db().c_str());
  return out;
}

StatusWith<bson::BsonDoc> RunDbStats(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"scale", "freeStorage"}));
  ASSIGN_OR_RETURN(std::optional<int64_t> scale_arg, GetInt64(ctx.body(), ctx.name, "scale"));
  int64_t scale = scale_arg.value_or(1);
  if (scale < 1) return Status(ErrorCode::kBadValue, "Scale factor must be greater than zero");
  int64_t collections = 0, objects = 0, data = 0, indexes = 0, index_bytes = 0;
  for (const auto& entry : ctx.engine->catalog().List(ctx.db())) {
    CollectionSizes sizes = SizesOf(*entry);
    for (const auto& [name, bytes] : ctx.engine->IndexSizes(*entry)) {
      ++indexes;
      index_bytes += bytes;
    }
    ++collections;
    objects += sizes.count;
    data += sizes.data_bytes;
  }
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "db", ctx.db().c_str());
  BSON_APPEND_INT32(doc, "collections", static_cast<int32_t>(collections));
  BSON_APPEND_INT32(doc, "views", static_cast<int32_t>(ctx.engine->catalog().ListViews(ctx.db()).size()));
  BSON_APPEND_INT32(doc, "objects", static_cast<int32_t>(objects));
  BSON_APPEND_DOUBLE(doc, "avgObjSize", objects ? static_cast<double>(data) / objects : 0.0);
  BSON_APPEND_DOUBLE(doc, "dataSize", static_cast<double>(Scaled(data, scale)));
  BSON_APPEND_DOUBLE(doc, "storageSize", static_cast<double>(Scaled(data, scale)));
  BSON_APPEND_INT32(doc, "indexes", static_cast<int32_t>(indexes));
  BSON_APPEND_DOUBLE(doc, "indexSize", static_cast<double>(Scaled(index_bytes, scale)));
  BSON_APPEND_DOUBLE(doc, "totalSize", static_cast<double>(Scaled(data + index_bytes, scale)));
  BSON_APPEND_INT32(doc, "scaleFactor", static_cast<int32_t>(scale));
  return out;
}

StatusWith<bson::BsonDoc> RunCollStats(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string name, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"scale", "verbose"}));
  ASSIGN_OR_RETURN(std::optional<int64_t> scale_arg, GetInt64(ctx.body(), ctx.name, "scale"));
  int64_t scale = scale_arg.value_or(1);
  if (scale < 1) return Status(ErrorCode::kBadValue, "Scale factor must be greater than zero");
  std::string ns = Namespace(ctx.db(), name);
  if (auto view = ctx.engine->TimeseriesView(ctx.db(), name)) return TimeseriesCollStats(ctx, *view, scale);
  RETURN_IF_ERROR(ctx.engine->RefuseView(ctx.db(), name));
  auto entry = ctx.engine->catalog().Lookup(ns);
  if (!entry) return Status(ErrorCode::kNamespaceNotFound, "Collection [" + ns + "] not found.");
  return CollStatsDocument(*ctx.engine, *entry, scale);
}

// collStats' capped fields as MongoDB 7: capped, and for a capped
// collection max (0 when none was given) and maxSize (scaled).
static void AppendCappedStats(bson_t* doc, const catalog::CollectionEntry& entry, int64_t scale) {
  std::optional<catalog::CappedLimits> limits =
      catalog::CappedLimitsOf(entry.metadata.options.get());
  BSON_APPEND_BOOL(doc, "capped", limits.has_value());
  if (!limits) return;
  bson_iter_t max;
  const bool has_max = bson_iter_init_find(&max, entry.metadata.options.get(), "max");
  catalog::AppendNumber(doc, "max", has_max ? bson_iter_as_int64(&max) : 0);
  catalog::AppendNumber(doc, "maxSize", limits->max_bytes / scale);
}

bson::BsonDoc CollStatsShardDocument(engine::Engine& engine, const catalog::CollectionEntry& entry,
                                     int shard) {
  const storage::ShardStats s = entry.store->StatsOf(shard);
  const std::vector<std::pair<std::string, int64_t>> index_sizes = engine.IndexSizes(entry, shard);
  int64_t total_index_size = 0;
  for (const auto& [name, bytes] : index_sizes) total_index_size += bytes;
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "ns", entry.metadata.ns.c_str());
  BSON_APPEND_INT64(doc, "size", s.data_bytes);
  BSON_APPEND_INT64(doc, "count", s.count);
  if (s.count > 0) BSON_APPEND_INT64(doc, "avgObjSize", s.data_bytes / s.count);
  BSON_APPEND_INT64(doc, "storageSize", s.data_bytes);
  AppendCappedStats(doc, entry, 1);
  BSON_APPEND_INT32(doc, "nindexes", static_cast<int32_t>(index_sizes.size()));
  bson_t sizes_doc;
  bson_append_document_begin(doc, "indexSizes", -1, &sizes_doc);
  for (const auto& [name, bytes] : index_sizes) {
    bson_append_int64(&sizes_doc, name.c_str(), static_cast<int>(name.size()), bytes);
  }
  bson_append_document_end(doc, &sizes_doc);
  BSON_APPEND_INT64(doc, "totalIndexSize", total_index_size);
  BSON_APPEND_INT64(doc, "totalSize", s.data_bytes + total_index_size);
  BSON_APPEND_INT32(doc, "scaleFactor", 1);
  // tigerdoc's own: what each configured pattern reports for this shard.
  StatusWith<bson::BsonDoc> patterns = engine.PatternShardStats(entry, shard);
  if (patterns.ok() && !patterns.value().empty()) {
    BSON_APPEND_DOCUMENT(doc, "patterns", patterns.value().get());
  } else if (!patterns.ok()) {
    BSON_APPEND_UTF8(doc, "patternsError", patterns.status().ToString().c_str());
  }
  return out;
}

bson::BsonDoc CollStatsDocument(engine::Engine& engine, const catalog::CollectionEntry& entry,
                                int64_t scale) {
  CollectionSizes sizes = SizesOf(entry);
  const std::vector<std::pair<std::string, int64_t>> index_sizes = engine.IndexSizes(entry);
  int64_t total_index_size = 0;
  for (const auto& [name, bytes] : index_sizes) total_index_size += bytes;
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "ns", entry.metadata.ns.c_str());
  BSON_APPEND_INT64(doc, "size", Scaled(sizes.data_bytes, scale));
  BSON_APPEND_INT64(doc, "count", sizes.count);
  if (sizes.count > 0) BSON_APPEND_INT64(doc, "avgObjSize", sizes.data_bytes / sizes.count);
  BSON_APPEND_INT64(doc, "storageSize", Scaled(sizes.data_bytes, scale));
  AppendCappedStats(doc, entry, scale);
  BSON_APPEND_INT32(doc, "nindexes", static_cast<int32_t>(index_sizes.size()));
  bson_t sizes_doc;
  bson_append_document_begin(doc, "indexSizes", -1, &sizes_doc);
  for (const auto& [name, bytes] : index_sizes) {
    bson_append_int64(&sizes_doc, name.c_str(), static_cast<int>(name.size()), Scaled(bytes, scale));
  }
  bson_append_document_end(doc, &sizes_doc);
  BSON_APPEND_INT64(doc, "totalIndexSize", Scaled(total_index_size, scale));
  BSON_APPEND_INT64(doc, "totalSize", Scaled(sizes.data_bytes + total_index_size, scale));
  BSON_APPEND_INT32(doc, "scaleFactor", static_cast<int32_t>(scale));
  // tigerdoc's own: how the collection is spread over its shard tables.
  bson_t sharding, shards;
  bson_append_document_begin(doc, "sharding", -1, &sharding);
  bson_t key;
  bson_append_document_begin(&sharding, "shardKey", -1, &key);
  BSON_APPEND_INT32(&key, entry.store->shard_key_field().c_str(), 1);
  bson_append_document_end(&sharding, &key);
  BSON_APPEND_INT32(&sharding, "numShards", entry.store->num_shards());
  bson_append_array_begin(&sharding, "shards", -1, &shards);
  for (int i = 0; i < entry.store->num_shards(); ++i) {
    storage::ShardStats s = entry.store->StatsOf(i);
    bson_t shard;
    std::string k = std::to_string(i);
    bson_append_document_begin(&shards, k.c_str(), -1, &shard);
    std::string shard_name = "shard" + std::to_string(i);
    BSON_APPEND_UTF8(&shard, "shardName", shard_name.c_str());
    BSON_APPEND_INT64(&shard, "count", s.count);
    BSON_APPEND_INT64(&shard, "size", Scaled(s.data_bytes, scale));
    bson_append_document_end(&shards, &shard);
  }
  bson_append_array_end(&sharding, &shards);
  bson_append_document_end(doc, &sharding);
  // tigerdoc's own: what each configured pattern reports ({sizeLimits: ...}).
  StatusWith<bson::BsonDoc> patterns = engine.PatternStats(entry);
  if (patterns.ok() && !patterns.value().empty()) {
    BSON_APPEND_DOCUMENT(doc, "patterns", patterns.value().get());
  } else if (!patterns.ok()) {
    BSON_APPEND_UTF8(doc, "patternsError", patterns.status().ToString().c_str());
  }
  return out;
}

}  // namespace tigerdoc::wire
