#include "engine/query/matcher/bitwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "engine/bson/shell_string.h"
#include "engine/query/matcher/integer_argument.h"

namespace tigerdoc::query {
namespace {

MatchKind KindFor(std::string_view op) {
  if (op == "$bitsAllSet") return MatchKind::kBitsAllSet;
  if (op == "$bitsAllClear") return MatchKind::kBitsAllClear;
  if (op == "$bitsAnySet") return MatchKind::kBitsAnySet;
  return MatchKind::kBitsAnyClear;
}

// The int64 a document value is tested as, or nullopt when it is not an
// integral number representable as int64 (BitTestMatchExpression's
// matchesSingleElement).
std::optional<int64_t> IntegralValue(const bson_iter_t* value) {
  switch (bson_iter_type(value)) {
    case BSON_TYPE_INT32:
      return static_cast<int64_t>(bson_iter_int32(value));
    case BSON_TYPE_INT64:
      return bson_iter_int64(value);
    case BSON_TYPE_DOUBLE: {
      const double d = bson_iter_double(value);
      if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
        return std::nullopt;
      }
      if (d != std::trunc(d)) return std::nullopt;
      return static_cast<int64_t>(d);
    }
    case BSON_TYPE_DECIMAL128: {
      // Exactly the integral decimals in int64's range: what
      // ParseIntegerElementToLong accepts.
      StatusWith<int64_t> v = ParseIntegerElementToLong(value);
      if (!v.ok()) return std::nullopt;
      return v.value();
    }
    default:
      return std::nullopt;
  }
}

// The bytes of a BinData value as MongoDB's BSONElement::binData() sees
// them: libbson strips the inner length of the old binary subtype (2), but
// mongod tests those four bytes too.
void RawBinary(const bson_iter_t* it, const uint8_t** data, uint32_t* len) {
  bson_subtype_t subtype;
  bson_iter_binary(it, &subtype, len, data);
  if (subtype == BSON_SUBTYPE_BINARY_DEPRECATED) {
    *data -= sizeof(int32_t);
    *len += sizeof(int32_t);
  }
}

}  // namespace

BitTestExpression::BitTestExpression(MatchKind kind, std::string path,
                                     std::vector<uint32_t> positions, uint64_t mask)
    : PathMatchExpression(kind, std::move(path), bson::LeafArrays::kTraverse),
      positions_(std::move(positions)),
      mask_(mask) {}

StatusWith<std::unique_ptr<BitTestExpression>> BitTestExpression::Parse(
    std::string path, const bson_iter_t* operand) {
  const char* op = bson_iter_key(operand);
  const MatchKind kind = KindFor(op);
  std::vector<uint32_t> positions;
  uint64_t mask = 0;
  if (BSON_ITER_HOLDS_ARRAY(operand)) {
    bson_iter_t elements;
    bson_iter_recurse(operand, &elements);
    while (bson_iter_next(&elements)) {
      StatusWith<int32_t> position = ParseIntegerElementToNonNegativeInt(&elements);
      if (!position.ok()) {
        return Status(ErrorCode::kBadValue,
                      "Failed to parse bit position. " + position.status().reason());
      }
      const auto bit = static_cast<uint32_t>(position.value());
      positions.push_back(bit);
      // Numbers are sign-extended: positions past 63 test the sign bit.
      mask |= uint64_t{1} << std::min(bit, 63u);
    }
  } else if (IsNumber(operand)) {
    ASSIGN_OR_RETURN(int64_t value, ParseIntegerElementToNonNegativeLong(operand));
    mask = static_cast<uint64_t>(value);
    for (uint32_t bit = 0; bit < 64; ++bit) {
      if (mask & (uint64_t{1} << bit)) positions.push_back(bit);
    }
  } else if (BSON_ITER_HOLDS_BINARY(operand)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    RawBinary(operand, &data, &len);
    for (uint32_t byte = 0; byte < len; ++byte) {
      // Signed, as MongoDB's `char byteAt` (see the header's quirk note).
      const auto byte_at = static_cast<int8_t>(data[byte]);
      if (byte_at == 0) continue;
      if (byte < 8) {
        mask |= static_cast<uint64_t>(static_cast<int64_t>(byte_at)) << (byte * 8);
      } else {
        mask |= uint64_t{1} << 63;
      }
      for (uint32_t bit = 0; bit < 8; ++bit) {
        if (data[byte] & (1u << bit)) positions.push_back(8 * byte + bit);
      }
    }
  } else {
    return Status(ErrorCode::kBadValue, path +
                                            " takes an Array, a number, or a BinData but "
                                            "received: " +
                                            op + ": " + bson::ToShellString(operand));
  }
  return std::unique_ptr<BitTestExpression>(
      new BitTestExpression(kind, std::move(path), std::move(positions), mask));
}

bool BitTestExpression::TestNumber(int64_t value) const {
  const auto v = static_cast<uint64_t>(value);
  switch (kind()) {
    case MatchKind::kBitsAllSet: return (v & mask_) == mask_;
    case MatchKind::kBitsAllClear: return (~v & mask_) == mask_;
    case MatchKind::kBitsAnySet: return (v & mask_) != 0;
    default: return (~v & mask_) != 0;  // kBitsAnyClear
  }
}

bool BitTestExpression::TestBinary(const uint8_t* data, uint32_t len) const {
  const bool want_set = kind() == MatchKind::kBitsAllSet || kind() == MatchKind::kBitsAnySet;
  const bool all = kind() == MatchKind::kBitsAllSet || kind() == MatchKind::kBitsAllClear;
  for (uint32_t position : positions_) {
    const bool set = position / 8 < len && (data[position / 8] & (1u << (position % 8))) != 0;
    const bool satisfied = set == want_set;
    if (all && !satisfied) return false;  // one miss fails "all"
    if (!all && satisfied) return true;   // one hit passes "any"
  }
  return all;
}

bool BitTestExpression::MatchesValue(const bson_iter_t* value) const {
  if (value == nullptr) return false;
  if (BSON_ITER_HOLDS_BINARY(value)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    RawBinary(value, &data, &len);
    return TestBinary(data, len);
  }
  std::optional<int64_t> number = IntegralValue(value);
  return number && TestNumber(*number);
}

}  // namespace tigerdoc::query
