#pragma once
// MongoDB's parsers for integer operands -- BSONElement's
// parseIntegerElementToLong/-Int (and their non-negative forms),
// tryCoerce<long long> and numberInt() -- with MongoDB's exact messages,
// shared by the operators that take integer operands ($size, $bits*,
// $alwaysTrue/$alwaysFalse, $mod) and by find's $slice projection and sort
// directions.
//
// Numbers are int32, int64, double and decimal128; every other type is
// "not a number". Messages quote the element as BSONElement::toString(true,
// true) does: "<field name>: <value>" ("$size: 1.5", "0: -1").
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <string>

#include "engine/base/status.h"

namespace tigerdoc::query {

// True for int32, int64, double and decimal128 (BSONElement::isNumber).
bool IsNumber(const bson_iter_t* it);

// "<key>: <value>", the element as MongoDB prints it in these messages.
std::string ElementString(const bson_iter_t* it);

// parseIntegerElementToLong. FailedToParse (9) with:
//   "Expected a number in: <elem>"                       not a number
//   "Expected an integer, but found NaN in: <elem>"      NaN double
//   "Cannot represent as a 64-bit integer: <elem>"       out of range, or a
//                                                        decimal that is NaN,
//                                                        infinite or fractional
//   "Expected an integer: <elem>"                        fractional double
StatusWith<int64_t> ParseIntegerElementToLong(const bson_iter_t* it);
// As above, then "Expected a non-negative number in: <elem>" for v < 0.
StatusWith<int64_t> ParseIntegerElementToNonNegativeLong(const bson_iter_t* it);
// As ParseIntegerElementToLong, then "Cannot represent <elem> in an int".
StatusWith<int32_t> ParseIntegerElementToInt(const bson_iter_t* it);
// As ParseIntegerElementToInt, then "Expected a non-negative number in: <elem>".
StatusWith<int32_t> ParseIntegerElementToNonNegativeInt(const bson_iter_t* it);

// tryCoerce<long long>: truncates toward zero. BadValue (2) with
// "Unable to coerce NaN/Inf to integral type" or
// "Out of bounds coercing to integral value".
// REQUIRES: IsNumber(it).
StatusWith<int64_t> CoerceToLong(const bson_iter_t* it);

// BSONElement::numberInt(): int64 wraps to 32 bits, doubles truncate (NaN
// and out-of-range doubles give INT32_MIN, as the x86 conversion MongoDB
// relies on does), decimals round half to even (INT32_MIN when NaN or out
// of range). 0 for non-numbers.
int32_t NumberInt(const bson_iter_t* it);

}  // namespace tigerdoc::query
