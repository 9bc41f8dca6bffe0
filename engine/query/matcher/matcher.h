#pragma once
// Matcher: a parsed MongoDB query filter, the entry point of engine/query's
// matching. Parse() validates the filter with MongoDB's errors (BadValue 2
// for malformed operators, with MongoDB's messages; NotImplemented 238 for
// MongoDB operators tigerdoc lacks yet, e.g. geo); Matches() evaluates it on
// a document with MongoDB's semantics (see match_expression.h and
// engine/bson/field_path.h). $expr is compiled by the ExpressionParser
// given to Parse (expression_hook.h, expr.h); its evaluation errors are
// reported by EvaluationError().
//
// Ownership: the Matcher owns a deep copy of everything it needs; the
// filter passed to Parse() may be freed afterwards.
// Thread-safety: immutable after Parse(); Matches() may run concurrently.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/expression_hook.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class ExprMatchExpression;

class Matcher {
 public:
  // `expressions` compiles $expr (null: the default parser, see
  // expression_hook.h).
  // `collator`: the operation's collation for every string comparison
  // (nullptr: binary; see engine/bson/collator.h).
  static StatusWith<std::unique_ptr<Matcher>> Parse(const bson_t* filter,
                                                    const ExpressionParser* expressions = nullptr,
                                                    const bson::Collator* collator = nullptr);
  const bson::Collator* collator() const { return collator_; }

  // OK, or the first error an $expr raised in any Matches() call so far
  // (the document it failed on did not match). Scans check it after a
  // non-match and fail the command with it.
  Status EvaluationError() const;
  bool has_expr() const { return !exprs_.empty(); }

  bool Matches(const bson_t* doc) const { return root_->Matches(doc); }
  // The same, also recording into `details` (when not null) the position
  // of the array element that made the match, for the positional update
  // operator `$` (match_details.h). `details` is reset first.
  bool Matches(const bson_t* doc, MatchDetails* details) const {
    if (details == nullptr) return root_->Matches(doc);
    details->Reset();
    const bool matched = root_->MatchesWithDetails(doc, details);
    if (!matched) details->Reset();
    return matched;
  }

  // The finite set of values `path` can take in any document this filter
  // matches, each as a one-field document {"": value}; nullopt when the
  // filter does not pin `path` down. Recognised: top-level {path: v},
  // {path: {$eq: v}}, {path: {$in: [...]}} (no regexes), and those under a
  // top-level $and (several constraints on the path intersect; an empty
  // result means nothing can match). Values that are arrays or regexes
  // disqualify the path.
  //
  // Caveat, by design: {path: v} also matches documents where `path` is an
  // array containing v, and {path: null} also matches documents without
  // `path`. This answer is therefore exact only for fields that can never
  // hold arrays and where "missing" is treated as null -- shard key fields,
  // which is what it is for (shard targeting and upsert seeds).
  std::optional<std::vector<bson::BsonDoc>> EqualityValuesFor(std::string_view path) const;

  const MatchExpression* root() const { return root_.get(); }

 private:
  explicit Matcher(MatchExpressionPtr root) : root_(std::move(root)) {}

  MatchExpressionPtr root_;
  const bson::Collator* collator_ = nullptr;
  std::vector<const ExprMatchExpression*> exprs_;  // the $expr nodes of root_
};

}  // namespace tigerdoc::query
