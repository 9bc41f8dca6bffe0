#include "engine/bson/decimal.h"

#include <cstring>

// Intel's Decimal Floating-Point Math Library (Debian libintelrdfpmath-dev),
// the library MongoDB's Decimal128 calls, in its "000" configuration:
// arguments and results by value, the rounding mode and the status flags
// passed explicitly (no globals, so thread-safe). Every operation rounds to
// nearest, ties to even, as MongoDB's default. libbson and the library both
// use the BID encoding, low word first on little-endian targets, so the
// bytes are reinterpreted as they are.
#include "engine/bson/decimal_bid.h"

namespace tigerdoc::bson {

static_assert(sizeof(BID_UINT128) == sizeof(bson_decimal128_t));

BID_UINT128 ToBid(const bson_decimal128_t& raw) {
  BID_UINT128 v;
  std::memcpy(&v, &raw, sizeof(v));
  return v;
}

bson_decimal128_t FromBid(const BID_UINT128& v) {
  bson_decimal128_t raw;
  std::memcpy(&raw, &v, sizeof(raw));
  return raw;
}

namespace {
constexpr _IDEC_round kNearestEven = BID_ROUNDING_TO_NEAREST;
}  // namespace

bson_decimal128_t Decimal128::FromInt64(int64_t v) { return FromBid(bid128_from_int64(v)); }

bool Decimal128::IsNaN() const { return bid128_isNaN(ToBid(raw_)) != 0; }

int64_t Decimal128::TruncateToInt64() const {
  _IDEC_flags flags = 0;
  return bid128_to_int64_int(ToBid(raw_), &flags);
}

Decimal128 operator+(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return Decimal128(FromBid(bid128_add(ToBid(a.raw_), ToBid(b.raw_), kNearestEven, &flags)));
}
Decimal128 operator-(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return Decimal128(FromBid(bid128_sub(ToBid(a.raw_), ToBid(b.raw_), kNearestEven, &flags)));
}
Decimal128 operator*(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return Decimal128(FromBid(bid128_mul(ToBid(a.raw_), ToBid(b.raw_), kNearestEven, &flags)));
}
Decimal128 operator/(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return Decimal128(FromBid(bid128_div(ToBid(a.raw_), ToBid(b.raw_), kNearestEven, &flags)));
}

// Negation flips the sign bit (bit 63 of the high word); it is exact for
// every value, NaNs included.
Decimal128 Decimal128::operator-() const {
  bson_decimal128_t raw = raw_;
  raw.high ^= uint64_t{1} << 63;
  return Decimal128(raw);
}

// The quiet comparisons are false whenever an operand is a NaN.
bool operator==(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return bid128_quiet_equal(ToBid(a.raw_), ToBid(b.raw_), &flags) != 0;
}
bool operator<(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return bid128_quiet_less(ToBid(a.raw_), ToBid(b.raw_), &flags) != 0;
}
bool operator<=(const Decimal128& a, const Decimal128& b) {
  _IDEC_flags flags = 0;
  return bid128_quiet_less_equal(ToBid(a.raw_), ToBid(b.raw_), &flags) != 0;
}

}  // namespace tigerdoc::bson
