// Capped options: MongoDB 7's create-command rules (create.idl validators
// and CmdCreate's checks), see the header.

#include "engine/catalog/capped_options.h"

#include <cmath>
#include <limits>
#include <string>

#include "engine/bson/type_name.h"

namespace tigerdoc::catalog {
namespace {

bool IsNumber(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      return true;
    default:
      return false;
  }
}

// MongoDB's safeNumberLong: doubles truncate, NaN is 0, out of range clamps.
int64_t SafeNumberLong(const bson_iter_t* it) {
  if (bson_iter_type(it) == BSON_TYPE_DOUBLE) {
    const double d = bson_iter_double(it);
    if (std::isnan(d)) return 0;
    if (d >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
    if (d <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(d);
  }
  return bson_iter_as_int64(it);
}

Status WrongNumberType(std::string_view command, std::string_view field, const bson_iter_t* it,
                       bool bool_too) {
  // MongoDB's own spelling, stray quote included.
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(command) + "." + std::string(field) +
                    "' is the wrong type '" + std::string(bson::TypeName(bson_iter_type(it))) +
                    "', expected types '[" + (bool_too ? "bool, " : "") +
                    "long, int, decimal, double']");
}

Status OutOfRange(std::string_view field, std::string_view bound, int64_t actual) {
  return Status(ErrorCode::kLocation51024, "BSON field '" + std::string(field) +
                                               "' value must be " + std::string(bound) +
                                               ", actual value '" + std::to_string(actual) + "'");
}

}  // namespace

void AppendNumber(bson_t* doc, const char* field, int64_t value) {
  if (value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()) {
    BSON_APPEND_INT32(doc, field, static_cast<int32_t>(value));
  } else {
    BSON_APPEND_INT64(doc, field, value);
  }
}

std::optional<CappedLimits> CappedLimitsOf(const bson_t* options) {
  bson_iter_t it;
  if (options == nullptr || !bson_iter_init_find(&it, options, "capped") ||
      !bson_iter_as_bool(&it)) {
    return std::nullopt;
  }
  CappedLimits limits;
  if (bson_iter_init_find(&it, options, "size") && IsNumber(&it)) {
    limits.max_bytes = SafeNumberLong(&it);
  }
  if (bson_iter_init_find(&it, options, "max") && IsNumber(&it)) {
    const int64_t max = SafeNumberLong(&it);
    limits.max_docs = max >= kNoCappedMax ? 0 : max;
  }
  return limits;
}

bool CappedOverLimits(const CappedLimits& limits, int64_t count, int64_t bytes) {
  return bytes > limits.max_bytes || (limits.max_docs > 0 && count > limits.max_docs);
}

StatusWith<int64_t> ParseCappedSize(std::string_view command, const bson_iter_t* it) {
  const std::string_view field = bson_iter_key(it);  // size, or collMod's cappedSize
  if (!IsNumber(it)) return WrongNumberType(command, field, it, false);
  const int64_t size = SafeNumberLong(it);
  if (size < 1) return OutOfRange(field, ">= 1", size);
  if (size > kMaxCappedSize) return OutOfRange(field, "<= 1125899906842624", size);
  return size;
}

StatusWith<int64_t> ParseCappedMax(std::string_view command, const bson_iter_t* it) {
  const std::string_view field = bson_iter_key(it);  // max, or collMod's cappedMax
  if (!IsNumber(it)) return WrongNumberType(command, field, it, false);
  const int64_t max = SafeNumberLong(it);
  if (max >= (int64_t{1} << 31)) return OutOfRange(field, "< 2147483648", max);
  return max <= 0 ? kNoCappedMax : max;
}

StatusWith<bson::BsonDoc> ParseCappedCreateOptions(const bson_t* command) {
  bool capped = false;
  std::optional<int64_t> size, max;
  bson_iter_t it;
  // A null is "not given", as in MongoDB's IDL parser.
  if (bson_iter_init_find(&it, command, "capped") && !BSON_ITER_HOLDS_NULL(&it)) {
    if (!IsNumber(&it) && !BSON_ITER_HOLDS_BOOL(&it)) {
      return WrongNumberType("create", "capped", &it, true);
    }
    capped = bson_iter_as_bool(&it);
  }
  if (bson_iter_init_find(&it, command, "size") && !BSON_ITER_HOLDS_NULL(&it)) {
    ASSIGN_OR_RETURN(size, ParseCappedSize("create", &it));
  }
  if (bson_iter_init_find(&it, command, "max") && !BSON_ITER_HOLDS_NULL(&it)) {
    ASSIGN_OR_RETURN(max, ParseCappedMax("create", &it));
  }
  if (capped && !size) {
    return Status(ErrorCode::kInvalidOptions, "the 'size' field is required when 'capped' is true");
  }
  if ((size || max) && !capped) {
    return Status(ErrorCode::kInvalidOptions,
                  "the 'capped' field needs to be true when either the 'size' or 'max' fields "
                  "are present");
  }
  bson::BsonDoc out;
  if (!capped) return out;
  BSON_APPEND_BOOL(out.mutable_get(), "capped", true);
  AppendNumber(out.mutable_get(), "size", *size);
  if (max) AppendNumber(out.mutable_get(), "max", *max);
  return out;
}

}  // namespace tigerdoc::catalog
