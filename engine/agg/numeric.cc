#include "engine/agg/numeric.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "engine/bson/decimal.h"
#include "engine/bson/decimal_math.h"

#include "engine/bson/compare.h"
#include "engine/bson/exact_number.h"

namespace tigerdoc::agg {
namespace {

using bson::Decimal128;

using bson::DecimalFromBson;
using bson::DecimalToBson;

Decimal128 AsDec(const Value& v) { return DecimalFromBson(v.AsDecimal()); }

int64_t AsLong(const Value& v) {
  return v.type() == BSON_TYPE_INT32 ? v.get()->value.v_int32 : v.get()->value.v_int64;
}

NumType Widest(const Value& a, const Value& b) {
  return static_cast<NumType>(
      std::max(static_cast<int>(NumTypeOf(a)), static_cast<int>(NumTypeOf(b))));
}

enum class Op { kAdd, kSub, kMul };

Value Integral(Op op, NumType t, int64_t x, int64_t y) {
  int64_t r;
  bool overflow = op == Op::kAdd   ? __builtin_add_overflow(x, y, &r)
                  : op == Op::kSub ? __builtin_sub_overflow(x, y, &r)
                                   : __builtin_mul_overflow(x, y, &r);
  if (overflow) {
    double dx = static_cast<double>(x), dy = static_cast<double>(y);
    return Value::Double(op == Op::kAdd ? dx + dy : op == Op::kSub ? dx - dy : dx * dy);
  }
  if (t == NumType::kInt && r >= std::numeric_limits<int32_t>::min() &&
      r <= std::numeric_limits<int32_t>::max()) {
    return Value::Int(static_cast<int32_t>(r));
  }
  return Value::Long(r);
}

Value Apply(Op op, const Value& a, const Value& b) {
  NumType t = Widest(a, b);
  switch (t) {
    case NumType::kDecimal: {
      Decimal128 x = AsDec(a), y = AsDec(b);
      return Value::Decimal(DecimalToBson(op == Op::kAdd ? x + y : op == Op::kSub ? x - y : x * y));
    }
    case NumType::kDouble: {
      double x = a.AsDouble(), y = b.AsDouble();
      return Value::Double(op == Op::kAdd ? x + y : op == Op::kSub ? x - y : x * y);
    }
    default: return Integral(op, t, AsLong(a), AsLong(b));
  }
}

// Rounds the decimal digit string of an exact number; returns the rounded
// value as a decimal string "[-]digitsE<exp>".
std::string RoundExact(const bson::ExactNumber& n, int place, RoundMode mode) {
  using K = bson::ExactNumber::Kind;
  bool negative = n.kind == K::kNegative;
  // Value = 0.d1d2... * 10^(exponent+1); digit i (0-based) has weight
  // 10^(exponent - i). Keep digits with weight >= 10^-place.
  int keep = n.exponent + place + 1;  // number of digits kept
  std::string digits = n.digits;
  if (keep >= static_cast<int>(digits.size())) {
    return std::string(negative ? "-" : "") + digits + "E" +
           std::to_string(n.exponent - static_cast<int>(digits.size()) + 1);
  }
  std::string kept = keep > 0 ? digits.substr(0, keep) : "";
  std::string dropped = keep > 0 ? digits.substr(keep) : std::string(-keep, '0') + digits;
  bool any_dropped = dropped.find_first_not_of('0') != std::string::npos;
  bool up = false;
  switch (mode) {
    case RoundMode::kTrunc: up = false; break;
    case RoundMode::kFloor: up = negative && any_dropped; break;
    case RoundMode::kCeil: up = !negative && any_dropped; break;
    case RoundMode::kHalfEven: {
      char first = dropped[0];
      bool rest = dropped.find_first_not_of('0', 1) != std::string::npos;
      if (first > '5' || (first == '5' && rest)) {
        up = true;
      } else if (first == '5') {
        int last = kept.empty() ? 0 : kept.back() - '0';
        up = (last % 2) == 1;
      }
      break;
    }
  }
  if (kept.empty()) kept = "0";
  if (up) {
    int i = static_cast<int>(kept.size()) - 1;
    while (i >= 0 && kept[i] == '9') kept[i--] = '0';
    if (i < 0) {
      kept.insert(kept.begin(), '1');
      // One more digit in front; the exponent of the last digit is unchanged.
    } else {
      kept[i]++;
    }
  }
  // Last kept digit has weight 10^-place.
  return std::string(negative ? "-" : "") + kept + "E" + std::to_string(-place);
}

}  // namespace

NumType NumTypeOf(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32: return NumType::kInt;
    case BSON_TYPE_INT64: return NumType::kLong;
    case BSON_TYPE_DOUBLE: return NumType::kDouble;
    default: return NumType::kDecimal;
  }
}

Value NumAdd(const Value& a, const Value& b) { return Apply(Op::kAdd, a, b); }
Value NumSubtract(const Value& a, const Value& b) { return Apply(Op::kSub, a, b); }
Value NumMultiply(const Value& a, const Value& b) { return Apply(Op::kMul, a, b); }

Value NumDivide(const Value& a, const Value& b) {
  if (Widest(a, b) == NumType::kDecimal) {
    return Value::Decimal(DecimalToBson(AsDec(a) / AsDec(b)));
  }
  return Value::Double(a.AsDouble() / b.AsDouble());
}

Value NumMod(const Value& a, const Value& b) {
  NumType t = Widest(a, b);
  switch (t) {
    case NumType::kDecimal: {
      // x - y * trunc(x / y), truncation through the exact digit form.
      Decimal128 x = AsDec(a), y = AsDec(b);
      Decimal128 q = x / y;
      Value qv = RoundNumber(Value::Decimal(DecimalToBson(q)), 0, RoundMode::kTrunc);
      return Value::Decimal(DecimalToBson(x - y * DecimalFromBson(qv.get()->value.v_decimal128)));
    }
    case NumType::kDouble: return Value::Double(std::fmod(a.AsDouble(), b.AsDouble()));
    default: {
      int64_t x = AsLong(a), y = AsLong(b);
      int64_t r = (y == -1) ? 0 : x % y;
      return t == NumType::kInt ? Value::Int(static_cast<int32_t>(r)) : Value::Long(r);
    }
  }
}

bool NumIsZero(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_INT32: return v.get()->value.v_int32 == 0;
    case BSON_TYPE_INT64: return v.get()->value.v_int64 == 0;
    case BSON_TYPE_DOUBLE: return v.get()->value.v_double == 0;
    case BSON_TYPE_DECIMAL128:
      return bson::ExactFromDecimal128(v.get()->value.v_decimal128).kind ==
             bson::ExactNumber::Kind::kZero;
    default: return false;
  }
}

int NumCompare(const Value& a, const Value& b) { return bson::CompareValues(a.get(), b.get()); }

bson_decimal128_t DecimalFromDouble(double d, int significant_digits) {
  bson_decimal128_t out;
  char buf[64];
  if (std::isnan(d)) {
    std::snprintf(buf, sizeof(buf), "NaN");
  } else if (std::isinf(d)) {
    std::snprintf(buf, sizeof(buf), d > 0 ? "Infinity" : "-Infinity");
  } else {
    std::snprintf(buf, sizeof(buf), "%.*e", significant_digits - 1, d);
  }
  bson_decimal128_from_string(buf, &out);
  return out;
}

bson_decimal128_t DecimalFromString(const std::string& s, bool* ok) {
  bson_decimal128_t out;
  *ok = bson_decimal128_from_string(s.c_str(), &out);
  return out;
}

std::string DecimalToString(const bson_decimal128_t& d) {
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&d, buf);
  return buf;
}

bool DecimalIsNaN(const bson_decimal128_t& d) {
  return bson::ExactFromDecimal128(d).kind == bson::ExactNumber::Kind::kNaN;
}
bool DecimalIsInf(const bson_decimal128_t& d) {
  auto k = bson::ExactFromDecimal128(d).kind;
  return k == bson::ExactNumber::Kind::kPosInfinity || k == bson::ExactNumber::Kind::kNegInfinity;
}

Value RoundNumber(const Value& v, int place, RoundMode mode) {
  using K = bson::ExactNumber::Kind;
  switch (v.type()) {
    case BSON_TYPE_DECIMAL128: {
      // MongoDB quantizes to the exponent -place, so the result keeps
      // that many decimals, trailing zeros included ($round of 1.5 to 3
      // places is 1.500; $ceil/$floor quantize to exponent 0).
      bson::DecimalRounding rounding = bson::DecimalRounding::kNearestEven;
      switch (mode) {
        case RoundMode::kHalfEven: rounding = bson::DecimalRounding::kNearestEven; break;
        case RoundMode::kTrunc: rounding = bson::DecimalRounding::kTowardZero; break;
        case RoundMode::kFloor: rounding = bson::DecimalRounding::kFloor; break;
        case RoundMode::kCeil: rounding = bson::DecimalRounding::kCeil; break;
      }
      return Value::Decimal(
          bson::DecimalRoundToPlace(AsDec(v), place, rounding).ToBson());
    }
    case BSON_TYPE_DOUBLE: {
      double d = v.get()->value.v_double;
      if (!std::isfinite(d) || d == 0) return v;
      bson::ExactNumber n = bson::ExactFromDouble(d);
      std::string s = RoundExact(n, place, mode);
      return Value::Double(std::strtod(s.c_str(), nullptr));
    }
    default: {
      if (place >= 0) return v;
      int64_t x = AsLong(v);
      bson::ExactNumber n = bson::ExactFromInt64(x);
      if (n.kind == K::kZero) return v;
      std::string s = RoundExact(n, place, mode);
      double d = std::strtod(s.c_str(), nullptr);
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
        int64_t r = static_cast<int64_t>(d);
        if (v.type() == BSON_TYPE_INT32 && r >= std::numeric_limits<int32_t>::min() &&
            r <= std::numeric_limits<int32_t>::max()) {
          return Value::Int(static_cast<int32_t>(r));
        }
        return Value::Long(r);
      }
      return Value::Double(d);
    }
  }
}

}  // namespace tigerdoc::agg
