#include "engine/bson/exact_number.h"

#include <cmath>
#include <vector>

#include "engine/base/invariant.h"

namespace tigerdoc::bson {
namespace {

// Builds the normalised form of  sign * D * 10^scale  from the decimal digit
// string D of a positive integer (no leading zeros).
ExactNumber Normalise(bool negative, std::string integer_digits, int32_t scale) {
  ExactNumber out;
  out.kind = negative ? ExactNumber::Kind::kNegative : ExactNumber::Kind::kPositive;
  out.exponent = scale + static_cast<int32_t>(integer_digits.size()) - 1;
  size_t last = integer_digits.find_last_not_of('0');
  integer_digits.resize(last + 1);
  out.digits = std::move(integer_digits);
  return out;
}

// A minimal unsigned big integer in base 10^9 (least significant limb
// first), just enough to expand m * 2^k and m * 5^k into decimal digits.
class DecimalBigInt {
 public:
  explicit DecimalBigInt(uint64_t v) {
    do {
      limbs_.push_back(static_cast<uint32_t>(v % kBase));
      v /= kBase;
    } while (v != 0);
  }

  // REQUIRES: factor < 2^32 (so limb * factor + carry fits in 64 bits).
  void MultiplySmall(uint64_t factor) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      uint64_t cur = limb * factor + carry;
      limb = static_cast<uint32_t>(cur % kBase);
      carry = cur / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }

  void MultiplyPower(uint32_t base, uint32_t exponent) {
    // Batch into factors below 2^31 to cut the number of passes.
    uint64_t batch = 1;
    for (uint32_t i = 0; i < exponent; ++i) {
      if (batch * base >= (uint64_t{1} << 31)) {
        MultiplySmall(batch);
        batch = 1;
      }
      batch *= base;
    }
    if (batch != 1) MultiplySmall(batch);
  }

  std::string ToDigits() const {
    std::string out = std::to_string(limbs_.back());
    for (size_t i = limbs_.size() - 1; i-- > 0;) {
      std::string part = std::to_string(limbs_[i]);
      out.append(9 - part.size(), '0');
      out += part;
    }
    return out;
  }

 private:
  static constexpr uint64_t kBase = 1000000000;
  std::vector<uint32_t> limbs_;
};

std::string Uint128ToDigits(unsigned __int128 v) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return out;
}

int CompareInt(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

}  // namespace

ExactNumber ExactFromInt64(int64_t v) {
  if (v == 0) return ExactNumber{};
  // Negate in unsigned arithmetic so INT64_MIN is handled.
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return Normalise(v < 0, std::to_string(magnitude), 0);
}

ExactNumber ExactFromDouble(double v) {
  ExactNumber out;
  if (std::isnan(v)) {
    out.kind = ExactNumber::Kind::kNaN;
    return out;
  }
  if (std::isinf(v)) {
    out.kind = v < 0 ? ExactNumber::Kind::kNegInfinity : ExactNumber::Kind::kPosInfinity;
    return out;
  }
  if (v == 0) return out;
  // |v| = mantissa * 2^exp2 with an integer mantissa of at most 53 bits.
  int exp2 = 0;
  double fraction = std::frexp(std::fabs(v), &exp2);  // in [0.5, 1)
  auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
  exp2 -= 53;
  while ((mantissa & 1) == 0) {
    mantissa >>= 1;
    ++exp2;
  }
  DecimalBigInt big(mantissa);
  if (exp2 >= 0) {
    big.MultiplyPower(2, static_cast<uint32_t>(exp2));
    return Normalise(v < 0, big.ToDigits(), 0);
  }
  // m * 2^-k == m * 5^k * 10^-k.
  auto k = static_cast<uint32_t>(-exp2);
  big.MultiplyPower(5, k);
  return Normalise(v < 0, big.ToDigits(), -static_cast<int32_t>(k));
}

ExactNumber ExactFromDecimal128(const bson_decimal128_t& v) {
  // IEEE 754-2008 decimal128, binary integer decimal (BID) encoding.
  ExactNumber out;
  const bool negative = (v.high >> 63) != 0;
  const uint64_t combination = (v.high >> 58) & 0x1F;
  if (combination == 0x1F) {
    out.kind = ExactNumber::Kind::kNaN;
    return out;
  }
  if (combination == 0x1E) {
    out.kind = negative ? ExactNumber::Kind::kNegInfinity : ExactNumber::Kind::kPosInfinity;
    return out;
  }
  unsigned __int128 coefficient = 0;
  uint64_t biased_exponent = 0;
  if (((v.high >> 61) & 3) == 3) {
    // The "11" form implies a coefficient above 10^34 - 1: non-canonical,
    // which the standard defines as zero.
    biased_exponent = (v.high >> 47) & 0x3FFF;
  } else {
    biased_exponent = (v.high >> 49) & 0x3FFF;
    coefficient = (static_cast<unsigned __int128>(v.high & 0x1FFFFFFFFFFFFULL) << 64) | v.low;
    unsigned __int128 max_coefficient = 1;
    for (int i = 0; i < 34; ++i) max_coefficient *= 10;
    if (coefficient >= max_coefficient) coefficient = 0;
  }
  if (coefficient == 0) return out;
  return Normalise(negative, Uint128ToDigits(coefficient),
                   static_cast<int32_t>(biased_exponent) - 6176);
}

ExactNumber ExactFromValue(const bson_value_t* value) {
  switch (value->value_type) {
    case BSON_TYPE_INT32:
      return ExactFromInt64(value->value.v_int32);
    case BSON_TYPE_INT64:
      return ExactFromInt64(value->value.v_int64);
    case BSON_TYPE_DOUBLE:
      return ExactFromDouble(value->value.v_double);
    case BSON_TYPE_DECIMAL128:
      return ExactFromDecimal128(value->value.v_decimal128);
    default:
      INVARIANT(false && "ExactFromValue on a non-number");
  }
  return {};
}

int CompareExact(const ExactNumber& a, const ExactNumber& b) {
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.kind != ExactNumber::Kind::kPositive && a.kind != ExactNumber::Kind::kNegative) return 0;
  int magnitude = CompareInt(a.exponent, b.exponent);
  if (magnitude == 0) {
    // Same leading power of ten: digit strings compare as fractions 0.d1d2...,
    // which is lexicographic order with a prefix first.
    int c = a.digits.compare(b.digits);
    magnitude = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return a.kind == ExactNumber::Kind::kNegative ? -magnitude : magnitude;
}

}  // namespace tigerdoc::bson
