#include "engine/query/matcher/array.h"

namespace tigerdoc::query {

bool SizeExpression::MatchesValue(const bson_iter_t* value) const {
  if (value == nullptr || !BSON_ITER_HOLDS_ARRAY(value)) return false;
  bson_iter_t elements;
  if (!bson_iter_recurse(value, &elements)) return false;
  int64_t count = 0;
  while (bson_iter_next(&elements)) ++count;
  return count == size_;
}

bool ElemMatchObjectExpression::MatchesValue(const bson_iter_t* value) const {
  return MatchesValueWithDetails(value, nullptr);
}

bool ElemMatchObjectExpression::MatchesValueWithDetails(const bson_iter_t* value,
                                                        MatchDetails* details) const {
  if (value == nullptr || !BSON_ITER_HOLDS_ARRAY(value)) return false;
  bson_iter_t elements;
  if (!bson_iter_recurse(value, &elements)) return false;
  for (size_t position = 0; bson_iter_next(&elements); ++position) {
    bson_t element_doc;
    if (!bson::OpenSubdocument(&elements, &element_doc)) continue;  // scalars never match
    if (sub_->Matches(&element_doc)) {
      if (details != nullptr) details->set_elem_match_index(position);
      return true;
    }
  }
  return false;
}

bool ElemMatchValueExpression::MatchesValue(const bson_iter_t* value) const {
  return MatchesValueWithDetails(value, nullptr);
}

bool ElemMatchValueExpression::MatchesValueWithDetails(const bson_iter_t* value,
                                                       MatchDetails* details) const {
  if (value == nullptr || !BSON_ITER_HOLDS_ARRAY(value)) return false;
  bson_iter_t elements;
  if (!bson_iter_recurse(value, &elements)) return false;
  for (size_t position = 0; bson_iter_next(&elements); ++position) {
    bool all = true;
    for (const auto& child : children_) {
      if (!child->MatchesValue(&elements)) {
        all = false;
        break;
      }
    }
    if (all) {
      if (details != nullptr) details->set_elem_match_index(position);
      return true;
    }
  }
  return false;
}

}  // namespace tigerdoc::query
