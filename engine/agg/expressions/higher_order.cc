// Operators that bind variables: $let, $map, $filter, $reduce.

#include <string>

#include "engine/agg/expressions/operator_table.h"

namespace tigerdoc::agg {
namespace {

class LetExpression : public Expression {
 public:
  LetExpression(std::vector<std::pair<int, ExpressionPtr>> vars, ExpressionPtr in)
      : vars_(std::move(vars)), in_(std::move(in)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    // All definitions are evaluated in the outer scope before binding.
    std::vector<Value> values;
    for (const auto& [id, e] : vars_) {
      ASSIGN_OR_RETURN(Value v, e->Evaluate(vars));
      values.push_back(std::move(v));
    }
    for (size_t i = 0; i < vars_.size(); ++i) vars->Set(vars_[i].first, std::move(values[i]));
    return in_->Evaluate(vars);
  }

 private:
  std::vector<std::pair<int, ExpressionPtr>> vars_;
  ExpressionPtr in_;
};

StatusWith<ExpressionPtr> ParseLet(const bson_iter_t* operand, ParseContext* ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(16874, "$let only supports an object as its argument");
  }
  bson_t sub = bson::SubDocumentView(operand);
  bson_iter_t it, vars_it, in_it;
  bool have_vars = false, have_in = false;
  bson_iter_init(&it, &sub);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "vars") {
      vars_it = it;
      have_vars = true;
    } else if (key == "in") {
      in_it = it;
      have_in = true;
    } else {
      return Error(16875, "Unrecognized parameter to $let: " + key);
    }
  }
  if (!have_vars) return Error(16876, "Missing 'vars' parameter to $let");
  if (!have_in) return Error(16877, "Missing 'in' parameter to $let");
  if (!BSON_ITER_HOLDS_DOCUMENT(&vars_it)) {
    return Error(10065, "invalid parameter: expected an object (vars)");
  }
  bson_t vdoc = bson::SubDocumentView(&vars_it);
  bson_iter_t v;
  bson_iter_init(&v, &vdoc);
  ParseContext inner = ctx->Child();
  std::vector<std::pair<int, ExpressionPtr>> defs;
  while (bson_iter_next(&v)) {
    std::string name = bson_iter_key(&v);
    // CURRENT is the one system variable a user may rebind (MongoDB's
    // validateNameForUserWrite); the binding is scoped like any other.
    if (name != "CURRENT") RETURN_IF_ERROR(ValidateUserVariableName(name));
    ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&v, ctx));  // outer scope
    int id = inner.Define(name);
    defs.emplace_back(id, std::move(e));
  }
  ASSIGN_OR_RETURN(ExpressionPtr in, ParseOperand(&in_it, &inner));
  return ExpressionPtr(std::make_unique<LetExpression>(std::move(defs), std::move(in)));
}

enum class Kind { kMap, kFilter };

class MapFilterExpression : public Expression {
 public:
  MapFilterExpression(Kind kind, ExpressionPtr input, int var, ExpressionPtr body,
                      ExpressionPtr limit)
      : kind_(kind), input_(std::move(input)), var_(var), body_(std::move(body)),
        limit_(std::move(limit)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    ASSIGN_OR_RETURN(Value in, input_->Evaluate(vars));
    if (in.nullish()) return Value::Null();
    if (!in.is_array()) {
      return kind_ == Kind::kMap
                 ? Error(16883, "input to $map must be an array not " + in.TypeName())
                 : Error(28651, "input to $filter must be an array not " + in.TypeName());
    }
    int64_t limit = -1;
    if (limit_) {
      ASSIGN_OR_RETURN(Value l, limit_->Evaluate(vars));
      if (!l.nullish()) {
        if (!l.numeric() || !l.AsInt64Exact(&limit) || limit > INT32_MAX || limit < INT32_MIN) {
          return Error(327391, "$filter: limit must be represented as a 32-bit integral value: " +
                                   l.ToString());
        }
        if (limit < 1) {
          return Error(327392, "$filter: limit must be greater than 0: " + l.ToString());
        }
      }
    }
    std::vector<Value> out;
    for (Value& e : in.Elements()) {
      vars->Set(var_, e);
      ASSIGN_OR_RETURN(Value r, body_->Evaluate(vars));
      if (kind_ == Kind::kMap) {
        out.push_back(r.missing() ? Value::Null() : std::move(r));
      } else if (r.Truthy()) {
        out.push_back(std::move(e));
        if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
      }
    }
    return Value::Array(out);
  }

 private:
  Kind kind_;
  ExpressionPtr input_;
  int var_;
  ExpressionPtr body_;
  ExpressionPtr limit_;
};

StatusWith<ExpressionPtr> ParseMapFilter(Kind kind, const bson_iter_t* operand,
                                         ParseContext* ctx) {
  const std::string op = kind == Kind::kMap ? "$map" : "$filter";
  const std::string body_name = kind == Kind::kMap ? "in" : "cond";
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(kind == Kind::kMap ? 16878 : 28646,
                 op + " only supports an object as its argument");
  }
  bson_t sub = bson::SubDocumentView(operand);
  bson_iter_t it, body_it;
  bool have_body = false;
  ExpressionPtr input, limit;
  std::string as = "this";
  bson_iter_init(&it, &sub);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "input") {
      ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (key == "as") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Error(kind == Kind::kMap ? 16866 : 16866, "empty variable names are not allowed");
      }
      as = bson_iter_utf8(&it, nullptr);
    } else if (key == body_name) {
      body_it = it;
      have_body = true;
    } else if (key == "limit" && kind == Kind::kFilter) {
      ASSIGN_OR_RETURN(limit, ParseOperand(&it, ctx));
    } else {
      return Error(kind == Kind::kMap ? 16879 : 28647, "Unrecognized parameter to " + op + ": " + key);
    }
  }
  if (!input) return Error(kind == Kind::kMap ? 16880 : 28648, "Missing 'input' parameter to " + op);
  if (!have_body) {
    return Error(kind == Kind::kMap ? 16882 : 28650, "Missing '" + body_name + "' parameter to " + op);
  }
  if (as != "CURRENT") RETURN_IF_ERROR(ValidateUserVariableName(as));
  ParseContext inner = ctx->Child();
  int id = inner.Define(as);
  ASSIGN_OR_RETURN(ExpressionPtr body, ParseOperand(&body_it, &inner));
  return ExpressionPtr(std::make_unique<MapFilterExpression>(kind, std::move(input), id,
                                                             std::move(body), std::move(limit)));
}

class ReduceExpression : public Expression {
 public:
  ReduceExpression(ExpressionPtr input, ExpressionPtr initial, int this_id, int value_id,
                   ExpressionPtr in)
      : input_(std::move(input)), initial_(std::move(initial)), this_id_(this_id),
        value_id_(value_id), in_(std::move(in)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    ASSIGN_OR_RETURN(Value in, input_->Evaluate(vars));
    if (in.nullish()) return Value::Null();
    if (!in.is_array()) {
      return Error(40080, "$reduce requires that 'input' be an array, found: " + in.ToString());
    }
    ASSIGN_OR_RETURN(Value acc, initial_->Evaluate(vars));
    for (Value& e : in.Elements()) {
      vars->Set(this_id_, std::move(e));
      vars->Set(value_id_, std::move(acc));
      ASSIGN_OR_RETURN(acc, in_->Evaluate(vars));
    }
    return acc;
  }

 private:
  ExpressionPtr input_, initial_;
  int this_id_, value_id_;
  ExpressionPtr in_;
};

StatusWith<ExpressionPtr> ParseReduce(const bson_iter_t* operand, ParseContext* ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(40075, "$reduce requires an object as an argument, found: " +
                            TypeNameOf(bson_iter_type(operand)));
  }
  bson_t sub = bson::SubDocumentView(operand);
  bson_iter_t it, in_it;
  bool have_in = false;
  ExpressionPtr input, initial;
  bson_iter_init(&it, &sub);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "input") {
      ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (key == "initialValue") {
      ASSIGN_OR_RETURN(initial, ParseOperand(&it, ctx));
    } else if (key == "in") {
      in_it = it;
      have_in = true;
    } else {
      return Error(40076, "$reduce found an unknown argument: " + key);
    }
  }
  if (!input) return Error(40077, "$reduce requires 'input' to be specified");
  if (!initial) return Error(40078, "$reduce requires 'initialValue' to be specified");
  if (!have_in) return Error(40079, "$reduce requires 'in' to be specified");
  ParseContext inner = ctx->Child();
  int this_id = inner.Define("this");
  int value_id = inner.Define("value");
  ASSIGN_OR_RETURN(ExpressionPtr in, ParseOperand(&in_it, &inner));
  return ExpressionPtr(std::make_unique<ReduceExpression>(std::move(input), std::move(initial),
                                                          this_id, value_id, std::move(in)));
}

}  // namespace

StatusWith<ExpressionPtr> ParseHigherOrder(std::string_view name, const bson_iter_t* operand,
                                           ParseContext* ctx) {
  if (name == "$let") return ParseLet(operand, ctx);
  if (name == "$map") return ParseMapFilter(Kind::kMap, operand, ctx);
  if (name == "$filter") return ParseMapFilter(Kind::kFilter, operand, ctx);
  return ParseReduce(operand, ctx);
}

}  // namespace tigerdoc::agg
