// Time-series index translation (contract in the header).

#include "engine/agg/timeseries/index_translation.h"

#include <set>
#include <string>

namespace tigerdoc::agg {
namespace {

bool IsUnder(std::string_view path, const std::string& field) {
  return path == field ||
         (path.size() > field.size() && path.substr(0, field.size()) == field && path[field.size()] == '.');
}

Status TranslateKey(const TimeseriesConfig& config, const bson_t* key, bson_t* out) {
  bson_iter_t it;
  bson_iter_init(&it, key);
  while (bson_iter_next(&it)) {
    const std::string_view path = bson_iter_key(&it);
    if (config.meta_field && IsUnder(path, *config.meta_field)) {
      const std::string renamed = "meta" + std::string(path.substr(config.meta_field->size()));
      bson_append_iter(out, renamed.c_str(), -1, &it);
      continue;
    }
    if (!BSON_ITER_HOLDS_NUMBER(&it) || bson_iter_as_double(&it) == 0) {
      return Status(ErrorCode::kInvalidOptions,
                    "Index type not supported on time-series measurement field '" + std::string(path) +
                        "': only 1 or -1 (or any type on the metaField)");
    }
    const bool ascending = bson_iter_as_double(&it) > 0;
    const std::string min = "control.min." + std::string(path);
    const std::string max = "control.max." + std::string(path);
    BSON_APPEND_INT32(out, ascending ? min.c_str() : max.c_str(), ascending ? 1 : -1);
    BSON_APPEND_INT32(out, ascending ? max.c_str() : min.c_str(), ascending ? 1 : -1);
  }
  return Status::OK();
}

}  // namespace

StatusWith<bson::BsonDoc> ToBucketIndexSpec(const TimeseriesConfig& config, const bson_t* spec) {
  bson::BsonDoc out;
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    const std::string_view field = bson_iter_key(&it);
    if (field == "key" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t key = bson::SubDocumentView(&it);
      bson_t translated;
      bson_append_document_begin(out.mutable_get(), "key", 3, &translated);
      Status status = TranslateKey(config, &key, &translated);
      bson_append_document_end(out.mutable_get(), &translated);
      RETURN_IF_ERROR(status);
    } else if (field == "unique" && bson_iter_as_bool(&it)) {
      return Status(ErrorCode::kInvalidOptions, "Unique indexes are not supported on time-series collections");
    } else if (field == "partialFilterExpression" || field == "expireAfterSeconds") {
      return Status(ErrorCode::kNotImplemented,
                    "index option '" + std::string(field) +
                        "' on a time-series collection is not supported by tigerdoc yet");
    } else {
      bson_append_iter(out.mutable_get(), bson_iter_key(&it), -1, &it);
    }
  }
  return out;
}

bson::BsonDoc FromBucketKey(const TimeseriesConfig& config, const bson_t* bucket_key) {
  bson::BsonDoc out;
  std::set<std::string> seen;
  bson_iter_t it;
  bson_iter_init(&it, bucket_key);
  while (bson_iter_next(&it)) {
    const std::string_view path = bson_iter_key(&it);
    if (config.meta_field && IsUnder(path, "meta")) {
      const std::string renamed = *config.meta_field + std::string(path.substr(4));
      bson_append_iter(out.mutable_get(), renamed.c_str(), -1, &it);
      continue;
    }
    for (std::string_view prefix : {std::string_view("control.min."), std::string_view("control.max.")}) {
      if (path.substr(0, prefix.size()) != prefix) continue;
      const std::string field(path.substr(prefix.size()));
      if (!seen.insert(field).second) break;  // the other bound of a field already shown
      BSON_APPEND_INT32(out.mutable_get(), field.c_str(), bson_iter_as_double(&it) > 0 ? 1 : -1);
    }
  }
  return out;
}

}  // namespace tigerdoc::agg
