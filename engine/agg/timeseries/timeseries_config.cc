// TimeseriesConfig: parsing and canonical form (contract in the header).

#include "engine/agg/timeseries/timeseries_config.h"

#include <cmath>
#include <set>

#include "engine/bson/type_name.h"

namespace tigerdoc::agg {
namespace {

std::string Field(std::string_view command, std::string_view path) {
  return "BSON field '" + std::string(command) + "." + std::string(path) + "'";
}

Status WrongType(std::string_view command, std::string_view path, const bson_iter_t* it,
                 std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch, Field(command, path) + " is the wrong type '" +
                                              bson::TypeName(bson_iter_type(it)) +
                                              "', expected " + std::string(expected));
}

StatusWith<std::string> StringOf(std::string_view command, std::string_view path,
                                 const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_UTF8(it)) return WrongType(command, path, it, "type 'string'");
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string(s, len);
}

// An integral number (int, long, or a double without fraction), as the IDL
// coerces "safeInt" fields.
StatusWith<int64_t> IntOf(std::string_view command, std::string_view path, const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it)) return bson_iter_as_int64(it);
  if (BSON_ITER_HOLDS_DOUBLE(it)) {
    double d = bson_iter_double(it);
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      return static_cast<int64_t>(d);
    }
    return Status(ErrorCode::kBadValue, Field(command, path) + " must be an integer, got " +
                                            std::to_string(d));
  }
  return WrongType(command, path, it, "types '[long, int, decimal, double]'");
}

Status Invalid(std::string message) { return Status(ErrorCode::kInvalidOptions, std::move(message)); }

int64_t SpanOfGranularity(std::string_view g) {
  if (g == "minutes") return 60 * 60 * 24;
  if (g == "hours") return 60 * 60 * 24 * 30;
  return 60 * 60;
}

int64_t RoundingOfGranularity(std::string_view g) {
  if (g == "minutes") return 60 * 60;
  if (g == "hours") return 60 * 60 * 24;
  return 60;
}

Status ParseTimeseries(std::string_view command, const bson_iter_t* spec, TimeseriesConfig* out) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) return WrongType(command, "timeseries", spec, "type 'object'");
  bson_t doc = bson::SubDocumentView(spec);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  bool has_time = false;
  std::optional<int64_t> span, rounding;
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    const std::string path = "timeseries." + key;
    if (key == "timeField") {
      ASSIGN_OR_RETURN(out->time_field, StringOf(command, path, &it));
      has_time = true;
    } else if (key == "metaField") {
      ASSIGN_OR_RETURN(std::string meta, StringOf(command, path, &it));
      out->meta_field = std::move(meta);
    } else if (key == "granularity") {
      ASSIGN_OR_RETURN(std::string g, StringOf(command, path, &it));
      if (g != "seconds" && g != "minutes" && g != "hours") {
        return Status(ErrorCode::kBadValue, "Enumeration value '" + g + "' for field '" +
                                                std::string(command) + "." + path +
                                                "' is not a valid value.");
      }
      out->granularity = std::move(g);
    } else if (key == "bucketMaxSpanSeconds" || key == "bucketRoundingSeconds") {
      ASSIGN_OR_RETURN(int64_t v, IntOf(command, path, &it));
      if (v < 1 || v > kMaxBucketSpanSeconds) {
        return Status(ErrorCode::kLocation51024,
                      Field(command, path) + " value must be " + (v < 1 ? ">= 1" : "<= 31536000") +
                          ", actual value '" + std::to_string(v) + "'");
      }
      (key == "bucketMaxSpanSeconds" ? span : rounding) = v;
    } else {
      return Status(ErrorCode::kLocation40415, Field(command, path) + " is an unknown field.");
    }
  }
  if (!has_time) {
    return Status(ErrorCode::kLocation40414,
                  Field(command, "timeseries.timeField") + " is missing but a required field");
  }
  // create_collection.cpp's checks of the field names.
  const std::string top_level = "' must be a top-level field and not contain a '.'";
  if (out->time_field.find('.') != std::string::npos) {
    return Invalid("'timeField" + top_level);
  }
  if (out->meta_field) {
    if (*out->meta_field == "_id") return Invalid("'metaField' cannot be \"_id\"");
    if (*out->meta_field == out->time_field) {
      return Invalid("'metaField' cannot be the same as 'timeField'");
    }
    if (out->meta_field->find('.') != std::string::npos) return Invalid("'metaField" + top_level);
  }
  // timeseries_options.cpp's checks of the bucketing parameters.
  if (out->granularity) {
    const int64_t default_span = SpanOfGranularity(*out->granularity);
    if (span && *span != default_span) {
      return Invalid(
          "Time-series 'bucketMaxSpanSeconds' cannot be set to a value other than the default of " +
          std::to_string(default_span) + " for the provided granularity");
    }
    if (rounding) {
      return Invalid(
          "Time-series 'bucketRoundingSeconds' cannot be set alongside the granularity parameter");
    }
    out->bucket_max_span_seconds = default_span;
    out->bucket_rounding_seconds = RoundingOfGranularity(*out->granularity);
  } else if (span || rounding) {
    if (span != rounding) {
      return Invalid("Time-series 'bucketRoundingSeconds' must be equal to 'bucketMaxSpanSeconds'");
    }
    out->bucket_max_span_seconds = *span;
    out->bucket_rounding_seconds = *rounding;
  } else {
    out->granularity = "seconds";
    out->bucket_max_span_seconds = SpanOfGranularity("seconds");
    out->bucket_rounding_seconds = RoundingOfGranularity("seconds");
  }
  return Status::OK();
}

Status ParseExpire(std::string_view command, const bson_iter_t* it, TimeseriesConfig* out) {
  if (!BSON_ITER_HOLDS_NUMBER(it)) {
    return WrongType(command, "expireAfterSeconds", it, "types '[long, int, decimal, double]'");
  }
  const double v = bson_iter_as_double(it);
  if (!std::isfinite(v) || v < 0) {
    return Invalid("TTL index 'expireAfterSeconds' option must be within an acceptable range, "
                   "cannot be less than 0");
  }
  if (v > 2147483647.0) {
    return Invalid("TTL index 'expireAfterSeconds' option must be within an acceptable range, "
                   "cannot be greater than 2147483647");
  }
  out->expire_after_seconds = static_cast<int64_t>(v);
  return Status::OK();
}

Status ParseBucket(std::string_view command, const bson_iter_t* spec, TimeseriesConfig* out) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) return WrongType(command, "bucket", spec, "type 'object'");
  bson_t doc = bson::SubDocumentView(spec);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    const std::string path = "bucket." + key;
    if (key == "maxCount") {
      ASSIGN_OR_RETURN(int64_t n, IntOf(command, path, &it));
      if (n < 1 || n > kDefaultBucketMaxCount * 100) {
        return Status(ErrorCode::kBadValue, Field(command, path) +
                                                " must be between 1 and 100000, got " +
                                                std::to_string(n));
      }
      out->max_count = n;
    } else if (key == "stats") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) return WrongType(command, path, &it, "type 'array'");
      bson_t arr = bson::SubDocumentView(&it);
      bson_iter_t f;
      bson_iter_init(&f, &arr);
      std::set<std::string> seen;
      while (bson_iter_next(&f)) {
        ASSIGN_OR_RETURN(std::string name, StringOf(command, path + "." + bson_iter_key(&f), &f));
        if (name.empty() || name.find('.') != std::string::npos || name[0] == '$') {
          return Status(ErrorCode::kBadValue,
                        Field(command, path) + " names top-level measurement fields (no '.', no "
                                               "leading '$'), got '" + name + "'");
        }
        if (name == out->time_field || (out->meta_field && name == *out->meta_field)) {
          return Status(ErrorCode::kBadValue, Field(command, path) + " cannot name the timeField "
                                                                    "or the metaField ('" +
                                                  name + "')");
        }
        if (!seen.insert(name).second) {
          return Status(ErrorCode::kBadValue, Field(command, path) + " names '" + name + "' twice");
        }
        out->stats.push_back(std::move(name));
      }
    } else if (key == "view") {
      ASSIGN_OR_RETURN(std::string view, StringOf(command, path, &it));
      if (view.empty() || view.find('$') != std::string::npos) {
        return Status(ErrorCode::kInvalidNamespace, "Invalid collection name: " + view);
      }
      out->view = std::move(view);
    } else {
      return Status(ErrorCode::kLocation40415, Field(command, path) + " is an unknown field.");
    }
  }
  return Status::OK();
}

void AppendStrings(bson_t* out, const char* key, const std::vector<std::string>& values) {
  bson_t arr;
  bson_append_array_begin(out, key, -1, &arr);
  for (size_t i = 0; i < values.size(); ++i) {
    BSON_APPEND_UTF8(&arr, std::to_string(i).c_str(), values[i].c_str());
  }
  bson_append_array_end(out, &arr);
}

}  // namespace

StatusWith<TimeseriesConfig> TimeseriesConfig::Parse(std::string_view command,
                                                     const bson_iter_t* timeseries,
                                                     const bson_iter_t* expire,
                                                     const bson_iter_t* bucket) {
  TimeseriesConfig config;
  RETURN_IF_ERROR(ParseTimeseries(command, timeseries, &config));
  if (expire) RETURN_IF_ERROR(ParseExpire(command, expire, &config));
  if (bucket) RETURN_IF_ERROR(ParseBucket(command, bucket, &config));
  return config;
}

StatusWith<std::optional<int64_t>> TimeseriesConfig::ParseExpireAfterSeconds(std::string_view command,
                                                                             const bson_iter_t* it) {
  if (BSON_ITER_HOLDS_NULL(it) ||
      (BSON_ITER_HOLDS_UTF8(it) && std::string_view(bson_iter_utf8(it, nullptr)) == "off")) {
    return std::optional<int64_t>();
  }
  if (BSON_ITER_HOLDS_UTF8(it)) {
    return Status(ErrorCode::kInvalidOptions,
                  "Invalid value for 'expireAfterSeconds': a number or \"off\" (got \"" +
                      std::string(bson_iter_utf8(it, nullptr)) + "\")");
  }
  TimeseriesConfig config;
  RETURN_IF_ERROR(ParseExpire(command, it, &config));
  return config.expire_after_seconds;
}

bson::BsonDoc TimeseriesConfig::ToCanonical() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "timeField", time_field.c_str());
  if (meta_field) BSON_APPEND_UTF8(doc, "metaField", meta_field->c_str());
  if (granularity) BSON_APPEND_UTF8(doc, "granularity", granularity->c_str());
  BSON_APPEND_INT64(doc, "bucketMaxSpanSeconds", bucket_max_span_seconds);
  BSON_APPEND_INT64(doc, "bucketRoundingSeconds", bucket_rounding_seconds);
  if (expire_after_seconds) BSON_APPEND_INT64(doc, "expireAfterSeconds", *expire_after_seconds);
  BSON_APPEND_INT64(doc, "maxCount", max_count);
  AppendStrings(doc, "stats", stats);
  if (view) BSON_APPEND_UTF8(doc, "view", view->c_str());
  return out;
}

StatusWith<TimeseriesConfig> TimeseriesConfig::FromCanonical(const bson_t* doc) {
  TimeseriesConfig config;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) {
    return Status(ErrorCode::kFailedToParse, "malformed bucket config: not BSON");
  }
  bool has_time = false;
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      std::string value = bson_iter_utf8(&it, nullptr);
      if (key == "timeField") {
        config.time_field = std::move(value);
        has_time = true;
      } else if (key == "metaField") {
        config.meta_field = std::move(value);
      } else if (key == "granularity") {
        config.granularity = std::move(value);
      } else if (key == "view") {
        config.view = std::move(value);
      }
    } else if (BSON_ITER_HOLDS_NUMBER(&it)) {
      const int64_t value = bson_iter_as_int64(&it);
      if (key == "bucketMaxSpanSeconds") config.bucket_max_span_seconds = value;
      if (key == "bucketRoundingSeconds") config.bucket_rounding_seconds = value;
      if (key == "expireAfterSeconds") config.expire_after_seconds = value;
      if (key == "maxCount") config.max_count = value;
    } else if (key == "stats" && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t arr = bson::SubDocumentView(&it);
      bson_iter_t f;
      bson_iter_init(&f, &arr);
      while (bson_iter_next(&f)) {
        if (BSON_ITER_HOLDS_UTF8(&f)) config.stats.emplace_back(bson_iter_utf8(&f, nullptr));
      }
    }
  }
  if (!has_time || config.bucket_max_span_seconds < 1 || config.max_count < 1) {
    return Status(ErrorCode::kFailedToParse, "malformed bucket config: no timeField or span");
  }
  return config;
}

bson::BsonDoc TimeseriesConfig::TimeseriesOptions() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "timeField", time_field.c_str());
  if (meta_field) BSON_APPEND_UTF8(doc, "metaField", meta_field->c_str());
  if (granularity) {
    BSON_APPEND_UTF8(doc, "granularity", granularity->c_str());
  } else {
    BSON_APPEND_INT32(doc, "bucketRoundingSeconds", static_cast<int32_t>(bucket_rounding_seconds));
  }
  BSON_APPEND_INT32(doc, "bucketMaxSpanSeconds", static_cast<int32_t>(bucket_max_span_seconds));
  return out;
}

bson::BsonDoc TimeseriesConfig::UnpackPipeline() const {
  bson::BsonDoc out;
  bson_t stage, spec;
  bson_append_document_begin(out.mutable_get(), "0", -1, &stage);
  bson_append_document_begin(&stage, "$_internalUnpackBucket", -1, &spec);
  BSON_APPEND_UTF8(&spec, "timeField", time_field.c_str());
  if (meta_field) BSON_APPEND_UTF8(&spec, "metaField", meta_field->c_str());
  BSON_APPEND_INT32(&spec, "bucketMaxSpanSeconds", static_cast<int32_t>(bucket_max_span_seconds));
  bson_append_document_end(&stage, &spec);
  bson_append_document_end(out.mutable_get(), &stage);
  return out;
}

bson::BsonDoc TimeseriesConfig::BucketViewPipeline() const {
  bson::BsonDoc out;
  bson_t stage, spec;
  bson_append_document_begin(out.mutable_get(), "0", -1, &stage);
  bson_append_document_begin(&stage, "$_internalBucketView", -1, &spec);
  BSON_APPEND_UTF8(&spec, "timeField", time_field.c_str());
  if (meta_field) BSON_APPEND_UTF8(&spec, "metaField", meta_field->c_str());
  BSON_APPEND_INT32(&spec, "bucketMaxSpanSeconds", static_cast<int32_t>(bucket_max_span_seconds));
  AppendStrings(&spec, "stats", stats);
  bson_append_document_end(&stage, &spec);
  bson_append_document_end(out.mutable_get(), &stage);
  return out;
}

int64_t TimeseriesConfig::WindowStartMillis(int64_t time_ms) const {
  const int64_t span_ms = bucket_max_span_seconds * 1000;
  int64_t start = time_ms - time_ms % span_ms;
  if (start > time_ms) start -= span_ms;  // round down for dates before 1970 too
  return start;
}

}  // namespace tigerdoc::agg
