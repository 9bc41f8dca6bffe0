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
  // Walk documents down to the first (outermost) array on the path; below
  // it, VisitPath's rules apply unchanged, one element at a time, so the
  // element that matched is known. No array on the path: nothing to record.
  bson_t view;
  const bson_t* current = doc;
  for (size_t i = 0; i < path_.size(); ++i) {
    bson_iter_t it;
    const std::string& name = path_.part(i);
    if (!bson_iter_init(&it, current) ||
        !bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size()))) {
      break;
    }
    if (BSON_ITER_HOLDS_ARRAY(&it)) return MatchesThroughArray(&it, i, details);
    if (i + 1 == path_.size()) return MatchesValueWithDetails(&it, details);
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson::OpenSubdocument(&it, &view)) break;
    current = &view;
  }
  return Matches(doc);
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
    // The whole array is a value too ({a: [1, 2]} matches {a: [1, 2]}),
    // at no position.
    return MatchesValueWithDetails(array, details);
  }

  // The values element by element, exactly as VisitPath yields them for
  // an array met with path left (field_path.h).
  const std::string& next = path_.part(index + 1);
  const bool next_is_number = bson::ParseArrayIndex(next).has_value();
  const bool next_is_last = index + 2 == path_.size();
  for (size_t position = 0; bson_iter_next(&elements); ++position) {
    bool matched = false;
    const bson::PathVisitor visit = [&](const bson_iter_t* value) {
      matched = MatchesValueWithDetails(value, details);
      return !matched;
    };
    const bool offset_match = next_is_number && next == bson_iter_key(&elements);
    if (BSON_ITER_HOLDS_DOCUMENT(&elements)) {
      bson_t sub;
      if (bson::OpenSubdocument(&elements, &sub)) {
        bson::VisitPathFrom(&sub, path_, index + 1, leaf_arrays_, visit);
        if (!matched && offset_match) {
          if (next_is_last) {
            visit(&elements);
          } else {
            bson::VisitPathFrom(&sub, path_, index + 2, leaf_arrays_, visit);
          }
        }
      }
    } else if (offset_match) {
      if (next_is_last) {
        visit(&elements);
      } else if (BSON_ITER_HOLDS_ARRAY(&elements)) {
        // A nested array at an explicit index continues as if it had been
        // found at that component: present it under that name.
        bson_t wrapper;
        bson_init(&wrapper);
        bson_append_iter(&wrapper, next.data(), static_cast<int>(next.size()), &elements);
        bson::VisitPathFrom(&wrapper, path_, index + 1, leaf_arrays_, visit);
        bson_destroy(&wrapper);
      }
    }
    if (matched) {
      // The outermost array's position wins over one recorded deeper.
      details->set_elem_match_index(position);
      return true;
    }
  }
  return false;
}

}  // namespace tigerdoc::query
