#pragma once
// The aggregation side of the query bridge (engine/query/matcher/
// expression_hook.h): aggregation expressions for $expr in query filters and
// for computed fields of find projections, and the evaluation of a
// command's `let` variables.
//
//   find {filter: {$expr: ...}, let: {...}}
//     └─ engine: EvaluateLet(let) ─► ExpressionContext.variables
//                MakeQueryExpressionParser(ctx) ─► FindSpec / Matcher::Parse
//
// Ownership: a parser holds a shared copy of its ExpressionContext, and so
// does every expression it compiles (they may outlive the parser).
// Thread-safety: parsers and compiled expressions are immutable; any thread
// may use them.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/agg/expression_context.h"
#include "engine/agg/value.h"
#include "engine/query/matcher/expression_hook.h"

namespace tigerdoc::agg {

// A parser whose expressions see `ctx`'s variables ($$name) and $$NOW.
std::shared_ptr<const query::ExpressionParser> MakeQueryExpressionParser(ExpressionContext ctx);

// Installs, once per process, the default parser of the query layer: no
// user variables, $$NOW the time each filter or projection is parsed.
void InstallDefaultQueryExpressionParser();

// A command's `let` document: each field a user variable (name checked as
// MongoDB checks user variable names: 16866/16867/16868), its value an
// expression evaluated once, before the command runs, against an empty
// document; earlier variables and $$NOW are visible to later ones.
// Errors: 14 (TypeMismatch) when `let` holds no document is the caller's;
// here the names' and the expressions' own errors.
StatusWith<std::vector<std::pair<std::string, Value>>> EvaluateLet(const bson_t* let,
                                                                    const ExpressionContext& ctx);

}  // namespace tigerdoc::agg
