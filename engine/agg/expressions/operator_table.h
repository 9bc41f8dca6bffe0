#pragma once
// THE table of aggregation expression operators ("$add" -> parse function),
// alphabetical, in operator_table.cc. Each family's parse functions live in
// their own file (arithmetic.cc, string.cc, ...) and are declared here.
//
// Thread-safety: constant data.

#include <string_view>
#include <vector>

#include "engine/agg/expressions/nary.h"

namespace tigerdoc::agg {

// nullptr when `name` is not an operator.
OperatorParseFn FindOperator(std::string_view name);
// Every operator name, in table order (for tests).
std::vector<std::string_view> OperatorNames();

// Family entry points (name is the operator, dispatching inside the family).
StatusWith<ExpressionPtr> ParseArithmetic(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseComparison(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseBoolean(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseConditional(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseTypeOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseStringOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseRegexOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseArrayOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseHigherOrder(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseSetOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseObjectOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseDateOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseMiscOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseAccumulatorOp(std::string_view, const bson_iter_t*, ParseContext*);
// {$meta: name} (meta.cc).
StatusWith<ExpressionPtr> ParseMetaOp(std::string_view, const bson_iter_t*, ParseContext*);
StatusWith<ExpressionPtr> ParseTrigonometric(std::string_view, const bson_iter_t*, ParseContext*);

}  // namespace tigerdoc::agg
