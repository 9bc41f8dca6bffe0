#include "engine/bson/decimal.h"

#include <cstring>

// libgcc's decimal128 entry points (libgcc/config/libbid). Their
// _Decimal128 arguments and results travel in SSE registers (x86-64 psABI:
// class SSE + SSEUP, as __m128), which a 16-byte vector type reproduces in
// compilers without _Decimal128. Comparison results follow libgcc's
// soft-float convention: eq/ne return 0 when equal; lt < 0 when less; le
// <= 0 when less or equal; NaN operands make every one of them "false".
namespace {
using Td = long long __attribute__((vector_size(16)));
}  // namespace

extern "C" {
Td __bid_addtd3(Td, Td);
Td __bid_subtd3(Td, Td);
Td __bid_multd3(Td, Td);
Td __bid_divtd3(Td, Td);
int __bid_eqtd2(Td, Td);
int __bid_lttd2(Td, Td);
int __bid_letd2(Td, Td);
int __bid_unordtd2(Td, Td);
Td __bid_floatditd(long long);
long long __bid_fixtddi(Td);
}

namespace tigerdoc::bson {
namespace {

static_assert(sizeof(Td) == sizeof(bson_decimal128_t));

Td ToTd(const bson_decimal128_t& raw) {
  Td v;
  std::memcpy(&v, &raw, sizeof(v));
  return v;
}

bson_decimal128_t FromTd(Td v) {
  bson_decimal128_t raw;
  std::memcpy(&raw, &v, sizeof(raw));
  return raw;
}

}  // namespace

bson_decimal128_t Decimal128::FromInt64(int64_t v) { return FromTd(__bid_floatditd(v)); }

bool Decimal128::IsNaN() const { return __bid_unordtd2(ToTd(raw_), ToTd(raw_)) != 0; }

int64_t Decimal128::TruncateToInt64() const { return __bid_fixtddi(ToTd(raw_)); }

Decimal128 operator+(const Decimal128& a, const Decimal128& b) {
  return Decimal128(FromTd(__bid_addtd3(ToTd(a.raw_), ToTd(b.raw_))));
}
Decimal128 operator-(const Decimal128& a, const Decimal128& b) {
  return Decimal128(FromTd(__bid_subtd3(ToTd(a.raw_), ToTd(b.raw_))));
}
Decimal128 operator*(const Decimal128& a, const Decimal128& b) {
  return Decimal128(FromTd(__bid_multd3(ToTd(a.raw_), ToTd(b.raw_))));
}
Decimal128 operator/(const Decimal128& a, const Decimal128& b) {
  return Decimal128(FromTd(__bid_divtd3(ToTd(a.raw_), ToTd(b.raw_))));
}

// Negation flips the sign bit (bit 63 of the high word), as GCC does; it is
// exact for every value, NaNs included.
Decimal128 Decimal128::operator-() const {
  bson_decimal128_t raw = raw_;
  raw.high ^= uint64_t{1} << 63;
  return Decimal128(raw);
}

bool operator==(const Decimal128& a, const Decimal128& b) {
  if (a.IsNaN() || b.IsNaN()) return false;
  return __bid_eqtd2(ToTd(a.raw_), ToTd(b.raw_)) == 0;
}
bool operator<(const Decimal128& a, const Decimal128& b) {
  if (a.IsNaN() || b.IsNaN()) return false;
  return __bid_lttd2(ToTd(a.raw_), ToTd(b.raw_)) < 0;
}
bool operator<=(const Decimal128& a, const Decimal128& b) {
  if (a.IsNaN() || b.IsNaN()) return false;
  return __bid_letd2(ToTd(a.raw_), ToTd(b.raw_)) <= 0;
}

}  // namespace tigerdoc::bson
