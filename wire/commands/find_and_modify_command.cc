// findAndModify: update or remove one document and return it, as the
// drivers' findOneAndUpdate / findOneAndReplace / findOneAndDelete use it.

#include <string>

#include "wire/commands/collation_option.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

StatusWith<engine::FindAndModifyParams> ParseFindAndModify(CommandContext& ctx) {
  const bson_t* body = ctx.body();
  const std::string_view cmd = "findAndModify";
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(body, cmd));
  RETURN_IF_ERROR(CheckFields(body, cmd,
                              {"query", "sort", "remove", "update", "new", "fields", "upsert",
                               "bypassDocumentValidation", "arrayFilters", "hint", "collation",
                               "let"}));
  RETURN_IF_ERROR(CheckWriteNamespace(ctx.db(), coll));
  engine::FindAndModifyParams params;
  params.db = ctx.db();
  params.coll = coll;
  ASSIGN_OR_RETURN(params.collation, GetCollation(body, cmd));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> query, GetObject(body, cmd, "query"));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> sort, GetObject(body, cmd, "sort"));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> fields, GetObject(body, cmd, "fields"));
  ASSIGN_OR_RETURN(std::optional<bool> remove, GetBool(body, cmd, "remove"));
  ASSIGN_OR_RETURN(std::optional<bool> return_new, GetBool(body, cmd, "new"));
  ASSIGN_OR_RETURN(std::optional<bool> upsert, GetBool(body, cmd, "upsert"));
  // A write concern a standalone cannot honour is refused before the write.
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> write_concern, GetObject(body, cmd, "writeConcern"));
  if (write_concern) {
    bool unacknowledged = false;
    RETURN_IF_ERROR(CheckWriteConcernW(write_concern->get(), &unacknowledged));
  }
  bson_iter_t update;
  if (bson_iter_init_find(&update, body, "update")) {
    if (BSON_ITER_HOLDS_ARRAY(&update)) {
      ASSIGN_OR_RETURN(params.update, GetArray(body, cmd, "update"));
      params.update_is_pipeline = true;
    } else {
      ASSIGN_OR_RETURN(params.update, GetObject(body, cmd, "update"));
    }
  }
  ASSIGN_OR_RETURN(params.array_filters, GetArray(body, cmd, "arrayFilters"));
  ASSIGN_OR_RETURN(std::optional<bool> bypass, GetBool(body, cmd, "bypassDocumentValidation"));
  params.bypass_document_validation = bypass.value_or(false);
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> let, GetObject(body, cmd, "let"));
  if (let) params.let = std::move(*let);
  if (query) params.query = std::move(*query);
  if (sort) params.sort = std::move(*sort);
  if (fields) params.fields = std::move(*fields);
  params.remove = remove.value_or(false);
  params.return_new = return_new.value_or(false);
  params.upsert = upsert.value_or(false);
  // MongoDB's argument rules, with its messages.
  if (params.remove && params.update) {
    return Status(ErrorCode::kFailedToParse, "Cannot specify both an update and remove=true");
  }
  if (!params.remove && !params.update) {
    return Status(ErrorCode::kFailedToParse, "Either an update or remove=true must be specified");
  }
  if (params.remove && params.upsert) {
    return Status(ErrorCode::kFailedToParse, "Cannot specify both upsert=true and remove=true ");
  }
  if (params.remove && params.return_new) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot specify both new=true and remove=true; 'remove' always returns the "
                  "deleted document");
  }
  return params;
}

}  // namespace

StatusWith<bson::BsonDoc> RunFindAndModify(CommandContext& ctx) {
  ASSIGN_OR_RETURN(engine::FindAndModifyParams params, ParseFindAndModify(ctx));
  ASSIGN_OR_RETURN(engine::FindAndModifyResult result, ctx.engine->FindAndModify(params));
  bson_iter_t wc;
  if (bson_iter_init_find(&wc, ctx.body(), "writeConcern") && BSON_ITER_HOLDS_DOCUMENT(&wc)) {
    bson_iter_t j;
    if (bson_iter_recurse(&wc, &j) && bson_iter_find(&j, "j") && bson_iter_as_bool(&j)) {
      RETURN_IF_ERROR(ctx.engine->FlushJournal());
    }
  }
  bson::BsonDoc out;
  bson_t last_error;
  bson_append_document_begin(out.mutable_get(), "lastErrorObject", -1, &last_error);
  BSON_APPEND_INT32(&last_error, "n", static_cast<int32_t>(result.n));
  if (!params.remove) {
    BSON_APPEND_BOOL(&last_error, "updatedExisting", result.updated_existing);
    if (result.upserted_id) {
      bson_iter_t id;
      bson_iter_init(&id, result.upserted_id->get());
      bson_iter_next(&id);
      bson_append_iter(&last_error, "upserted", -1, &id);
    }
  }
  bson_append_document_end(out.mutable_get(), &last_error);
  if (result.value) {
    BSON_APPEND_DOCUMENT(out.mutable_get(), "value", result.value->get());
  } else {
    BSON_APPEND_NULL(out.mutable_get(), "value");
  }
  return out;
}

}  // namespace tigerdoc::wire
