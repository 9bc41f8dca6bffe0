#pragma once
// TextMatchExpression: {$text: {$search, $language, $caseSensitive,
// $diacriticSensitive}}. Parsing checks the operand (fts_query.h); the
// query can only match once bound to the collection's text index
// (BindTextQuery, text_search.h in engine/query), which the plan executor
// does before any evaluation. Unbound, it matches nothing.
//
// Thread-safety: Bind() before concurrent use; then immutable.

#include <memory>

#include "engine/fts/fts_query.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class TextMatchExpression : public MatchExpression {
 public:
  explicit TextMatchExpression(fts::TextQueryOptions options)
      : MatchExpression(MatchKind::kText), options_(std::move(options)) {}

  bool Matches(const bson_t* doc) const override { return query_ && query_->Matches(doc); }
  bool MatchesValue(const bson_iter_t*) const override { return false; }

  const fts::TextQueryOptions& options() const { return options_; }
  // REQUIRES: before any evaluation.
  void Bind(std::shared_ptr<const fts::TextQuery> query) { query_ = std::move(query); }
  const fts::TextQuery* query() const { return query_.get(); }

 private:
  fts::TextQueryOptions options_;
  std::shared_ptr<const fts::TextQuery> query_;
};

// Whether the tree holds a $text anywhere.
bool ContainsText(const MatchExpression* root);

}  // namespace tigerdoc::query
