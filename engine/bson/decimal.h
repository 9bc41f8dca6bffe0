#pragma once
// Decimal128: IEEE 754-2008 decimal128 arithmetic on libbson's
// bson_decimal128_t, for $inc, $mul, $add, $mod and the integral checks of
// query operators.
//
// Why not std::decimal::decimal128: that is a GCC extension clang cannot
// compile, and the sanitizer and fuzz build is clang's. The arithmetic is
// Intel's Decimal Floating-Point Math Library (libintelrdfpmath), the one
// MongoDB's Decimal128 calls, rounding to nearest, ties to even; libgcc's
// BID routines are the same library's older copy, and must not be linked
// beside it (same symbol names, another calling convention), so nothing in
// the tree uses _Decimal128. Transcendental functions: decimal_math.h.
//
// Thread-safety: a value; pure functions.

#include <bson/bson.h>

#include <concepts>
#include <cstdint>

namespace tigerdoc::bson {

class Decimal128 {
 public:
  Decimal128() : Decimal128(0) {}
  // Exact for every int64 (34 significant digits hold 19).
  template <std::integral T>
  Decimal128(T v) : raw_(FromInt64(static_cast<int64_t>(v))) {}  // NOLINT: implicit as GCC's
  static Decimal128 FromBson(const bson_decimal128_t& raw) { return Decimal128(raw); }
  bson_decimal128_t ToBson() const { return raw_; }

  bool IsNaN() const;
  // The value truncated toward zero. REQUIRES: not NaN, within int64.
  int64_t TruncateToInt64() const;

  friend Decimal128 operator+(const Decimal128& a, const Decimal128& b);
  friend Decimal128 operator-(const Decimal128& a, const Decimal128& b);
  friend Decimal128 operator*(const Decimal128& a, const Decimal128& b);
  friend Decimal128 operator/(const Decimal128& a, const Decimal128& b);
  Decimal128 operator-() const;
  // IEEE comparisons: every comparison with a NaN is false but !=.
  friend bool operator==(const Decimal128& a, const Decimal128& b);
  friend bool operator!=(const Decimal128& a, const Decimal128& b) { return !(a == b); }
  friend bool operator<(const Decimal128& a, const Decimal128& b);
  friend bool operator<=(const Decimal128& a, const Decimal128& b);
  friend bool operator>(const Decimal128& a, const Decimal128& b) { return b < a; }
  friend bool operator>=(const Decimal128& a, const Decimal128& b) { return b <= a; }

 private:
  explicit Decimal128(const bson_decimal128_t& raw) : raw_(raw) {}
  static bson_decimal128_t FromInt64(int64_t v);

  bson_decimal128_t raw_;
};

inline Decimal128 DecimalFromBson(const bson_decimal128_t& raw) { return Decimal128::FromBson(raw); }
inline bson_decimal128_t DecimalToBson(const Decimal128& d) { return d.ToBson(); }

}  // namespace tigerdoc::bson
