#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

bool PathMatchExpression::Matches(const bson_t* doc) const {
  bool matched = false;
  bson::VisitPath(doc, path_, leaf_arrays_, [&](const bson_iter_t* value) {
    matched = MatchesValue(value);
    return !matched;  // stop at the first match
  });
  return matched;
}

bool PathMatchExpression::MatchesWithDetails(const bson_t* doc, MatchDetails* details) const {
  if (details == nullptr) return Matches(doc);
  return MatchesFrom(doc, 0, details);
}

// The walk below mirrors bson::VisitPath (field_path.h) value for value, so
// the answer is Matches()'s; what it adds is knowing, for each value, which
// array element it came from. MongoDB's BSONElementIterator rules:
//  * an element of an implicitly traversed array records its position,
//    overriding any position recorded deeper (the outermost array wins);
//  * a value reached through an explicit index ("a.1", "a.1.b") is no
//    implicit traversal: it keeps what deeper arrays recorded, or nothing;
//  * a leaf array compared whole records nothing.
bool PathMatchExpression::MatchesFrom(const bson_t* doc, size_t start,
                                      MatchDetails* details) const {
  bson_t view;
  const bson_t* current = doc;
  for (size_t i = start; i < path_.size(); ++i) {
    bson_iter_t it;
    const std::string& name = path_.part(i);
    if (!bson_iter_init(&it, current) ||
        !bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size()))) {
      return MatchesValueWithDetails(nullptr, details);
    }
    if (BSON_ITER_HOLDS_ARRAY(&it)) return MatchesThroughArray(&it, i, details);
    if (i + 1 == path_.size()) return MatchesValueWithDetails(&it, details);
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson::OpenSubdocument(&it, &view)) {
      return MatchesValueWithDetails(nullptr, details);
    }
    current = &view;
  }
  return MatchesValueWithDetails(nullptr, details);
}

bool PathMatchExpression::MatchesThroughArray(const bson_iter_t* array, size_t index,
                                              MatchDetails* details) const {
  const bool at_leaf = index + 1 == path_.size();
  // $size and $elemMatch see the array itself; $elemMatch records its own
  // element.
  if (at_leaf && leaf_arrays_ == bson::LeafArrays::kNoTraversal) {
    return MatchesValueWithDetails(array, details);
  }
  bson_iter_t elements;
  if (!bson_iter_recurse(array, &elements)) return false;
  if (at_leaf) {
    for (size_t position = 0; bson_iter_next(&elements); ++position) {
      if (MatchesValueWithDetails(&elements, details)) {
        details->set_elem_match_index(position);
        return true;
      }
    }
    return MatchesValueWithDetails(array, details);
  }

  const std::string& next = path_.part(index + 1);
  const bool next_is_number = bson::ParseArrayIndex(next).has_value();
  const bool next_is_last = index + 2 == path_.size();
  for (size_t position = 0; bson_iter_next(&elements); ++position) {
    const bool offset_match = next_is_number && next == bson_iter_key(&elements);
    if (BSON_ITER_HOLDS_DOCUMENT(&elements)) {
      bson_t sub;
      if (!bson::OpenSubdocument(&elements, &sub)) continue;
      if (MatchesFrom(&sub, index + 1, details)) {
        details->set_elem_match_index(position);
        return true;
      }
      if (offset_match) {
        if (next_is_last ? MatchesValueWithDetails(&elements, details)
                         : MatchesFrom(&sub, index + 2, details)) {
          return true;
        }
      }
    } else if (offset_match) {
      if (next_is_last) {
        if (MatchesValueWithDetails(&elements, details)) return true;
      } else if (BSON_ITER_HOLDS_ARRAY(&elements)) {
        // A nested array at an explicit index continues as if it had been
        // found at that component: present it under that name.
        bson_t wrapper;
        bson_init(&wrapper);
        bson_append_iter(&wrapper, next.data(), static_cast<int>(next.size()), &elements);
        const bool matched = MatchesFrom(&wrapper, index + 1, details);
        bson_destroy(&wrapper);
        if (matched) return true;
      }
    }
  }
  return false;
}

}  // namespace tigerdoc::query
