#include "engine/query/matcher/expr.h"

namespace tigerdoc::query {
namespace {

std::atomic<const ExpressionParser*> g_default_parser{nullptr};
// Set only inside Matcher::Parse (ScopedExpressionParser).
thread_local const ExpressionParser* t_scoped_parser = nullptr;

}  // namespace

void SetDefaultExpressionParser(const ExpressionParser* parser) { g_default_parser.store(parser); }

const ExpressionParser* DefaultExpressionParser() { return g_default_parser.load(); }

ScopedExpressionParser::ScopedExpressionParser(const ExpressionParser* parser)
    : previous_(t_scoped_parser) {
  t_scoped_parser = parser;
}

ScopedExpressionParser::~ScopedExpressionParser() { t_scoped_parser = previous_; }

const ExpressionParser* ScopedExpressionParser::Current() {
  return ResolveExpressionParser(t_scoped_parser);
}

bool ExprMatchExpression::Matches(const bson_t* doc) const {
  StatusWith<bool> result = expr_->Truthy(doc);
  if (result.ok()) return result.value();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failed_.load()) {
    error_ = result.status();
    failed_.store(true);
  }
  return false;
}

Status ExprMatchExpression::error() const {
  if (!failed_.load()) return Status::OK();
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

}  // namespace tigerdoc::query
