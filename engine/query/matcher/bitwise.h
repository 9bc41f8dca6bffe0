#pragma once
// Bitwise operators: $bitsAllSet $bitsAllClear $bitsAnySet $bitsAnyClear
// (MongoDB's BitTestMatchExpression). Contracts as match_expression.h.
//
// The operand names bit positions, given one of three ways:
//   [0, 5, 100]         positions (non-negative 32-bit integers)
//   37                  a non-negative int64 bitmask (bits 0, 2, 5)
//   BinData(0, "JQ==")  a little-endian bit string: bit 8*i+j is bit j of
//                       byte i
// and is tested against each value at the path (array elements included):
//  * numbers that are integral and representable as int64 (int32, int64,
//    integral doubles, integral decimals); int32 and negative values are
//    sign-extended two's complement, so any position >= 63 tests the sign
//    bit ({$bitsAllSet: [100]} matches -1). NaN, infinities, fractional
//    values and values outside int64 never match.
//  * BinData, bit by bit; positions past its end read as 0.
//  * anything else never matches.
// Quirk kept on purpose: a BinData operand's first eight bytes also form the
// mask used against numbers with each byte sign-extended as a C `char`, so
// BinData(0, "gA==") (0x80) tests bits 7..63 of a number, as mongod does.
//
// Thread-safety: immutable after construction.

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class BitTestExpression : public PathMatchExpression {
 public:
  // Parses the operand of `op` ("$bitsAllSet", ...). Errors as MongoDB:
  //  * positions: BadValue "Failed to parse bit position. <reason>"
  //    (reason from ParseIntegerElementToNonNegativeInt, integer_argument.h);
  //  * a number: FailedToParse from ParseIntegerElementToNonNegativeLong;
  //  * other types: BadValue "<path> takes an Array, a number, or a BinData
  //    but received: <op>: <value>".
  static StatusWith<std::unique_ptr<BitTestExpression>> Parse(std::string path,
                                                             const bson_iter_t* operand);

  bool MatchesValue(const bson_iter_t* value) const override;

 private:
  // REQUIRES: kind is one of kBitsAllSet kBitsAllClear kBitsAnySet kBitsAnyClear.
  BitTestExpression(MatchKind kind, std::string path, std::vector<uint32_t> positions,
                    uint64_t mask);

  bool TestNumber(int64_t value) const;
  bool TestBinary(const uint8_t* data, uint32_t len) const;

  std::vector<uint32_t> positions_;  // for BinData values
  uint64_t mask_;                    // for numbers
};

}  // namespace tigerdoc::query
