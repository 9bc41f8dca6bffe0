#pragma once
// $expr: a query predicate written in the aggregation expression language
// ({$expr: {$gt: ["$spent", "$budget"]}}), compiled through the bridge of
// expression_hook.h. Allowed only at the top level of a filter (also under
// $and/$or/$nor), never inside $elemMatch.
//
// Evaluation errors ({$divide: [1, 0]} for some document) cannot travel
// through MatchExpression::Matches(), which answers bool: the node answers
// false and keeps the first error, which Matcher::EvaluationError() reports
// (callers that scan check it and fail the command, as MongoDB fails the
// query).
//
// Parsing: the filter parser (parser.h) has no parameter for the
// expression parser, so Matcher::Parse makes it visible to ParseExpr for
// the duration of one parse through ScopedExpressionParser (a thread-local
// slot, restored on exit; parsing is synchronous).
//
// Thread-safety: Matches() may run concurrently; the error slot is guarded.

#include <atomic>
#include <memory>
#include <mutex>

#include "engine/query/matcher/expression_hook.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class ExprMatchExpression : public MatchExpression {
 public:
  explicit ExprMatchExpression(std::unique_ptr<const CompiledExpression> expr)
      : MatchExpression(MatchKind::kExpr), expr_(std::move(expr)) {}

  bool Matches(const bson_t* doc) const override;
  // $expr never applies to a lone value.
  bool MatchesValue(const bson_iter_t*) const override { return false; }

  // OK, or the first error an evaluation raised.
  Status error() const;

 private:
  std::unique_ptr<const CompiledExpression> expr_;
  mutable std::atomic<bool> failed_{false};
  mutable std::mutex mutex_;
  mutable Status error_;
};

// The expression parser $expr uses while a filter is being parsed.
class ScopedExpressionParser {
 public:
  explicit ScopedExpressionParser(const ExpressionParser* parser);
  ~ScopedExpressionParser();
  ScopedExpressionParser(const ScopedExpressionParser&) = delete;
  ScopedExpressionParser& operator=(const ScopedExpressionParser&) = delete;

  // The innermost scope's parser, else the default; may be null.
  static const ExpressionParser* Current();

 private:
  const ExpressionParser* previous_;
};

}  // namespace tigerdoc::query
