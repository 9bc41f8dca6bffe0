#include "engine/agg/expressions/nary.h"

#include <string>

namespace tigerdoc::agg {
namespace {

class NaryExpression : public Expression {
 public:
  NaryExpression(std::vector<ExpressionPtr> args, NaryFn fn)
      : args_(std::move(args)), fn_(std::move(fn)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    std::vector<Value> values;
    values.reserve(args_.size());
    for (const auto& a : args_) {
      ASSIGN_OR_RETURN(Value v, a->Evaluate(vars));
      values.push_back(std::move(v));
    }
    return fn_(values);
  }

 private:
  std::vector<ExpressionPtr> args_;
  NaryFn fn_;
};

class NamedExpression : public Expression {
 public:
  NamedExpression(std::map<std::string, ExpressionPtr> args, NamedFn fn)
      : args_(std::move(args)), fn_(std::move(fn)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    NamedValues values;
    for (const auto& [name, expr] : args_) {
      ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
      values.emplace(name, std::move(v));
    }
    return fn_(values);
  }

 private:
  std::map<std::string, ExpressionPtr> args_;
  NamedFn fn_;
};

std::string Format(const std::string& pattern, std::string_view arg) {
  std::string out = pattern;
  size_t pos = out.find("%s");
  if (pos != std::string::npos) out.replace(pos, 2, arg);
  return out;
}

}  // namespace

StatusWith<std::vector<ExpressionPtr>> ParseArgList(const bson_iter_t* operand,
                                                    ParseContext* ctx) {
  std::vector<ExpressionPtr> args;
  if (bson_iter_type(operand) == BSON_TYPE_ARRAY) {
    bson_iter_t e;
    bson_iter_recurse(operand, &e);
    while (bson_iter_next(&e)) {
      ASSIGN_OR_RETURN(ExpressionPtr x, ParseOperand(&e, ctx));
      args.push_back(std::move(x));
    }
    return args;
  }
  ASSIGN_OR_RETURN(ExpressionPtr x, ParseOperand(operand, ctx));
  args.push_back(std::move(x));
  return args;
}

Status CheckArity(std::string_view name, size_t count, int min, int max) {
  if (min == max) {
    if (count != static_cast<size_t>(min)) {
      return Error(16020, "Expression " + std::string(name) + " takes exactly " +
                              std::to_string(min) + " arguments. " + std::to_string(count) +
                              " were passed in.");
    }
    return Status::OK();
  }
  if (count < static_cast<size_t>(min) || (max >= 0 && count > static_cast<size_t>(max))) {
    if (max < 0) {
      return Error(16020, "Expression " + std::string(name) + " takes at least " +
                              std::to_string(min) + " arguments. " + std::to_string(count) +
                              " were passed in.");
    }
    return Error(28667, "Expression " + std::string(name) + " takes at least " +
                            std::to_string(min) + " arguments, and at most " +
                            std::to_string(max) + ", but " + std::to_string(count) +
                            " were passed in.");
  }
  return Status::OK();
}

ExpressionPtr MakeNary(std::vector<ExpressionPtr> args, NaryFn fn) {
  return std::make_unique<NaryExpression>(std::move(args), std::move(fn));
}

StatusWith<ExpressionPtr> ParseNary(std::string_view name, const bson_iter_t* operand,
                                    ParseContext* ctx, int min, int max, NaryFn fn) {
  ASSIGN_OR_RETURN(auto args, ParseArgList(operand, ctx));
  RETURN_IF_ERROR(CheckArity(name, args.size(), min, max));
  return MakeNary(std::move(args), std::move(fn));
}

ExpressionPtr MakeNamed(std::map<std::string, ExpressionPtr> args, NamedFn fn) {
  return std::make_unique<NamedExpression>(std::move(args), std::move(fn));
}

StatusWith<ExpressionPtr> ParseNamed(const bson_iter_t* operand, ParseContext* ctx,
                                     const NamedArgsSpec& spec, NamedFn fn) {
  if (bson_iter_type(operand) != BSON_TYPE_DOCUMENT) {
    return Error(spec.not_object_code, spec.not_object_message);
  }
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  std::map<std::string, ExpressionPtr> args;
  while (bson_iter_next(&it)) {
    std::string key(bson_iter_key(&it), bson_iter_key_len(&it));
    bool known = false;
    for (const auto& a : spec.allowed) known = known || a == key;
    if (!known) return Error(spec.unknown_code, Format(spec.unknown_message, key));
    ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
    args[key] = std::move(e);
  }
  for (const auto& r : spec.required) {
    if (args.find(r) == args.end()) return Error(spec.missing_code, Format(spec.missing_message, r));
  }
  return MakeNamed(std::move(args), std::move(fn));
}

std::string NumericOnlyMessage(std::string_view name, const Value& v) {
  return std::string(name) + " only supports numeric types, not " + v.TypeName();
}

}  // namespace tigerdoc::agg
