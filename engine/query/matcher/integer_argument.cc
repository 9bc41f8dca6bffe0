#include "engine/query/matcher/integer_argument.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/bson/decimal.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::query {
namespace {

using bson::Decimal128;

// 2^63 as a double: the smallest double that does not fit in int64.
constexpr double kTwoTo63 = 9223372036854775808.0;

Status FailedToParse(std::string message) {
  return Status(ErrorCode::kFailedToParse, std::move(message));
}

Decimal128 ToDecimal(const bson_iter_t* it) {
  bson_decimal128_t raw;
  bson_iter_decimal128(it, &raw);
  return bson::DecimalFromBson(raw);
}

bool IsNaN(Decimal128 d) { return d.IsNaN(); }

// BID128: combination field 11110 in bits 62..58 of the high word.
bool IsInfinite(const bson_iter_t* it) {
  bson_decimal128_t raw;
  bson_iter_decimal128(it, &raw);
  return (raw.high & 0x7C00000000000000ull) == 0x7800000000000000ull;
}

const Decimal128& Int64MaxDecimal() {
  static const Decimal128 v(std::numeric_limits<int64_t>::max());
  return v;
}
const Decimal128& Int64MinDecimal() {
  static const Decimal128 v(std::numeric_limits<int64_t>::min());
  return v;
}

// Truncates a finite decimal within int64 range toward zero.
int64_t TruncateDecimal(Decimal128 d) { return d.TruncateToInt64(); }

}  // namespace

bool IsNumber(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it) ||
         BSON_ITER_HOLDS_DECIMAL128(it);
}

std::string ElementString(const bson_iter_t* it) {
  return std::string(bson_iter_key(it)) + ": " + bson::ToShellString(it);
}

StatusWith<int64_t> ParseIntegerElementToLong(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
      return static_cast<int64_t>(bson_iter_int32(it));
    case BSON_TYPE_INT64:
      return bson_iter_int64(it);
    case BSON_TYPE_DOUBLE: {
      const double d = bson_iter_double(it);
      if (std::isnan(d)) return FailedToParse("Expected an integer, but found NaN in: " + ElementString(it));
      if (d >= kTwoTo63 || d < -kTwoTo63) {
        return FailedToParse("Cannot represent as a 64-bit integer: " + ElementString(it));
      }
      if (d != std::trunc(d)) return FailedToParse("Expected an integer: " + ElementString(it));
      return static_cast<int64_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      // Decimal128::toLongExact: anything but an exact int64 is refused.
      const Decimal128 d = ToDecimal(it);
      if (IsNaN(d) || d > Int64MaxDecimal() || d < Int64MinDecimal() ||
          Decimal128(TruncateDecimal(d)) != d) {
        return FailedToParse("Cannot represent as a 64-bit integer: " + ElementString(it));
      }
      return TruncateDecimal(d);
    }
    default:
      return FailedToParse("Expected a number in: " + ElementString(it));
  }
}

StatusWith<int64_t> ParseIntegerElementToNonNegativeLong(const bson_iter_t* it) {
  ASSIGN_OR_RETURN(int64_t v, ParseIntegerElementToLong(it));
  if (v < 0) return FailedToParse("Expected a non-negative number in: " + ElementString(it));
  return v;
}

StatusWith<int32_t> ParseIntegerElementToInt(const bson_iter_t* it) {
  ASSIGN_OR_RETURN(int64_t v, ParseIntegerElementToLong(it));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return FailedToParse("Cannot represent " + ElementString(it) + " in an int");
  }
  return static_cast<int32_t>(v);
}

StatusWith<int32_t> ParseIntegerElementToNonNegativeInt(const bson_iter_t* it) {
  ASSIGN_OR_RETURN(int32_t v, ParseIntegerElementToInt(it));
  if (v < 0) return FailedToParse("Expected a non-negative number in: " + ElementString(it));
  return v;
}

StatusWith<int64_t> CoerceToLong(const bson_iter_t* it) {
  const Status nan_inf(ErrorCode::kBadValue, "Unable to coerce NaN/Inf to integral type");
  const Status bounds(ErrorCode::kBadValue, "Out of bounds coercing to integral value");
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
      return static_cast<int64_t>(bson_iter_int32(it));
    case BSON_TYPE_INT64:
      return bson_iter_int64(it);
    case BSON_TYPE_DOUBLE: {
      const double d = bson_iter_double(it);
      if (!std::isfinite(d)) return nan_inf;
      if (d >= kTwoTo63 || d < -kTwoTo63) return bounds;
      return static_cast<int64_t>(d);  // truncates toward zero
    }
    default: {
      const Decimal128 d = ToDecimal(it);
      if (IsNaN(d) || IsInfinite(it)) return nan_inf;
      // Round toward zero first, then check the range (MongoDB's order):
      // -9223372036854775808.9 truncates into range.
      if (d >= Int64MaxDecimal() + 1 || d <= Int64MinDecimal() - 1) return bounds;
      return TruncateDecimal(d);
    }
  }
}

int32_t NumberInt(const bson_iter_t* it) {
  constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();
  switch (bson_iter_type(it)) {
    case BSON_TYPE_INT32:
      return bson_iter_int32(it);
    case BSON_TYPE_INT64:
      return static_cast<int32_t>(bson_iter_int64(it));  // wraps, as (int)long long
    case BSON_TYPE_DOUBLE: {
      const double d = bson_iter_double(it);
      if (!(d > -2147483649.0 && d < 2147483648.0)) return kIntMin;  // cvttsd2si's answer
      return static_cast<int32_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      const Decimal128 d = ToDecimal(it);
      if (IsNaN(d) || d >= Decimal128(2147483648LL) || d <= Decimal128(-2147483649LL)) {
        return kIntMin;
      }
      const int64_t t = TruncateDecimal(d);
      const Decimal128 frac = d - Decimal128(t);
      const Decimal128 half = Decimal128(5) / Decimal128(10);
      int64_t r = t;
      if (frac > half || (frac == half && (t % 2 != 0))) r = t + 1;
      if (frac < -half || (frac == -half && (t % 2 != 0))) r = t - 1;
      if (r < kIntMin || r > std::numeric_limits<int32_t>::max()) return kIntMin;
      return static_cast<int32_t>(r);
    }
    default:
      return 0;
  }
}

}  // namespace tigerdoc::query
