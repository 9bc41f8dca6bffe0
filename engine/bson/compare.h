#pragma once
// MongoDB's BSON comparison order ("BSON comparison order" in MongoDB's docs).
//
// Types first compare by canonical type order:
//   MinKey < Null(and undefined, missing) < Numbers < String/Symbol < Object < Array
//   < BinData < ObjectId < Bool < Date < Timestamp < Regex < DBPointer < Code
//   < CodeWScope < MaxKey
// then within a type by value: numbers (int32, int64, double, decimal128) by
// numeric value (NaN below every other number, -0 == 0); strings by bytes;
// documents element by element (canonical type, then field name, then value;
// a prefix sorts first); arrays likewise ignoring field names; BinData by
// length, then subtype, then bytes; regex by pattern then flags.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include "engine/bson/collator.h"

namespace tigerdoc::bson {

// Canonical rank of a BSON type (MongoDB's canonicalizeBSONType numbers).
// Types of equal rank compare by value (e.g. all numeric types are 10).
int CanonicalTypeRank(bson_type_t type);

// Compares the values `a` and `b` point at. Returns <0, 0, >0.
// REQUIRES: both iterators are positioned on an element.
// With a `collator`, strings and symbols (also inside documents and
// arrays, but not field names) compare under it; nullptr is binary order.
int CompareValues(const bson_iter_t* a, const bson_iter_t* b, const Collator* collator = nullptr);
int CompareValues(const bson_value_t* a, const bson_value_t* b,
                  const Collator* collator = nullptr);

// Compares whole documents element by element, field names included
// (BSONObj::woCompare with considerFieldName = true).
int CompareDocuments(const bson_t* a, const bson_t* b, const Collator* collator = nullptr);

// True when the two values are equal under CompareValues.
inline bool ValuesEqual(const bson_value_t* a, const bson_value_t* b,
                        const Collator* collator = nullptr) {
  return CompareValues(a, b, collator) == 0;
}

}  // namespace tigerdoc::bson
