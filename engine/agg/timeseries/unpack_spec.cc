// UnpackSpec parsing (contract in the header).

#include "engine/agg/timeseries/unpack_spec.h"

#include "engine/bson/bson_doc.h"
#include "engine/bson/type_name.h"

namespace tigerdoc::agg {
namespace {

Status WrongType(std::string_view stage, std::string_view key, const bson_iter_t* it,
                 std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, "BSON field '" + std::string(stage) + "." +
                                              std::string(key) + "' is the wrong type '" +
                                              bson::TypeName(bson_iter_type(it)) +
                                              "', expected type '" + std::string(expected) + "'");
}

}  // namespace

StatusWith<UnpackSpec> UnpackSpec::Parse(std::string_view stage, const bson_iter_t* spec,
                                         bool with_stats) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Status(ErrorCode::kFailedToParse,
                  "invalid parameter: expected an object for " + std::string(stage));
  }
  UnpackSpec out;
  bool has_time = false, has_span = false;
  bson_t doc = bson::SubDocumentView(spec);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key == "timeField" || key == "metaField") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(stage, key, &it, "string");
      std::string value = bson_iter_utf8(&it, nullptr);
      if (key == "timeField") {
        out.time_field = std::move(value);
        has_time = true;
      } else {
        out.meta_field = std::move(value);
      }
    } else if (key == "bucketMaxSpanSeconds") {
      if (!BSON_ITER_HOLDS_INT32(&it) && !BSON_ITER_HOLDS_INT64(&it)) {
        return WrongType(stage, key, &it, "int");
      }
      out.bucket_max_span_seconds = bson_iter_as_int64(&it);
      if (out.bucket_max_span_seconds < 1) {
        return Status(ErrorCode::kBadValue,
                      std::string(stage) + ": bucketMaxSpanSeconds must be at least 1");
      }
      has_span = true;
    } else if (key == "stats" && with_stats) {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) return WrongType(stage, key, &it, "array");
      bson_t arr = bson::SubDocumentView(&it);
      bson_iter_t f;
      bson_iter_init(&f, &arr);
      while (bson_iter_next(&f)) {
        if (!BSON_ITER_HOLDS_UTF8(&f)) return WrongType(stage, "stats", &f, "string");
        out.stats.emplace_back(bson_iter_utf8(&f, nullptr));
      }
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '" + std::string(stage) + "." + std::string(key) +
                        "' is an unknown field.");
    }
  }
  if (!has_time || !has_span) {
    return Status(ErrorCode::kLocation40414,
                  "BSON field '" + std::string(stage) + "." +
                      (has_time ? "bucketMaxSpanSeconds" : "timeField") +
                      "' is missing but a required field");
  }
  return out;
}

}  // namespace tigerdoc::agg
