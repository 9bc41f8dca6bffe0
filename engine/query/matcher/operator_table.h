#pragma once
// THE query operator table (DESIGN.md §1: one operator table, no static
// registration). Two alphabetical lists, as in MongoDB's parser:
//
//  * path operators, used inside {path: {$op: operand}}: $all $eq $gt ...
//  * top-level operators, used as {$op: operand}: $and $comment $or ...
//
// Each entry names the function that parses the operand into a node. To add
// an operator: write its node in the family's file pair, its parse function
// in operator_table.cc, and one line in the table. Operators MongoDB has
// and tigerdoc does not yet are listed too, answering NotImplemented, so
// they are never reported as unknown.
//
// Thread-safety: constant data.

#include <bson/bson.h>

#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/query/matcher/match_expression.h"
#include "engine/query/matcher/parser.h"

namespace tigerdoc::query {

// `operators` is the whole operator document the operand came from ($regex
// and $options read each other). A null result with OK status means "no
// node" (e.g. $options, consumed by $regex).
using PathOperatorParser = StatusWith<MatchExpressionPtr> (*)(const std::string& path,
                                                              const bson_iter_t* operand,
                                                              const bson_t* operators,
                                                              ParseLevel level);
// `name` is the operator with its '$'. A null result means "no node" ($comment).
using TopLevelOperatorParser = StatusWith<MatchExpressionPtr> (*)(std::string_view name,
                                                                  const bson_iter_t* operand,
                                                                  ParseLevel level);

struct PathOperator {
  std::string_view name;  // with '$'
  PathOperatorParser parse;
};

struct TopLevelOperator {
  std::string_view name;  // with '$'
  TopLevelOperatorParser parse;
};

// nullptr when `name` is not an operator.
const PathOperator* FindPathOperator(std::string_view name);
const TopLevelOperator* FindTopLevelOperator(std::string_view name);

}  // namespace tigerdoc::query
