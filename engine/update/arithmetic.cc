#include "engine/update/arithmetic.h"

#include <cstdio>
#include <cstring>
#include <limits>

#include "engine/bson/decimal.h"

namespace tigerdoc::update {
namespace {

using bson::Decimal128;

using bson::DecimalFromBson;
using bson::DecimalToBson;

Decimal128 ToDecimal(const bson_value_t* v) {
  switch (v->value_type) {
    case BSON_TYPE_INT32: return Decimal128(static_cast<long long>(v->value.v_int32));
    case BSON_TYPE_INT64: return Decimal128(static_cast<long long>(v->value.v_int64));
    case BSON_TYPE_DOUBLE: {
      // MongoDB converts doubles to decimal128 rounded to 15 significant
      // digits (0.1 becomes 0.100000000000000, keeping all 15 digits); go
      // through that decimal string to get the same value.
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.14e", v->value.v_double);
      bson_decimal128_t raw;
      if (!bson_decimal128_from_string(buf, &raw)) {
        // inf / nan spellings differ between printf and libbson
        double d = v->value.v_double;
        bson_decimal128_from_string(d != d ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"), &raw);
      }
      return DecimalFromBson(raw);
    }
    default: return DecimalFromBson(v->value.v_decimal128);
  }
}

double ToDouble(const bson_value_t* v) {
  switch (v->value_type) {
    case BSON_TYPE_INT32: return v->value.v_int32;
    case BSON_TYPE_INT64: return static_cast<double>(v->value.v_int64);
    default: return v->value.v_double;
  }
}

int64_t ToInt64(const bson_value_t* v) {
  return v->value_type == BSON_TYPE_INT32 ? v->value.v_int32 : v->value.v_int64;
}

query::OwnedValue Make(const bson_value_t& v) { return query::OwnedValue(&v); }

}  // namespace

bool IsNumeric(bson_type_t type) {
  return type == BSON_TYPE_INT32 || type == BSON_TYPE_INT64 || type == BSON_TYPE_DOUBLE ||
         type == BSON_TYPE_DECIMAL128;
}

std::optional<query::OwnedValue> ApplyArithmetic(ArithmeticOp op, const bson_value_t* lhs,
                                                 const bson_value_t* rhs) {
  bson_value_t out;
  const bson_type_t lt = lhs->value_type;
  const bson_type_t rt = rhs->value_type;
  if (lt == BSON_TYPE_DECIMAL128 || rt == BSON_TYPE_DECIMAL128) {
    Decimal128 a = ToDecimal(lhs), b = ToDecimal(rhs);
    out.value_type = BSON_TYPE_DECIMAL128;
    out.value.v_decimal128 = DecimalToBson(op == ArithmeticOp::kAdd ? a + b : a * b);
    return Make(out);
  }
  if (lt == BSON_TYPE_DOUBLE || rt == BSON_TYPE_DOUBLE) {
    double a = ToDouble(lhs), b = ToDouble(rhs);
    out.value_type = BSON_TYPE_DOUBLE;
    out.value.v_double = op == ArithmeticOp::kAdd ? a + b : a * b;
    return Make(out);
  }
  int64_t a = ToInt64(lhs), b = ToInt64(rhs);
  int64_t result = 0;
  bool overflow = op == ArithmeticOp::kAdd ? __builtin_add_overflow(a, b, &result)
                                           : __builtin_mul_overflow(a, b, &result);
  if (lt == BSON_TYPE_INT32 && rt == BSON_TYPE_INT32) {
    // int32 operands never overflow int64; promote only when needed.
    if (result >= std::numeric_limits<int32_t>::min() &&
        result <= std::numeric_limits<int32_t>::max()) {
      out.value_type = BSON_TYPE_INT32;
      out.value.v_int32 = static_cast<int32_t>(result);
      return Make(out);
    }
  }
  if (overflow) return std::nullopt;
  out.value_type = BSON_TYPE_INT64;
  out.value.v_int64 = result;
  return Make(out);
}

query::OwnedValue ZeroLike(const bson_value_t* like) {
  bson_value_t out;
  out.value_type = like->value_type;
  switch (like->value_type) {
    case BSON_TYPE_INT32: out.value.v_int32 = 0; break;
    case BSON_TYPE_INT64: out.value.v_int64 = 0; break;
    case BSON_TYPE_DOUBLE: out.value.v_double = 0; break;
    default: bson_decimal128_from_string("0", &out.value.v_decimal128); break;
  }
  return Make(out);
}

std::string SafeNumString(const bson_value_t* v) {
  char buf[64];
  switch (v->value_type) {
    case BSON_TYPE_INT32:
      std::snprintf(buf, sizeof(buf), "(NumberInt)%d", v->value.v_int32);
      return buf;
    case BSON_TYPE_INT64:
      std::snprintf(buf, sizeof(buf), "(NumberLong)%lld", static_cast<long long>(v->value.v_int64));
      return buf;
    case BSON_TYPE_DOUBLE:
      std::snprintf(buf, sizeof(buf), "(NumberDouble)%.17g", v->value.v_double);
      return buf;
    default: {
      char dec[BSON_DECIMAL128_STRING];
      bson_decimal128_to_string(&v->value.v_decimal128, dec);
      return std::string("(NumberDecimal)") + dec;
    }
  }
}

}  // namespace tigerdoc::update
