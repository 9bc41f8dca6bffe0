#pragma once
// Array operators: $size and $elemMatch ($all is an And of equalities and
// regexes, or of $elemMatch, built by the parser). Contracts as
// match_expression.h. These see the array at the end of the path itself
// (LeafArrays::kNoTraversal), never its elements one by one, but still
// traverse arrays met earlier on the path.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class SizeExpression : public PathMatchExpression {
 public:
  SizeExpression(std::string path, int64_t size)
      : PathMatchExpression(MatchKind::kSize, std::move(path), bson::LeafArrays::kNoTraversal),
        size_(size) {}
  bool MatchesValue(const bson_iter_t* value) const override;

 private:
  int64_t size_;
};

// {a: {$elemMatch: {b: 1, c: {$gt: 2}}}}: some element of the array, taken
// as a document (arrays count, with "0", "1", ... as field names), matches
// the whole sub-filter.
class ElemMatchObjectExpression : public PathMatchExpression {
 public:
  ElemMatchObjectExpression(std::string path, MatchExpressionPtr sub)
      : PathMatchExpression(MatchKind::kElemMatchObject, std::move(path),
                            bson::LeafArrays::kNoTraversal),
        sub_(std::move(sub)) {}
  bool MatchesValue(const bson_iter_t* value) const override;
  // Records the index of the matching element.
  bool MatchesValueWithDetails(const bson_iter_t* value, MatchDetails* details) const override;
  // The sub-filter each element is matched against (paths relative to it).
  const MatchExpression* sub() const { return sub_.get(); }
  void AttachCollator(const bson::Collator* collator) override { sub_->AttachCollator(collator); }

 private:
  MatchExpressionPtr sub_;
};

// {a: {$elemMatch: {$gt: 1, $lt: 5}}}: some element satisfies every child,
// each tested on the element value itself (no further traversal).
class ElemMatchValueExpression : public PathMatchExpression {
 public:
  explicit ElemMatchValueExpression(std::string path)
      : PathMatchExpression(MatchKind::kElemMatchValue, std::move(path),
                            bson::LeafArrays::kNoTraversal) {}
  void Add(MatchExpressionPtr child) { children_.push_back(std::move(child)); }
  bool MatchesValue(const bson_iter_t* value) const override;
  // Records the index of the matching element.
  bool MatchesValueWithDetails(const bson_iter_t* value, MatchDetails* details) const override;
  // The predicates one element must satisfy together (empty paths).
  const std::vector<MatchExpressionPtr>& children() const { return children_; }
  void AttachCollator(const bson::Collator* collator) override {
    for (auto& child : children_) child->AttachCollator(collator);
  }

 private:
  std::vector<MatchExpressionPtr> children_;
};

}  // namespace tigerdoc::query
