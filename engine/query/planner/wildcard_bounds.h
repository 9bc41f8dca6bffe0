#pragma once
// Wildcard index expansion (MongoDB's wildcard_planning helpers): a wildcard
// index becomes, for each path the filter constrains, the two-field index
// {$_path: 1, <path>: <direction>} it physically is for that path, with
// bounds on both fields.
//
//   filter {a: {$gt: 5}, "b.c": "x"}, index {"$**": 1}
//     -> {$_path: ["a", "a"]], a: [(5, inf.0]]}
//        {$_path: [["b.c", "b.c"]], b.c: [["x", "x"]]}        one candidate each
//   filter {a: {$exists: true}}
//     -> {$_path: [["a", "a"], ["a.", "a/")], a: [[MinKey, MaxKey]]}
//        (values below a are keyed under their own paths)
//
// A path is expanded only when the index can answer it: the index covers
// it and everything below it (wildcard.h), and some top-level
// conjunct on it is an equality, range, $in, regex or {$exists: true} whose
// operands are not null, undefined, MinKey, MaxKey, documents or arrays (the
// index has no key for a missing field, and documents and arrays are keyed
// by their leaves). Other queries are answered by other indexes or a
// collection scan. Bounds of several predicates on one path are
// intersected unless the path or one above it has held an array.
//
// Positional paths (MongoDB's fieldname-or-array-index rule): a numeric
// component right after a component that has held an array may name an
// element, keyed under the array's path, or a field "0" of a document in
// it; every spelling is scanned ("a.0.b" with a multikey: $_path "a.0.b"
// and "a.b"), and, since an array inside an array is one key, the array's
// path itself with array values too ("a", [[], BinData())). Not answered:
// more than 8 such components, two in a row ("a.0.1"), or a spelling the
// index does not hold.
//
//   filter {"a.0": 5}, "a" multikey
//     -> {$_path: [["a", "a"], ["a.0", "a.0"]], a.0: [[5, 5], [[], BinData(0, ))]}
//
// The scans are never exact: the filter always runs on the fetched
// documents. A collated index bounds values by collation keys (the
// query's collation is the index's, or the index is not usable) and
// $_path by its bytes.
//
// Thread-safety: pure functions.

#include <vector>

#include "engine/index/index_spec.h"
#include "engine/query/matcher/match_expression.h"
#include "engine/query/planner/index_bounds.h"

namespace tigerdoc::query::planner {

struct WildcardExpansion {
  IndexShape shape;    // {$_path, <path>}
  IndexBounds bounds;  // one interval list per shape field
};

// One expansion per path of `filter` that `spec` (a wildcard index) can
// answer, in the order the paths first appear.
std::vector<WildcardExpansion> ExpandWildcard(const index::IndexSpec& spec,
                                              const MatchExpression* filter);

}  // namespace tigerdoc::query::planner
