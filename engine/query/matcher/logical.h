#pragma once
// Logical operators: $and $or $nor $not, and the constant $alwaysTrue /
// $alwaysFalse (also what an empty $all becomes). Contracts as
// match_expression.h. $ne, $nin and {$exists: false} are Not nodes too,
// which gives MongoDB's array semantics: {a: {$ne: 1}} is "no value at a
// equals 1", so it does not match {a: [1, 2]}.

#include <memory>
#include <vector>

#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

// And / Or / Nor over any number of children. An And with no children is
// true (the empty filter {}); Or with none is false.
class ListExpression : public MatchExpression {
 public:
  // REQUIRES: kind is kAnd, kOr or kNor.
  explicit ListExpression(MatchKind kind) : MatchExpression(kind) {}

  void Add(MatchExpressionPtr child) { children_.push_back(std::move(child)); }
  // Moves the children out (used to flatten nested $and).
  std::vector<MatchExpressionPtr> ReleaseChildren() { return std::move(children_); }

  bool Matches(const bson_t* doc) const override;
  bool MatchesValue(const bson_iter_t* value) const override;
  // And passes `details` to each child and clears it when it fails; Or and
  // Nor never record (match_details.h).
  bool MatchesWithDetails(const bson_t* doc, MatchDetails* details) const override;
  size_t num_children() const override { return children_.size(); }
  const MatchExpression* child(size_t i) const override { return children_[i].get(); }

 private:
  std::vector<MatchExpressionPtr> children_;
};

class NotExpression : public MatchExpression {
 public:
  explicit NotExpression(MatchExpressionPtr child)
      : MatchExpression(MatchKind::kNot), child_(std::move(child)) {}

  bool Matches(const bson_t* doc) const override { return !child_->Matches(doc); }
  bool MatchesValue(const bson_iter_t* value) const override {
    return !child_->MatchesValue(value);
  }
  size_t num_children() const override { return 1; }
  const MatchExpression* child(size_t) const override { return child_.get(); }

 private:
  MatchExpressionPtr child_;
};

class ConstantExpression : public MatchExpression {
 public:
  explicit ConstantExpression(bool value)
      : MatchExpression(value ? MatchKind::kAlwaysTrue : MatchKind::kAlwaysFalse), value_(value) {}
  bool Matches(const bson_t*) const override { return value_; }
  bool MatchesValue(const bson_iter_t*) const override { return value_; }

 private:
  bool value_;
};

}  // namespace tigerdoc::query
