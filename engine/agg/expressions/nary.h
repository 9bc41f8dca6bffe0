#pragma once
// Building blocks shared by the operator families: expressions whose
// arguments are all evaluated first ("nary"), expressions with named
// arguments ({input: ..., regex: ...}), and MongoDB's arity checks.
//
// Thread-safety: as Expression.

#include <bson/bson.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/agg/expressions/expression.h"

namespace tigerdoc::agg {

// Signature of every operator's parse function in the operator table:
// `name` is the operator ("$add"), `operand` the value after it.
using OperatorParseFn = StatusWith<ExpressionPtr> (*)(std::string_view name,
                                                      const bson_iter_t* operand,
                                                      ParseContext* ctx);

// The operand as an argument list: an array's elements, or the operand
// itself as the single argument.
StatusWith<std::vector<ExpressionPtr>> ParseArgList(const bson_iter_t* operand, ParseContext* ctx);

// 16020 "Expression $x takes exactly N arguments. M were passed in." when
// min == max; otherwise 28667 "Expression $x takes at least N arguments,
// and at most M, but K were passed in." (max < 0: no upper bound).
Status CheckArity(std::string_view name, size_t count, int min, int max);

using NaryFn = std::function<StatusWith<Value>(std::vector<Value>& args)>;
// An expression evaluating all `args` then calling `fn`.
ExpressionPtr MakeNary(std::vector<ExpressionPtr> args, NaryFn fn);

// ParseArgList + CheckArity + MakeNary.
StatusWith<ExpressionPtr> ParseNary(std::string_view name, const bson_iter_t* operand,
                                    ParseContext* ctx, int min, int max, NaryFn fn);

// Named arguments: an object whose fields are among `allowed`. Absent
// arguments evaluate to missing.
using NamedValues = std::map<std::string, Value, std::less<>>;
using NamedFn = std::function<StatusWith<Value>(NamedValues& args)>;
struct NamedArgsSpec {
  std::vector<std::string> allowed;
  std::vector<std::string> required;
  // Errors for a non-object operand, an unknown field, a missing required
  // field: code and message. "%s" in unknown_message is the field name;
  // in missing_message, the missing argument's name.
  int not_object_code = 0;
  std::string not_object_message;
  int unknown_code = 0;
  std::string unknown_message;
  int missing_code = 0;
  std::string missing_message;
};
StatusWith<ExpressionPtr> ParseNamed(const bson_iter_t* operand, ParseContext* ctx,
                                     const NamedArgsSpec& spec, NamedFn fn);
// Same, when the caller already parsed the arguments.
ExpressionPtr MakeNamed(std::map<std::string, ExpressionPtr> args, NamedFn fn);

// Shared by families: "$op only supports numeric types, not <type>".
std::string NumericOnlyMessage(std::string_view name, const Value& v);

}  // namespace tigerdoc::agg
