#pragma once
// The bridge from engine/query to the aggregation expression language:
// $expr in query filters and computed fields in find projections.
//
// Why a bridge: engine/agg depends on engine/query (its $match stage is the
// Matcher), so engine/query cannot link engine/agg. Instead engine/query
// declares the two small interfaces below and engine/agg implements them
// (engine/agg/query_expressions.h). Whoever parses a filter or projection
// that may hold expressions passes an ExpressionParser in; it carries the
// command's context (its `let` variables and $$NOW). Without one, parsing
// falls back to the process default that the engine installs once at start
// (SetDefaultExpressionParser; no user variables); when there is none
// either, $expr and computed projections answer NotImplemented (238), as
// before this bridge existed.
//
// Ownership: a CompiledExpression owns everything it needs (it may outlive
// its parser). The default parser is not owned: it must outlive every
// parse that uses it (the engine installs a static one).
// Thread-safety: both interfaces are immutable after construction; every
// method may be called concurrently. SetDefaultExpressionParser is an
// atomic store.

#include <bson/bson.h>

#include <memory>
#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::query {

// One parsed aggregation expression.
class CompiledExpression {
 public:
  virtual ~CompiledExpression() = default;
  // Evaluates with $$ROOT and $$CURRENT bound to `doc` and appends the
  // value to `out` as `key`; appends nothing when the value is missing.
  virtual Status AppendTo(const bson_t* doc, std::string_view key, bson_t* out) const = 0;
  // Evaluates and coerces to bool as $expr does (MongoDB's coerceToBool).
  virtual StatusWith<bool> Truthy(const bson_t* doc) const = 0;
};

class ExpressionParser {
 public:
  virtual ~ExpressionParser() = default;
  // `operand` is positioned on the expression (the value of $expr, or of a
  // projected field). Errors are the expression language's own (168
  // unknown operator, 17276 undefined variable, ...).
  virtual StatusWith<std::unique_ptr<const CompiledExpression>> Parse(
      const bson_iter_t* operand) const = 0;
};

// The parser used when a caller passes none; may be null.
void SetDefaultExpressionParser(const ExpressionParser* parser);
const ExpressionParser* DefaultExpressionParser();

// `explicit_parser` when not null, else the default.
inline const ExpressionParser* ResolveExpressionParser(const ExpressionParser* explicit_parser) {
  return explicit_parser != nullptr ? explicit_parser : DefaultExpressionParser();
}

}  // namespace tigerdoc::query
