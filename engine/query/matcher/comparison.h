#pragma once
// Comparison operators: implicit equality, $eq $lt $lte $gt $gte, $in
// ($ne and $nin are Not over these: see parser.cc). Contracts as
// match_expression.h.
//
// MongoDB's rules (ComparisonMatchExpression::matchesSingleElement):
//  * Type bracketing: values of different canonical types never compare, so
//    {$gt: 5} never matches a string. Exceptions: null, undefined and
//    missing are one bracket for $eq/$lte/$gte against null; MinKey and
//    MaxKey operands compare with everything ({$gt: MinKey} matches all).
//  * Numbers of all types compare by value; NaN equals NaN but is neither
//    below nor above anything for $lt/$gt ($lte/$gte NaN match only NaN).

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/query/matcher/evaluation.h"
#include "engine/query/matcher/match_expression.h"
#include "engine/query/owned_value.h"

namespace tigerdoc::query {

class ComparisonExpression : public PathMatchExpression {
 public:
  // REQUIRES: kind is one of kEq kLt kLte kGt kGte; `rhs` is not undefined.
  ComparisonExpression(MatchKind kind, std::string path, OwnedValue rhs)
      : PathMatchExpression(kind, std::move(path), bson::LeafArrays::kTraverse),
        rhs_(std::move(rhs)) {}

  bool MatchesValue(const bson_iter_t* value) const override;
  const OwnedValue& rhs() const { return rhs_; }
  void AttachCollator(const bson::Collator* collator) override { collator_ = collator; }
  const bson::Collator* collator() const { return collator_; }

 private:
  OwnedValue rhs_;
  const bson::Collator* collator_ = nullptr;
};

class InExpression : public PathMatchExpression {
 public:
  // `equalities` must not contain regexes or undefined (the parser checks);
  // regexes go to `regexes` (their own paths are ignored).
  InExpression(std::string path, std::vector<OwnedValue> equalities,
               std::vector<std::unique_ptr<RegexExpression>> regexes);

  // True when the value equals one of the equalities, matches one of the
  // regexes, or is missing/undefined and null is among the equalities.
  bool MatchesValue(const bson_iter_t* value) const override;

  const std::vector<OwnedValue>& equalities() const { return equalities_; }
  bool has_regexes() const { return !regexes_.empty(); }
  const std::vector<std::unique_ptr<RegexExpression>>& regexes() const { return regexes_; }
  // Re-sorts the equalities in the collation's order.
  void AttachCollator(const bson::Collator* collator) override;
  const bson::Collator* collator() const { return collator_; }

 private:
  std::vector<OwnedValue> equalities_;  // as given (explain, index bounds)
  // The equalities in (match type rank, BSON order), for a binary search:
  // a large $in (a deleteMany by thousands of _ids) costs log n per value.
  std::vector<const OwnedValue*> sorted_;
  std::vector<std::unique_ptr<RegexExpression>> regexes_;
  bool has_null_ = false;
  const bson::Collator* collator_ = nullptr;
};

// MongoDB's canonical type rank of a value, with missing (nullptr) and
// undefined ranked 0, below null (5), as canonicalizeBSONType does.
int MatchTypeRank(const bson_value_t* value);

}  // namespace tigerdoc::query
