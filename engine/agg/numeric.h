#pragma once
// Number arithmetic of the aggregation framework, with MongoDB's type
// promotion: int32 op int32 -> int32, widening to int64 and then to double
// on overflow; int64 -> double on overflow; any double -> double; any
// decimal -> decimal128 (doubles converted with 34 significant digits).
// Decimal arithmetic is libgcc's IEEE 754-2008 decimal128 (bson/decimal.h), whose BID
// encoding is the one BSON stores.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <string>

#include "engine/agg/value.h"

namespace tigerdoc::agg {

enum class NumType { kInt = 0, kLong = 1, kDouble = 2, kDecimal = 3 };
// REQUIRES: v.numeric().
NumType NumTypeOf(const Value& v);

// REQUIRES: both numeric.
Value NumAdd(const Value& a, const Value& b);
Value NumSubtract(const Value& a, const Value& b);
Value NumMultiply(const Value& a, const Value& b);
// Always double unless a decimal is involved. REQUIRES: b is not zero.
Value NumDivide(const Value& a, const Value& b);
// Remainder with the sign of the dividend. REQUIRES: b is not zero.
Value NumMod(const Value& a, const Value& b);
bool NumIsZero(const Value& v);
// Compares two numbers (BSON order). REQUIRES: numeric.
int NumCompare(const Value& a, const Value& b);

// Decimal128 helpers.
bson_decimal128_t DecimalFromDouble(double d, int significant_digits);
bson_decimal128_t DecimalFromString(const std::string& s, bool* ok);
std::string DecimalToString(const bson_decimal128_t& d);
bool DecimalIsNaN(const bson_decimal128_t& d);
bool DecimalIsInf(const bson_decimal128_t& d);

enum class RoundMode { kHalfEven, kTrunc, kFloor, kCeil };
// Rounds `v` (numeric) to `place` decimal places (negative: tens, hundreds,
// ...), keeping its type. Ints that round past int range widen to long /
// double as MongoDB does.
Value RoundNumber(const Value& v, int place, RoundMode mode);

}  // namespace tigerdoc::agg
