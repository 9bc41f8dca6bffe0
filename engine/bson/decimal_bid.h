#pragma once
// Internal to engine/bson: the bridge between libbson's bson_decimal128_t and
// Intel's Decimal Floating-Point Math Library (bid_functions.h, "000"
// configuration: values by value, rounding mode and status flags passed
// explicitly). Included only by decimal.cc and decimal_math.cc, so the
// library's macros stay out of the rest of the tree.
//
// Thread-safety: pure functions.

#include <bid_conf.h>
#include <bid_functions.h>
#include <bson/bson.h>

namespace tigerdoc::bson {

BID_UINT128 ToBid(const bson_decimal128_t& raw);
bson_decimal128_t FromBid(const BID_UINT128& v);

}  // namespace tigerdoc::bson
