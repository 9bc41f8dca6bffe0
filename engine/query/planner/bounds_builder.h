#pragma once
// Bounds of one predicate on one index key field (MongoDB's
// IndexBoundsBuilder::translate): the set of key values an index entry must
// have for its document to possibly match the predicate, and how tight that
// set is.
//
//   predicate                      bounds (ascending)                 tightness
//   {a: 5}                         [5, 5]                             exact
//   {a: null}                      [undefined, undefined], [null, null]  fetch
//   {a: [1, 2]}                    [1, 1], [[1, 2], [1, 2]]           fetch
//   {a: {$gt: 5}}                  (5, inf.0]      (type bracketing)  exact
//   {a: {$lt: "m"}}                ["", "m")                          exact
//   {a: {$in: [1, /^x/]}}          [1, 1], ["x", "y"), [/^x/, /^x/]   exact
//   {a: /^abc/}                    ["abc", "abd"), [/^abc/, /^abc/]   exact
//   {a: /b/}                       ["", {}), [/b/, /b/]               covered
//   {a: {$exists: true}}           [MinKey, MaxKey]                   fetch (exact if sparse)
//   {a: {$exists: false}}          [null, null]                       fetch
//   {a: {$ne: 5}}                  [MinKey, 5), (5, MaxKey]           exact (fetch if multikey)
//   {a: {$elemMatch: {$gt: 1, $lt: 5}}}  (1, 5)                       fetch
//
// Tightness (MongoDB's BoundsTightness): kExact means an entry inside the
// bounds always belongs to a matching document, so the predicate need not
// be checked again; kInexactCovered means the predicate must be checked,
// but the index key value is enough to do it; kInexactFetch means it must
// be checked on the fetched document.
//
// Thread-safety: pure functions.

#include <optional>

#include "engine/query/matcher/match_expression.h"
#include "engine/query/planner/interval.h"

namespace tigerdoc::query::planner {

enum class Tightness { kInexactFetch = 0, kInexactCovered = 1, kExact = 2 };

inline Tightness Loosest(Tightness a, Tightness b) { return a < b ? a : b; }

struct LeafBounds {
  OrderedIntervalList oil;
  Tightness tightness = Tightness::kExact;
};

// What the translation needs to know about the key field.
struct FieldContext {
  // The field has held an array in some document: negations cannot be
  // exact (an array holding 5 and 6 has a key 6 outside {$ne: 5}'s
  // complement but does not match).
  bool multikey = false;
  // A sparse index whose only key field this is: it has no entry for a
  // document missing the field, so {$exists: true} is exact.
  bool sparse_single_field = false;
  // An array was met before the path's last component: {"a.b"} keys null
  // over {a: []} or {a: ["x"]}, where a.b has no value and every negation
  // matches, so a negation's bounds keep null.
  bool array_before_leaf = false;
};

// The bounds of `expr` on the field its path names; nullopt when the
// predicate cannot generate bounds ($mod, $size, $type, $where-like
// evaluation, $not of a regex, comparisons to arrays, ...), in which case
// an index on the field is of no help for it and it stays in the filter.
// `expr` may be a path predicate (its path is the caller's concern), a Not
// over one ($ne, $nin, $not, {$exists: false}) or a value-form $elemMatch.
std::optional<LeafBounds> TranslatePredicate(const MatchExpression& expr,
                                             const FieldContext& field);

// The literal prefix a regex pins down when it is anchored (/^abc/ ->
// "abc"), and whether the regex is exactly that prefix (so any string
// starting with it matches). nullopt when the regex is not anchored, is
// case-insensitive, multi-line, extended, or has an alternation.
struct RegexPrefix {
  std::string prefix;
  bool exact = false;
};
std::optional<RegexPrefix> AnchoredRegexPrefix(const std::string& pattern, const std::string& flags);

}  // namespace tigerdoc::query::planner
