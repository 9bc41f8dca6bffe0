#pragma once
// IndexBounds: the bounds of a whole query (a conjunction of predicates) on
// one index, and the keystring ranges an index scan reads for them.
//
//   index {a: 1, b: -1}, filter {a: {$in: [1, 2]}, b: {$gt: 5}, c: 7}
//
//     a: [1, 1], [2, 2]          points: compounded (one prefix per point)
//     b: [inf.0, 5)              descending: printed and scanned reversed
//     c                          not a key field: stays in the filter
//
//     key ranges:  [enc(1) ++ ~enc(inf), enc(1) ++ ~enc(5))
//                  [enc(2) ++ ~enc(inf), enc(2) ++ ~enc(5))
//
// Key ranges compound the leading fields whose bounds are all points (up to
// kMaxScanRanges ranges, as MongoDB caps exploding point bounds) and end
// with the intervals of the next field; bounds on fields after that are
// enforced per entry by KeyInBounds() on the entry's key values. Since
// every keystring component is prefix-free, [enc(lo), PrefixSuccessor(
// enc(hi))) covers all keys whose field lies in [lo, hi] whatever follows
// (more fields, then the record key).
//
// Multikey rules (MongoDB's): bounds of two predicates on a field that has
// held arrays are not intersected (an array may satisfy each with a
// different element): the first one is used and the rest stay in the
// filter. Likewise fields sharing a path prefix where one is multikey are
// not compounded, unless both predicates sit in the same $elemMatch.
//
// Thread-safety: values and pure functions.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/keystring/key_string.h"
#include "engine/query/matcher/match_expression.h"
#include "engine/query/planner/bounds_builder.h"
#include "engine/query/planner/interval.h"

namespace tigerdoc::query::planner {

// Point bounds explode into at most this many scan ranges (MongoDB's
// internalQueryMaxScansToExplode).
inline constexpr size_t kMaxScanRanges = 200;

// What bounds derivation needs to know about an index.
struct IndexKeyField {
  std::string path;
  keystring::Direction direction = keystring::Direction::kAscending;
  bool hashed = false;
  bool multikey = false;  // this field has held an array in some document
  // An array was met before the path's last component ({"a.b"} through
  // a: [...]): a null key may then stand for "no value" as well as null.
  bool array_before_leaf = false;
  // Keys of this field are binary even in a collated index (a wildcard
  // index's $_path component).
  bool never_collated = false;
  // The entry's key values hold this field's value under the path named by
  // their $_path field, not under `path` (a wildcard index expanded for a
  // positional query path "a.0" has keys {$_path: "a", a: v}).
  bool value_under_wildcard_path = false;
};

struct IndexShape {
  std::vector<IndexKeyField> fields;
  bool sparse = false;
  // The index's collation: its string keys are collation keys, so bounds
  // are built and encoded with it (interval.h). nullptr = simple.
  const bson::Collator* collator = nullptr;
  // The key a hashed field stores for a value (index-core's hash); needed
  // only when a field is hashed.
  std::function<OwnedValue(const OwnedValue&)> hash;
};

// One range of index keys, in index order.
struct KeyRange {
  std::string lower;  // inclusive
  std::string upper;  // exclusive; empty = to the end of the table
};

struct IndexBounds {
  std::vector<OrderedIntervalList> fields;  // one per key field, ascending

  // All values on every field.
  static IndexBounds AllValues(size_t num_fields);
  bool IsEmpty() const;  // some field admits no value: nothing matches

  // The ranges to scan, in index order, and how many leading fields they
  // enforce (the rest need KeyInBounds).
  std::vector<KeyRange> ToKeyRanges(const IndexShape& index, size_t* fields_enforced) const;
  // True when the key values of an entry ({<dotted field>: value, ...};
  // a missing field is absent and reads as null) lie within the bounds of
  // fields [from_field, n).
  bool KeyInBounds(const bson_t* key_values, const IndexShape& index, size_t from_field) const;

  // MongoDB's explain form: {a: ["[1, 1]"], b: ["[inf.0, 5)"]}.
  // `backward`: as a backward scan reads them (MongoDB lists each field's
  // intervals last to first, each from its high end: ["[MaxKey, MinKey]"]).
  bson::BsonDoc ToBson(const IndexShape& index, bool backward = false) const;
};

// The result of planning one conjunction against one index.
struct ConjunctionBounds {
  IndexBounds bounds;
  // Some predicate bounds the leading key field: MongoDB's condition for
  // the index to be a candidate at all.
  bool leading_field_bounded = false;
  // Every conjunct of the filter is implied exactly by the bounds: the
  // filter need not run on what the scan returns.
  bool exact = false;
  // Every conjunct not implied exactly names only key fields that never
  // held arrays, so it can be checked on the key values (a covered plan
  // needs no fetch for the filter).
  bool coverable = false;
  // A sparse index has entries for every document the filter can match.
  bool sparse_ok = true;
};

// Bounds of the conjunction `root` (an And, or any single predicate) on
// `index`. Conjuncts that are not path predicates ($or, $nor, $expr-like)
// generate no bounds and keep the result inexact.
ConjunctionBounds BoundsForConjunction(const MatchExpression* root, const IndexShape& index);

// True when every document `query` matches also matches `partial` (MongoDB's
// isSubsetOf for partial indexes): each conjunct of `partial` is implied by
// some conjunct of `query` on the same path whose bounds lie within its
// bounds ({rating: {$gte: 8}} implies {rating: {$gt: 5}}), or, for
// {$exists: true}, by any query predicate on the path that cannot match a
// missing field.
bool QueryImplies(const MatchExpression* query, const MatchExpression* partial);

}  // namespace tigerdoc::query::planner
