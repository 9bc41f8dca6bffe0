#pragma once
// ExactNumber: the exact value of any BSON number (int32, int64, double,
// decimal128) in one normalised decimal form, so numbers of different types
// can be compared exactly and encoded identically when equal.
//
// A finite non-zero value is  sign * 0.d1 d2 d3 ... * 10^(exponent + 1),
// i.e. `digits` are the significant decimal digits with no leading or
// trailing zeros and `exponent` is the power of ten of the first digit
// (1.5 -> digits "15", exponent 0; 0.01 -> "1", -2; 1200 -> "12", 3).
// Every double is a finite binary fraction and so has a finite decimal
// expansion (at most 767 significant digits), which makes the form exact for
// every double, int64 and decimal128. -0 and 0 are the same kZero; all NaNs
// are the same kNaN.
//
// Thread-safety: values and pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <string>

namespace tigerdoc::bson {

struct ExactNumber {
  // Declared in BSON order: NaN sorts below every other number.
  enum class Kind : uint8_t { kNaN, kNegInfinity, kNegative, kZero, kPositive, kPosInfinity };

  Kind kind = Kind::kZero;
  int32_t exponent = 0;  // power of ten of digits[0]; only for kNegative/kPositive
  std::string digits;    // ASCII '1'..'9' first and last; only for kNegative/kPositive
};

ExactNumber ExactFromInt64(int64_t v);
ExactNumber ExactFromDouble(double v);
ExactNumber ExactFromDecimal128(const bson_decimal128_t& v);
// REQUIRES: `value` is an int32, int64, double or decimal128.
ExactNumber ExactFromValue(const bson_value_t* value);

// Numeric order of two exact numbers (NaN == NaN, below everything). <0, 0, >0.
int CompareExact(const ExactNumber& a, const ExactNumber& b);

}  // namespace tigerdoc::bson
