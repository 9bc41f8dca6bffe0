// Index commands: createIndexes, listIndexes, dropIndexes, and collMod (its
// "index" option: hidden, expireAfterSeconds), as mongosh's createIndex,
// createIndexes, getIndexes, dropIndex, dropIndexes, hideIndex and
// unhideIndex send them; collMod of a view changes its viewOn / pipeline.

#include <optional>
#include <string>

#include "engine/catalog/capped_options.h"
#include "engine/index/index_spec.h"
#include "engine/write/pattern_registry.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

constexpr char kAllIndexesExistNote[] = "all indexes already exist";
constexpr char kDroppedAllMessage[] = "non-_id indexes dropped for collection";

Status MissingField(std::string_view command, const char* field) {
  return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(command) + "." + field +
                                               "' is missing but a required field");
}

// collMod of a view: {viewOn?: <name>, pipeline?: [...]}, each defaulting to
// the view's current one (MongoDB requires both only when auth is on); any
// other option is InvalidOptions "option not supported on a view". The
// engine validates the result as create does (a cycle is 5
// GraphContainsCycle) and persists it.
StatusWith<bson::BsonDoc> CollModView(CommandContext& ctx, const std::string& coll,
                                      const catalog::ViewDefinition& view) {
  engine::CreateViewParams params;
  params.db = ctx.db();
  params.name = coll;
  params.view_on = view.view_on;
  params.pipeline = view.pipeline.Copy();
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    if (IsGenericArgument(field)) continue;
    if (field == "viewOn") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Status(ErrorCode::kInvalidOptions, "'viewOn' option must be a string");
      }
      params.view_on = bson_iter_utf8(&it, nullptr);
    } else if (field == "pipeline") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Status(ErrorCode::kInvalidOptions, "not a valid aggregation pipeline");
      }
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_array(&it, &len, &data);
      params.pipeline = bson::BsonDoc::CopyOf(data, len);
    } else {
      return Status(ErrorCode::kInvalidOptions, "option not supported on a view: " + std::string(field));
    }
  }
  RETURN_IF_ERROR(ctx.engine->ModifyView(params));
  return bson::BsonDoc();
}

}  // namespace

StatusWith<bson::BsonDoc> RunCreateIndexes(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"indexes", "commitQuorum", "ignoreUnknownIndexOptions"}));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> indexes, GetArray(ctx.body(), ctx.name, "indexes"));
  if (!indexes) return MissingField(ctx.name, "indexes");
  // commitQuorum only matters to replica sets; a standalone accepts any
  // well-typed value.
  bson_iter_t quorum;
  if (bson_iter_init_find(&quorum, ctx.body(), "commitQuorum") && !BSON_ITER_HOLDS_UTF8(&quorum) &&
      !BSON_ITER_HOLDS_NUMBER(&quorum)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'createIndexes.commitQuorum' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&quorum))) +
                      "', expected types '[string, int]'");
  }
  // ignoreUnknownIndexOptions is a safeBool in MongoDB's IDL: a boolean or
  // a number; true drops the fields an index spec may not hold.
  bool ignore_unknown = false;
  bson_iter_t ignore;
  if (bson_iter_init_find(&ignore, ctx.body(), "ignoreUnknownIndexOptions")) {
    if (!BSON_ITER_HOLDS_BOOL(&ignore) && !BSON_ITER_HOLDS_NUMBER(&ignore)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'createIndexes.ignoreUnknownIndexOptions' is the wrong type '" +
                        std::string(BsonTypeName(bson_iter_type(&ignore))) +
                        "', expected types '[bool, long, int, decimal, double]'");
    }
    ignore_unknown = bson_iter_as_bool(&ignore);
  }
  engine::CreateIndexesParams params;
  params.db = ctx.db();
  params.coll = coll;
  bson_iter_t it;
  bson_iter_init(&it, indexes->get());
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'createIndexes.indexes." + std::string(bson_iter_key(&it)) +
                        "' is the wrong type '" + std::string(BsonTypeName(bson_iter_type(&it))) +
                        "', expected type 'object'");
    }
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    bson::BsonDoc spec = bson::BsonDoc::CopyOf(data, len);
    if (ignore_unknown) {
      bson::BsonDoc known;
      bson_iter_t field;
      bson_iter_init(&field, spec.get());
      while (bson_iter_next(&field)) {
        if (index::IsIndexSpecField(bson_iter_key(&field))) {
          bson_append_iter(known.mutable_get(), nullptr, 0, &field);
        }
      }
      spec = std::move(known);
    }
    params.specs.push_back(std::move(spec));
  }
  if (params.specs.empty()) {
    return Status(ErrorCode::kBadValue, "Must specify at least one index to create");
  }
  ASSIGN_OR_RETURN(engine::CreateIndexesResult result, ctx.engine->CreateIndexes(params));
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_INT32(doc, "numIndexesBefore", result.num_indexes_before);
  BSON_APPEND_INT32(doc, "numIndexesAfter", result.num_indexes_after);
  if (result.all_already_existed) {
    BSON_APPEND_UTF8(doc, "note", kAllIndexesExistNote);
  } else {
    BSON_APPEND_BOOL(doc, "createdCollectionAutomatically", result.created_collection);
  }
  return out;
}

StatusWith<bson::BsonDoc> RunListIndexes(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name,
                              {"cursor", "includeBuildUUIDs", "includeIndexBuildInfo"}));
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> docs, ctx.engine->ListIndexes(ctx.db(), coll));
  // The whole (small) list goes in the first batch; the cursor is closed.
  return CursorFields("firstBatch", 0, ctx.db() + ".$cmd.listIndexes." + coll, docs);
}

StatusWith<bson::BsonDoc> RunDropIndexes(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"index"}));
  engine::DropIndexesParams params;
  params.db = ctx.db();
  params.coll = coll;
  bson_iter_t it;
  if (!bson_iter_init_find(&it, ctx.body(), "index")) return MissingField(ctx.name, "index");
  if (BSON_ITER_HOLDS_UTF8(&it)) {
    std::string name = bson_iter_utf8(&it, nullptr);
    if (name == "*") {
      params.kind = engine::DropIndexesParams::Kind::kAll;
    } else {
      params.kind = engine::DropIndexesParams::Kind::kName;
      params.names.push_back(std::move(name));
    }
  } else if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
    params.kind = engine::DropIndexesParams::Kind::kKeyPattern;
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    params.key_pattern = bson::BsonDoc::CopyOf(data, len);
  } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
    params.kind = engine::DropIndexesParams::Kind::kNames;
    bson_iter_t name;
    bson_iter_recurse(&it, &name);
    while (bson_iter_next(&name)) {
      if (!BSON_ITER_HOLDS_UTF8(&name)) {
        return Status(ErrorCode::kTypeMismatch,
                      "dropIndexes " + ctx.db() + "." + coll +
                          " (index names must be strings) failed to drop multiple indexes");
      }
      params.names.emplace_back(bson_iter_utf8(&name, nullptr));
    }
  } else {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'dropIndexes.index' is the wrong type '" +
                      std::string(BsonTypeName(bson_iter_type(&it))) +
                      "', expected types '[string, object, array]'");
  }
  ASSIGN_OR_RETURN(int was, ctx.engine->DropIndexes(params));
  bson::BsonDoc out;
  BSON_APPEND_INT32(out.mutable_get(), "nIndexesWas", was);
  if (params.kind == engine::DropIndexesParams::Kind::kAll) {
    BSON_APPEND_UTF8(out.mutable_get(), "msg", kDroppedAllMessage);
  }
  return out;
}

// collMod: of a collection, the "index" option (hidden, expireAfterSeconds)
// and the options patterns own (the engine's registry validates and applies
// them); other collection options are refused, not ignored. Of a view: viewOn and pipeline (CollModView).
StatusWith<bson::BsonDoc> RunCollMod(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), ctx.name));
  const std::string ns = ctx.db() + "." + coll;
  if (auto view = ctx.engine->TimeseriesView(ctx.db(), coll)) {
    bson::BsonDoc fields;
    bson_iter_t field;
    bson_iter_init(&field, ctx.body());
    bson_iter_next(&field);
    while (bson_iter_next(&field)) {
      if (!IsGenericArgument(bson_iter_key(&field))) {
        bson_append_iter(fields.mutable_get(), bson_iter_key(&field), -1, &field);
      }
    }
    RETURN_IF_ERROR(ctx.engine->ModifyTimeseries(*view, fields.get()));
    return bson::BsonDoc();
  }
  if (auto view = ctx.engine->catalog().LookupView(ns)) return CollModView(ctx, coll, *view);
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  bson::BsonDoc pattern_fields;  // options patterns own, for the engine's registry
  std::optional<int64_t> capped_size, capped_max;  // MongoDB 6.0+'s capped resize
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    if (field == "index" || IsGenericArgument(field)) continue;
    if (field == "cappedSize") {
      ASSIGN_OR_RETURN(capped_size, catalog::ParseCappedSize(ctx.name, &it));
      continue;
    }
    if (field == "cappedMax") {
      ASSIGN_OR_RETURN(capped_max, catalog::ParseCappedMax(ctx.name, &it));
      continue;
    }
    if (ctx.engine->patterns().IsOption(field)) {
      bson_append_iter(pattern_fields.mutable_get(), bson_iter_key(&it), -1, &it);
      continue;
    }
    if (field == "validator" || field == "validationLevel" || field == "validationAction") {
      continue;  // schema validation, below
    }
    if (field == "viewOn" || field == "pipeline") {
      if (!ctx.engine->catalog().Lookup(ns)) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
      return Status(ErrorCode::kInvalidOptions, "'" + std::string(field) + "' option only supported on a view");
    }
    return Status(ErrorCode::kNotImplemented,
                  "collMod option '" + std::string(field) + "' is not supported by tigerdoc yet");
  }
  if (capped_size || capped_max) {
    RETURN_IF_ERROR(ctx.engine->ModifyCappedLimits(ctx.db(), coll, capped_size, capped_max));
  }
  if (!pattern_fields.empty()) {
    RETURN_IF_ERROR(ctx.engine->ModifyPatterns(ctx.db(), coll, pattern_fields.get()));
  }
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> index, GetObject(ctx.body(), ctx.name, "index"));
  bson::BsonDoc out;
  // Schema validation: validator / validationLevel / validationAction,
  // each alone or together.
  bson::BsonDoc validation;
  for (const char* field : {"validator", "validationLevel", "validationAction"}) {
    bson_iter_t v;
    if (bson_iter_init_find(&v, ctx.body(), field)) {
      bson_append_iter(validation.mutable_get(), field, -1, &v);
    }
  }
  if (!bson_empty(validation.get())) {
    RETURN_IF_ERROR(ctx.engine->ModifyValidation(ctx.db(), coll, validation.get()));
    if (!index) return out;
  }
  if (!index) {
    // A collMod with no option is a no-op in MongoDB, once the collection exists.
    if (!ctx.engine->catalog().Lookup(ns)) {
      return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
    }
    return out;
  }
  engine::IndexModification mod;
  bson_iter_init(&it, index->get());
  while (bson_iter_next(&it)) {
    std::string_view field = bson_iter_key(&it);
    if (field == "name" && BSON_ITER_HOLDS_UTF8(&it)) {
      mod.name = bson_iter_utf8(&it, nullptr);
    } else if (field == "keyPattern" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      mod.key_pattern = bson::BsonDoc::CopyOf(data, len);
    } else if (field == "hidden" && BSON_ITER_HOLDS_BOOL(&it)) {
      mod.hidden = bson_iter_bool(&it);
    } else if (field == "expireAfterSeconds" && BSON_ITER_HOLDS_NUMBER(&it)) {
      int64_t seconds = bson_iter_as_int64(&it);
      if (seconds < 0 || seconds > 2147483647) {
        return Status(ErrorCode::kInvalidOptions,
                      "TTL index 'expireAfterSeconds' option must be within an acceptable range");
      }
      mod.expire_after_seconds = seconds;
    } else {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field 'collMod.index." + std::string(field) +
                        "' is not a valid index option or has the wrong type");
    }
  }
  if (mod.name && mod.key_pattern) {
    return Status(ErrorCode::kInvalidOptions,
                  "Both keyPattern and name are specified in the index option");
  }
  if (!mod.hidden && !mod.expire_after_seconds) {
    return Status(ErrorCode::kInvalidOptions,
                  "no expireAfterSeconds or hidden field to update");
  }
  ASSIGN_OR_RETURN(engine::IndexModificationResult result,
                   ctx.engine->ModifyIndex(ctx.db(), coll, mod));
  if (result.expire_after_seconds_old) {
    BSON_APPEND_INT64(out.mutable_get(), "expireAfterSeconds_old", *result.expire_after_seconds_old);
    BSON_APPEND_INT64(out.mutable_get(), "expireAfterSeconds_new", *result.expire_after_seconds_new);
  }
  if (result.hidden_old) {
    BSON_APPEND_BOOL(out.mutable_get(), "hidden_old", *result.hidden_old);
    BSON_APPEND_BOOL(out.mutable_get(), "hidden_new", *result.hidden_new);
  }
  return out;
}

}  // namespace tigerdoc::wire
