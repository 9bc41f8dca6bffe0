#include "engine/bson/decimal_math.h"

#include "engine/bson/decimal_bid.h"

namespace tigerdoc::bson {
namespace {

constexpr _IDEC_round kNearestEven = BID_ROUNDING_TO_NEAREST;

using BidUnary = BID_UINT128 (*)(BID_UINT128, _IDEC_round, _IDEC_flags*);

BidUnary UnaryFor(DecimalUnaryFn fn) {
  switch (fn) {
    case DecimalUnaryFn::kSin: return bid128_sin;
    case DecimalUnaryFn::kCos: return bid128_cos;
    case DecimalUnaryFn::kTan: return bid128_tan;
    case DecimalUnaryFn::kAsin: return bid128_asin;
    case DecimalUnaryFn::kAcos: return bid128_acos;
    case DecimalUnaryFn::kAtan: return bid128_atan;
    case DecimalUnaryFn::kSinh: return bid128_sinh;
    case DecimalUnaryFn::kCosh: return bid128_cosh;
    case DecimalUnaryFn::kTanh: return bid128_tanh;
    case DecimalUnaryFn::kAsinh: return bid128_asinh;
    case DecimalUnaryFn::kAcosh: return bid128_acosh;
    case DecimalUnaryFn::kAtanh: return bid128_atanh;
    case DecimalUnaryFn::kExp: return bid128_exp;
    case DecimalUnaryFn::kLn: return bid128_log;
    case DecimalUnaryFn::kLog10: return bid128_log10;
    case DecimalUnaryFn::kSqrt: return bid128_sqrt;
  }
  return bid128_sin;  // unreachable: every enumerator is listed
}

Decimal128 Wrap(const BID_UINT128& v) { return Decimal128::FromBson(FromBid(v)); }
BID_UINT128 Unwrap(const Decimal128& d) { return ToBid(d.ToBson()); }

}  // namespace

Decimal128 DecimalApply(DecimalUnaryFn fn, const Decimal128& x) {
  _IDEC_flags flags = 0;
  return Wrap(UnaryFor(fn)(Unwrap(x), kNearestEven, &flags));
}

Decimal128 DecimalAtan2(const Decimal128& y, const Decimal128& x) {
  _IDEC_flags flags = 0;
  return Wrap(bid128_atan2(Unwrap(y), Unwrap(x), kNearestEven, &flags));
}

Decimal128 DecimalPow(const Decimal128& base, const Decimal128& exponent) {
  _IDEC_flags flags = 0;
  return Wrap(bid128_pow(Unwrap(base), Unwrap(exponent), kNearestEven, &flags));
}

Decimal128 DecimalLog(const Decimal128& x, const Decimal128& base) {
  _IDEC_flags flags = 0;
  if (base == Decimal128(2)) return Wrap(bid128_log2(Unwrap(x), kNearestEven, &flags));
  if (base == Decimal128(10)) return DecimalApply(DecimalUnaryFn::kLog10, x);
  return DecimalApply(DecimalUnaryFn::kLn, x) / DecimalApply(DecimalUnaryFn::kLn, base);
}

bool DecimalIsInfinite(const Decimal128& x) { return bid128_isInf(Unwrap(x)) != 0; }
bool DecimalIsZero(const Decimal128& x) { return bid128_isZero(Unwrap(x)) != 0; }

Decimal128 DecimalRoundToPlace(const Decimal128& x, int place, DecimalRounding mode) {
  if (x.IsNaN() || DecimalIsInfinite(x)) return x;
  constexpr int kDigits = 34;
  int exponent = -place;
  if (!DecimalIsZero(x)) {
    _IDEC_flags flags = 0;
    // The position of the leading digit: a result of exponent e holds
    // leading - e + 1 digits, at most 34.
    const int leading = bid128_ilogb(Unwrap(x), &flags);
    if (leading - exponent + 1 > kDigits) exponent = leading - kDigits + 1;
  }
  _IDEC_round rounding = kNearestEven;
  switch (mode) {
    case DecimalRounding::kNearestEven: rounding = BID_ROUNDING_TO_NEAREST; break;
    case DecimalRounding::kTowardZero: rounding = BID_ROUNDING_TO_ZERO; break;
    case DecimalRounding::kFloor: rounding = BID_ROUNDING_DOWN; break;
    case DecimalRounding::kCeil: rounding = BID_ROUNDING_UP; break;
  }
  _IDEC_flags flags = 0;
  // The quantum 1E<exponent> names the exponent the result takes.
  BID_UINT128 quantum = bid128_scalbn(bid128_from_int32(1), exponent, kNearestEven, &flags);
  BID_UINT128 result = bid128_quantize(Unwrap(x), quantum, rounding, &flags);
  if (bid128_isNaN(result)) {
    // Rounding up carried into a 35th digit (9.99...9 to the last place):
    // one place coarser holds it.
    quantum = bid128_scalbn(bid128_from_int32(1), exponent + 1, kNearestEven, &flags);
    result = bid128_quantize(Unwrap(x), quantum, rounding, &flags);
  }
  return Wrap(result);
}

namespace {
// pi as MongoDB's Decimal128::kPi spells it (rounded to 34 digits on parse).
Decimal128 Pi() {
  _IDEC_flags flags = 0;
  static const Decimal128 kPi = Wrap(bid128_from_string(
      const_cast<char*>("3.14159265358979323846264338327950288419716939937510"), kNearestEven,
      &flags));
  return kPi;
}
}  // namespace

Decimal128 DecimalPiOver180() { return Pi() / Decimal128(180); }
Decimal128 Decimal180OverPi() { return Decimal128(180) / Pi(); }

}  // namespace tigerdoc::bson
