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

}  // namespace tigerdoc::query
