// $text's match expression: see text.h.
#include "engine/query/matcher/text.h"

namespace tigerdoc::query {

bool ContainsText(const MatchExpression* root) {
  if (root->kind() == MatchKind::kText) return true;
  for (size_t i = 0; i < root->num_children(); ++i) {
    if (ContainsText(root->child(i))) return true;
  }
  return false;
}

}  // namespace tigerdoc::query
