// validate: {validate: "<coll>", full: <bool>} checks a collection's
// records and indexes (Engine::Validate) and answers MongoDB 7's report, in
// its order:
//   {ns, nInvalidDocuments, nNonCompliantDocuments, nrecords, nIndexes,
//    keysPerIndex: {<name>: n}, indexDetails: {<name>: {valid}},
//    valid, repaired: false, warnings: [], errors: [],
//    extraIndexEntries: [], missingIndexEntries: [{indexName, recordId,
//    idKey, indexKey}], corruptRecords: [<recordId>],
//    [advice: "A corrupt namespace has been detected. ..."], ok: 1}
// Counts are int32 when they fit, as MongoDB's appendNumber. MongoDB's
// `uuid` is absent (tigerdoc collections have none); extraIndexEntries
// stays empty: extra entries are found by count, reported in `errors`.
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

// MongoDB's appendNumber: an int32 when the value fits.
void AppendCount(bson_t* doc, const char* field, int64_t value) {
  if (value >= INT32_MIN && value <= INT32_MAX) {
    bson_append_int32(doc, field, -1, static_cast<int32_t>(value));
  } else {
    bson_append_int64(doc, field, -1, value);
  }
}

constexpr char kCorruptAdvice[] =
    "A corrupt namespace has been detected. See http://dochub.mongodb.org/core/data-recovery for "
    "recovery steps.";

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
  AppendCount(doc, "nInvalidDocuments", result.n_invalid_documents);
  AppendCount(doc, "nNonCompliantDocuments", result.n_non_compliant_documents);
  AppendCount(doc, "nrecords", result.n_records);
  BSON_APPEND_INT32(doc, "nIndexes", static_cast<int32_t>(result.indexes.size()));
  bson_t keys, details;
  bson_append_document_begin(doc, "keysPerIndex", -1, &keys);
  for (const auto& index : result.indexes) {
    AppendCount(&keys, index.name.c_str(), index.keys);
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
  bson_t entries;
  bson_append_array_begin(doc, "extraIndexEntries", -1, &entries);
  bson_append_array_end(doc, &entries);
  bson_append_array_begin(doc, "missingIndexEntries", -1, &entries);
  for (size_t i = 0; i < result.missing_index_entries.size(); ++i) {
    const std::string key = std::to_string(i);
    BSON_APPEND_DOCUMENT(&entries, key.c_str(), result.missing_index_entries[i].get());
  }
  bson_append_array_end(doc, &entries);
  bson_append_array_begin(doc, "corruptRecords", -1, &entries);
  for (size_t i = 0; i < result.corrupt_records.size(); ++i) {
    const std::string key = std::to_string(i);
    BSON_APPEND_INT64(&entries, key.c_str(), result.corrupt_records[i]);
  }
  bson_append_array_end(doc, &entries);
  if (!result.valid()) BSON_APPEND_UTF8(doc, "advice", kCorruptAdvice);
  return out;
}

}  // namespace tigerdoc::wire
