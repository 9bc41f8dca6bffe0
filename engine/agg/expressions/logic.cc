// Comparison ($eq $ne $gt $gte $lt $lte $cmp), boolean ($and $or $not) and
// conditional ($cond $ifNull $switch) operators. $and, $or, $cond, $ifNull
// and $switch evaluate lazily, as MongoDB does, so an error in a branch not
// taken is not raised.

#include <string>

#include "engine/agg/expressions/operator_table.h"

namespace tigerdoc::agg {
namespace {

class AndOrExpression : public Expression {
 public:
  AndOrExpression(bool is_and, std::vector<ExpressionPtr> args)
      : is_and_(is_and), args_(std::move(args)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    for (const auto& a : args_) {
      ASSIGN_OR_RETURN(Value v, a->Evaluate(vars));
      if (v.Truthy() != is_and_) return Value::Bool(!is_and_);
    }
    return Value::Bool(is_and_);
  }

 private:
  bool is_and_;
  std::vector<ExpressionPtr> args_;
};

class CondExpression : public Expression {
 public:
  CondExpression(ExpressionPtr c, ExpressionPtr t, ExpressionPtr e)
      : if_(std::move(c)), then_(std::move(t)), else_(std::move(e)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    ASSIGN_OR_RETURN(Value c, if_->Evaluate(vars));
    return c.Truthy() ? then_->Evaluate(vars) : else_->Evaluate(vars);
  }

 private:
  ExpressionPtr if_, then_, else_;
};

class IfNullExpression : public Expression {
 public:
  explicit IfNullExpression(std::vector<ExpressionPtr> args) : args_(std::move(args)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    for (size_t i = 0; i + 1 < args_.size(); ++i) {
      ASSIGN_OR_RETURN(Value v, args_[i]->Evaluate(vars));
      if (!v.nullish()) return v;
    }
    return args_.back()->Evaluate(vars);
  }

 private:
  std::vector<ExpressionPtr> args_;
};

class SwitchExpression : public Expression {
 public:
  SwitchExpression(std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches,
                   ExpressionPtr default_expr)
      : branches_(std::move(branches)), default_(std::move(default_expr)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    for (const auto& [c, t] : branches_) {
      ASSIGN_OR_RETURN(Value v, c->Evaluate(vars));
      if (v.Truthy()) return t->Evaluate(vars);
    }
    if (!default_) {
      return Error(40066,
                   "$switch could not find a matching branch for an input, and no default was "
                   "specified.");
    }
    return default_->Evaluate(vars);
  }

 private:
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches_;
  ExpressionPtr default_;
};

StatusWith<ExpressionPtr> ParseCond(const bson_iter_t* operand, ParseContext* ctx) {
  if (BSON_ITER_HOLDS_DOCUMENT(operand)) {
    bson_t sub = bson::SubDocumentView(operand);
    bson_iter_t it;
    bson_iter_init(&it, &sub);
    ExpressionPtr parts[3];
    while (bson_iter_next(&it)) {
      std::string key = bson_iter_key(&it);
      int idx = key == "if" ? 0 : key == "then" ? 1 : key == "else" ? 2 : -1;
      if (idx < 0) return Error(17083, "Unrecognized parameter to $cond: " + key);
      ASSIGN_OR_RETURN(parts[idx], ParseOperand(&it, ctx));
    }
    if (!parts[0]) return Error(17080, "Missing 'if' parameter to $cond");
    if (!parts[1]) return Error(17081, "Missing 'then' parameter to $cond");
    if (!parts[2]) return Error(17082, "Missing 'else' parameter to $cond");
    return ExpressionPtr(std::make_unique<CondExpression>(std::move(parts[0]), std::move(parts[1]),
                                                          std::move(parts[2])));
  }
  ASSIGN_OR_RETURN(auto args, ParseArgList(operand, ctx));
  RETURN_IF_ERROR(CheckArity("$cond", args.size(), 3, 3));
  return ExpressionPtr(std::make_unique<CondExpression>(std::move(args[0]), std::move(args[1]),
                                                        std::move(args[2])));
}

StatusWith<ExpressionPtr> ParseSwitch(const bson_iter_t* operand, ParseContext* ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(40060, "$switch requires an object as an argument, found: " + TypeNameOf(bson_iter_type(operand)));
  }
  bson_t sub = bson::SubDocumentView(operand);
  bson_iter_t it;
  bson_iter_init(&it, &sub);
  std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches;
  ExpressionPtr default_expr;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "branches") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Error(40061, "$switch expected an array for 'branches', found: " +
                                TypeNameOf(bson_iter_type(&it)));
      }
      bson_t arr = bson::SubDocumentView(&it);
      bson_iter_t b;
      bson_iter_init(&b, &arr);
      while (bson_iter_next(&b)) {
        if (!BSON_ITER_HOLDS_DOCUMENT(&b)) {
          return Error(40062, "$switch expected each branch to be an object, found: " +
                                  TypeNameOf(bson_iter_type(&b)));
        }
        bson_t branch = bson::SubDocumentView(&b);
        bson_iter_t f;
        bson_iter_init(&f, &branch);
        ExpressionPtr c, t;
        while (bson_iter_next(&f)) {
          std::string fk = bson_iter_key(&f);
          if (fk == "case") {
            ASSIGN_OR_RETURN(c, ParseOperand(&f, ctx));
          } else if (fk == "then") {
            ASSIGN_OR_RETURN(t, ParseOperand(&f, ctx));
          } else {
            return Error(40063, "$switch found an unknown argument to a branch: " + fk);
          }
        }
        if (!c) return Error(40064, "$switch requires each branch have a 'case' expression");
        if (!t) return Error(40065, "$switch requires each branch have a 'then' expression.");
        branches.emplace_back(std::move(c), std::move(t));
      }
    } else if (key == "default") {
      ASSIGN_OR_RETURN(default_expr, ParseOperand(&it, ctx));
    } else {
      return Error(40067, "$switch found an unknown argument: " + key);
    }
  }
  if (branches.empty()) return Error(40068, "$switch requires at least one branch.");
  return ExpressionPtr(
      std::make_unique<SwitchExpression>(std::move(branches), std::move(default_expr)));
}

}  // namespace

StatusWith<ExpressionPtr> ParseComparison(std::string_view name, const bson_iter_t* operand,
                                          ParseContext* ctx) {
  std::string op(name);
  // $eq/$cmp/... compare strings under the command's collation.
  const bson::Collator* collator = ctx->context().collator;
  return ParseNary(name, operand, ctx, 2, 2, [op, collator](std::vector<Value>& args) -> StatusWith<Value> {
    int c = Compare(args[0], args[1], collator);
    if (op == "$cmp") return Value::Int(c < 0 ? -1 : (c > 0 ? 1 : 0));
    if (op == "$eq") return Value::Bool(c == 0);
    if (op == "$ne") return Value::Bool(c != 0);
    if (op == "$gt") return Value::Bool(c > 0);
    if (op == "$gte") return Value::Bool(c >= 0);
    if (op == "$lt") return Value::Bool(c < 0);
    return Value::Bool(c <= 0);  // $lte
  });
}

StatusWith<ExpressionPtr> ParseBoolean(std::string_view name, const bson_iter_t* operand,
                                       ParseContext* ctx) {
  if (name == "$not") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& args) -> StatusWith<Value> {
      return Value::Bool(!args[0].Truthy());
    });
  }
  ASSIGN_OR_RETURN(auto args, ParseArgList(operand, ctx));
  return ExpressionPtr(std::make_unique<AndOrExpression>(name == "$and", std::move(args)));
}

StatusWith<ExpressionPtr> ParseConditional(std::string_view name, const bson_iter_t* operand,
                                           ParseContext* ctx) {
  if (name == "$cond") return ParseCond(operand, ctx);
  if (name == "$switch") return ParseSwitch(operand, ctx);
  // $ifNull
  ASSIGN_OR_RETURN(auto args, ParseArgList(operand, ctx));
  if (args.size() < 2) {
    return Error(1257300,
                 "$ifNull needs at least two arguments, had: " + std::to_string(args.size()));
  }
  return ExpressionPtr(std::make_unique<IfNullExpression>(std::move(args)));
}

}  // namespace tigerdoc::agg
