#pragma once
// Conversions between libbson's bson_decimal128_t and GCC's
// std::decimal::decimal128, so decimal arithmetic ($inc, $mul, $add, ...)
// runs in libgcc. Both use the IEEE 754-2008 BID encoding (low word first on
// little-endian targets), so the bytes are reinterpreted as they are.
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstring>
#include <decimal/decimal>

namespace tigerdoc::bson {

inline std::decimal::decimal128 DecimalFromBson(const bson_decimal128_t& raw) {
  std::decimal::decimal128 d;
  static_assert(sizeof(d) == sizeof(raw));
  std::memcpy(static_cast<void*>(&d), &raw, sizeof(raw));
  return d;
}

inline bson_decimal128_t DecimalToBson(const std::decimal::decimal128& d) {
  bson_decimal128_t raw;
  std::memcpy(&raw, static_cast<const void*>(&d), sizeof(raw));
  return raw;
}

}  // namespace tigerdoc::bson
