#pragma once
// Arithmetic on BSON numbers with MongoDB's type promotion (SafeNum), for
// $inc and $mul:
//   int32 op int32  -> int32, or int64 when the result overflows int32
//   int64 op int64/int32 -> int64; overflow is an error (nullopt)
//   any op double   -> double
//   any op decimal  -> decimal128 (a double operand is first rounded to 15
//                      significant digits, as MongoDB's Decimal128(double))
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <optional>
#include <string>

#include "engine/query/owned_value.h"

namespace tigerdoc::update {

enum class ArithmeticOp { kAdd, kMultiply };

bool IsNumeric(bson_type_t type);

// REQUIRES: both operands numeric. nullopt when int64 arithmetic overflows.
std::optional<query::OwnedValue> ApplyArithmetic(ArithmeticOp op, const bson_value_t* lhs,
                                                 const bson_value_t* rhs);

// Zero of the same numeric type as `like` (what $mul writes to a missing field).
query::OwnedValue ZeroLike(const bson_value_t* like);

// MongoDB's SafeNum debug rendering, "(NumberInt)5", "(NumberLong)...",
// "(NumberDouble)1.5", "(NumberDecimal)...", for overflow messages.
std::string SafeNumString(const bson_value_t* number);

}  // namespace tigerdoc::update
