#pragma once
// The filter parser: turns a query document into a MatchExpression tree,
// with MongoDB's rules and error messages (src/mongo/db/matcher/
// expression_parser.cpp). Operators are found in the one operator table
// (operator_table.h); this file holds the document-level grammar:
//
//   filter     := { (field: value | field: {$op: operand, ...} | $topOp: operand)* }
//   value      := regex literal  -> Regex
//               | anything else  -> Eq   (documents whose first key is not
//                                         '$', and DBRefs, are plain values)
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <string>

#include "engine/base/status.h"
#include "engine/query/matcher/logical.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

// Where a filter document sits: the user's predicate itself, or a document
// nested in $elemMatch (where $text and $expr are not allowed).
enum class ParseLevel { kTopLevel, kSubDocument };

// Parses a whole filter document. An empty filter is And() (always true).
StatusWith<MatchExpressionPtr> ParseFilter(const bson_t* filter, ParseLevel level);

// Parses the operator document of one path ({$gt: 1, $lt: 5} for path
// "a") and adds one node per operator to `out`.
Status ParseOperatorDocument(const std::string& path, const bson_t* operators, ParseLevel level,
                             ListExpression* out);

// MongoDB's isExpressionDocument: a non-empty document whose first field
// starts with '$' and which is not a DBRef ({$ref, $id}; with
// `allow_incomplete_dbref`, any of $ref/$id/$db).
bool IsExpressionDocument(const bson_iter_t* value, bool allow_incomplete_dbref);

}  // namespace tigerdoc::query
