// validate: {validate: "<coll>", full: <bool>} checks a collection's
// records and indexes (Engine::Validate) and answers MongoDB's report:
//   {ns, nInvalidDocuments, nNonCompliantDocuments, nrecords, nIndexes,
//    keysPerIndex: {<name>: n}, indexDetails: {<name>: {valid}},
//    valid, repaired: false, warnings: [], errors: [], ok: 1}
// The walk is always the full one (tigerdoc has no cheaper form), so
// `full` and `background` are accepted and change nothing; `repair` and
// the other options MongoDB has are refused (238).

#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

void AppendStrings(bson_t* doc, const char* field, const std::vector<std::string>& values) {
  bson_t array;
  bson_append_array_begin(doc, field, -1, &array);
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string key = std::to_string(i);
    bson_append_utf8(&array, key.c_str(), -1, values[i].data(), static_cast<int>(values[i].size()));
  }
  bson_append_array_end(doc, &array);
}

}  // namespace

StatusWith<bson::BsonDoc> RunValidate(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::string name, CollectionArgument(ctx.body(), ctx.name));
  bson_iter_t it;
  if (bson_iter_init(&it, ctx.body())) {
    bson_iter_next(&it);  // the command name
    while (bson_iter_next(&it)) {
      std::string_view field = bson_iter_key(&it);
      if (field == "repair" || field == "metadata" || field == "checkBSONConformance" ||
          field == "fixMultikey" || field == "enforceFastCount") {
        return Status(ErrorCode::kNotImplemented,
                      "validate option '" + std::string(field) + "' is not supported");
      }
    }
  }
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"full", "background", "scandata"}));
  RETURN_IF_ERROR(GetBool(ctx.body(), ctx.name, "full").status());
  RETURN_IF_ERROR(GetBool(ctx.body(), ctx.name, "background").status());
  ASSIGN_OR_RETURN(engine::ValidateResult result, ctx.engine->Validate(ctx.db(), name));

  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "ns", result.ns.c_str());
  BSON_APPEND_INT64(doc, "nInvalidDocuments", result.n_invalid_documents);
  BSON_APPEND_INT64(doc, "nNonCompliantDocuments", 0);
  BSON_APPEND_INT64(doc, "nrecords", result.n_records);
  BSON_APPEND_INT32(doc, "nIndexes", static_cast<int32_t>(result.indexes.size()));
  bson_t keys, details;
  bson_append_document_begin(doc, "keysPerIndex", -1, &keys);
  for (const auto& index : result.indexes) {
    bson_append_int64(&keys, index.name.c_str(), -1, index.keys);
  }
  bson_append_document_end(doc, &keys);
  bson_append_document_begin(doc, "indexDetails", -1, &details);
  for (const auto& index : result.indexes) {
    bson_t detail;
    bson_append_document_begin(&details, index.name.c_str(), -1, &detail);
    BSON_APPEND_BOOL(&detail, "valid", index.valid);
    bson_append_document_end(&details, &detail);
  }
  bson_append_document_end(doc, &details);
  BSON_APPEND_BOOL(doc, "valid", result.valid());
  BSON_APPEND_BOOL(doc, "repaired", false);
  AppendStrings(doc, "warnings", result.warnings);
  AppendStrings(doc, "errors", result.errors);
  return out;
}

}  // namespace tigerdoc::wire
