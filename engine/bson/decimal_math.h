#pragma once
// Functions of decimal128 values beyond the four operations of decimal.h,
// computed as MongoDB's Decimal128 computes them (Intel's library, rounding
// to nearest, ties to even), so results carry the exponent MongoDB's do:
// log10(10) is 1, not 1.000000000000000000000000000000000.
//
// Thread-safety: pure functions.

#include <cstdint>

#include "engine/bson/decimal.h"

namespace tigerdoc::bson {

enum class DecimalUnaryFn {
  kSin, kCos, kTan, kAsin, kAcos, kAtan,
  kSinh, kCosh, kTanh, kAsinh, kAcosh, kAtanh,
  kExp, kLn, kLog10, kSqrt,
};
Decimal128 DecimalApply(DecimalUnaryFn fn, const Decimal128& x);

// atan2(y, x).
Decimal128 DecimalAtan2(const Decimal128& y, const Decimal128& x);
Decimal128 DecimalPow(const Decimal128& base, const Decimal128& exponent);
// log of x in `base`: log2 and log10 directly for bases 2 and 10, else
// ln(x) / ln(base) (MongoDB's Decimal128::logarithm(base)).
Decimal128 DecimalLog(const Decimal128& x, const Decimal128& base);

bool DecimalIsInfinite(const Decimal128& x);
bool DecimalIsZero(const Decimal128& x);

enum class DecimalRounding { kNearestEven, kTowardZero, kFloor, kCeil };
// x with exponent -place (ties to even, or truncated), keeping trailing
// zeros ("1.5" to 3 places is "1.500"); where that needs more than 34
// digits, the finest exponent that fits. NaN and infinities unchanged.
Decimal128 DecimalRoundToPlace(const Decimal128& x, int place, DecimalRounding mode);

// pi/180 and 180/pi as MongoDB computes them (pi to 34 digits, divided).
Decimal128 DecimalPiOver180();
Decimal128 Decimal180OverPi();

}  // namespace tigerdoc::bson
