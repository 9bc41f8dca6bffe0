#pragma once
// MatchDetails: what a successful match found besides "yes" -- MongoDB's
// MatchDetails with its elemMatchKey (src/mongo/db/matcher/match_details.h).
// Positional projection ("a.$") and positional updates ("a.$.b") read it to
// know which array element the query matched.
//
// Which index is recorded, as MongoDB does:
//  * A path predicate that matched through an array records the position of
//    the matching value in the FIRST array implicitly traversed on its path
//    ({"a.b": 2} on {a: [{b: 1}, {b: [0, 2]}]} records 1, the offset in a);
//    an explicit numeric component ("a.1.b") is not an implicit traversal.
//  * A value matched as a whole (a scalar, or a leaf array compared whole)
//    records nothing.
//  * $elemMatch records the element of its array that matched (unless an
//    array met earlier on its path takes precedence, as above).
//  * $and lets every child record in turn, so the LAST child that matched
//    through an array wins; $or (with two or more branches), $nor, $not,
//    $ne and $nin never record.
// The key is cleared when the match fails.
//
// Thread-safety: a value; one per Matches() call.

#include <cstddef>
#include <optional>

namespace tigerdoc::query {

class MatchDetails {
 public:
  // The recorded array position, or nullopt (see above).
  std::optional<size_t> elem_match_index() const { return elem_match_index_; }
  bool has_elem_match_index() const { return elem_match_index_.has_value(); }

  void set_elem_match_index(size_t index) { elem_match_index_ = index; }
  void Reset() { elem_match_index_.reset(); }

 private:
  std::optional<size_t> elem_match_index_;
};

}  // namespace tigerdoc::query
