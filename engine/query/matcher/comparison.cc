#include "engine/query/matcher/comparison.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/bson/compare.h"
#include "engine/bson/decimal.h"

namespace tigerdoc::query {

int MatchTypeRank(const bson_value_t* value) {
  if (value == nullptr || value->value_type == BSON_TYPE_UNDEFINED) return 0;
  return bson::CanonicalTypeRank(value->value_type);
}

namespace {

bool IsNaN(const bson_value_t* v) {
  if (v == nullptr) return false;
  if (v->value_type == BSON_TYPE_DOUBLE) return std::isnan(v->value.v_double);
  if (v->value_type == BSON_TYPE_DECIMAL128) {
    return bson::DecimalFromBson(v->value.v_decimal128).IsNaN();
  }
  return false;
}

}  // namespace

bool ComparisonExpression::MatchesValue(const bson_iter_t* it) const {
  const bson_value_t* value = it ? bson_iter_value(const_cast<bson_iter_t*>(it)) : nullptr;
  const bson_value_t* rhs = rhs_.get();
  const MatchKind op = kind();
  const int value_rank = MatchTypeRank(value);
  const int rhs_rank = MatchTypeRank(rhs);
  if (value_rank != rhs_rank) {
    // null against missing/undefined: one bracket (ranks 0 and 5 sum to 5
    // only for that pair, as in MongoDB).
    if (value_rank + rhs_rank == 5 && (rhs_rank == 5 || value_rank == 5)) {
      return op == MatchKind::kEq || op == MatchKind::kLte || op == MatchKind::kGte;
    }
    if (rhs->value_type == BSON_TYPE_MAXKEY) return op == MatchKind::kLt || op == MatchKind::kLte;
    if (rhs->value_type == BSON_TYPE_MINKEY) return op == MatchKind::kGt || op == MatchKind::kGte;
    return false;
  }
  if (value == nullptr) {
    // Both "missing or undefined": rhs cannot be undefined, so unreachable
    // in practice; treat as equal.
    return op == MatchKind::kEq || op == MatchKind::kLte || op == MatchKind::kGte;
  }
  if (op != MatchKind::kEq) {
    const bool lhs_nan = IsNaN(value);
    const bool rhs_nan = IsNaN(rhs);
    if (lhs_nan || rhs_nan) {
      if (op == MatchKind::kLt || op == MatchKind::kGt) return false;
      return lhs_nan && rhs_nan;
    }
  }
  const int c = bson::CompareValues(value, rhs, collator_);
  switch (op) {
    case MatchKind::kEq: return c == 0;
    case MatchKind::kLt: return c < 0;
    case MatchKind::kLte: return c <= 0;
    case MatchKind::kGt: return c > 0;
    case MatchKind::kGte: return c >= 0;
    default: return false;
  }
}

namespace {

// Equal under $in exactly when the match type ranks are equal and the
// values compare equal; ordered by rank, then BSON order.
int OrderForIn(const bson_value_t* a, const bson_value_t* b, const bson::Collator* collator) {
  const int ra = MatchTypeRank(a);
  const int rb = MatchTypeRank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  return bson::CompareValues(a, b, collator);
}

}  // namespace

InExpression::InExpression(std::string path, std::vector<OwnedValue> equalities,
                           std::vector<std::unique_ptr<RegexExpression>> regexes)
    : PathMatchExpression(MatchKind::kIn, std::move(path), bson::LeafArrays::kTraverse),
      equalities_(std::move(equalities)),
      regexes_(std::move(regexes)) {
  for (const OwnedValue& v : equalities_) {
    if (v.type() == BSON_TYPE_NULL) has_null_ = true;
    sorted_.push_back(&v);
  }
  AttachCollator(nullptr);
}

void InExpression::AttachCollator(const bson::Collator* collator) {
  collator_ = collator;
  std::sort(sorted_.begin(), sorted_.end(), [collator](const OwnedValue* a, const OwnedValue* b) {
    return OrderForIn(a->get(), b->get(), collator) < 0;
  });
}

bool InExpression::MatchesValue(const bson_iter_t* it) const {
  const bson_value_t* value = it ? bson_iter_value(const_cast<bson_iter_t*>(it)) : nullptr;
  if (value == nullptr || value->value_type == BSON_TYPE_UNDEFINED) {
    if (has_null_) return true;
    if (value == nullptr) return false;
  }
  const bson::Collator* collator = collator_;
  auto first = std::lower_bound(sorted_.begin(), sorted_.end(), value,
                                [collator](const OwnedValue* eq, const bson_value_t* v) {
                                  return OrderForIn(eq->get(), v, collator) < 0;
                                });
  if (first != sorted_.end() && OrderForIn((*first)->get(), value, collator) == 0) return true;
  for (const auto& regex : regexes_) {
    if (regex->MatchesValue(it)) return true;
  }
  return false;
}

}  // namespace tigerdoc::query
