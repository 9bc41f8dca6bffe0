#include "engine/query/matcher/logical.h"

namespace tigerdoc::query {

bool ListExpression::Matches(const bson_t* doc) const {
  switch (kind()) {
    case MatchKind::kAnd:
      for (const auto& c : children_) {
        if (!c->Matches(doc)) return false;
      }
      return true;
    case MatchKind::kOr:
      for (const auto& c : children_) {
        if (c->Matches(doc)) return true;
      }
      return false;
    default:  // kNor
      for (const auto& c : children_) {
        if (c->Matches(doc)) return false;
      }
      return true;
  }
}

bool ListExpression::MatchesWithDetails(const bson_t* doc, MatchDetails* details) const {
  if (details == nullptr || kind() != MatchKind::kAnd) return Matches(doc);
  for (const auto& c : children_) {
    if (!c->MatchesWithDetails(doc, details)) {
      details->Reset();
      return false;
    }
  }
  return true;
}

bool ListExpression::MatchesValue(const bson_iter_t* value) const {
  switch (kind()) {
    case MatchKind::kAnd:
      for (const auto& c : children_) {
        if (!c->MatchesValue(value)) return false;
      }
      return true;
    case MatchKind::kOr:
      for (const auto& c : children_) {
        if (c->MatchesValue(value)) return true;
      }
      return false;
    default:  // kNor
      for (const auto& c : children_) {
        if (c->MatchesValue(value)) return false;
      }
      return true;
  }
}

}  // namespace tigerdoc::query
