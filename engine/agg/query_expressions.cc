#include "engine/agg/query_expressions.h"

#include <chrono>

#include "engine/base/wall_clock.h"
#include "engine/agg/expressions/expression.h"

namespace tigerdoc::agg {
namespace {

class CompiledAggExpression : public query::CompiledExpression {
 public:
  CompiledAggExpression(std::shared_ptr<const ExpressionContext> ctx, ExpressionPtr expr)
      : ctx_(std::move(ctx)), expr_(std::move(expr)) {}

  Status AppendTo(const bson_t* doc, std::string_view key, bson_t* out) const override {
    ASSIGN_OR_RETURN(Value v, Evaluate(doc));
    v.AppendTo(out, key);
    return Status::OK();
  }

  StatusWith<bool> Truthy(const bson_t* doc) const override {
    ASSIGN_OR_RETURN(Value v, Evaluate(doc));
    return v.Truthy();
  }

 private:
  StatusWith<Value> Evaluate(const bson_t* doc) const {
    if (const Value* constant = expr_->AsConstant()) return *constant;
    return EvaluateOn(*expr_, doc, *ctx_);
  }

  std::shared_ptr<const ExpressionContext> ctx_;
  ExpressionPtr expr_;
};

// With a context: fixed variables and $$NOW. Without (the process
// default): a fresh context, $$NOW read at each Parse.
class AggQueryExpressionParser : public query::ExpressionParser {
 public:
  explicit AggQueryExpressionParser(std::shared_ptr<const ExpressionContext> ctx)
      : ctx_(std::move(ctx)) {}

  StatusWith<std::unique_ptr<const query::CompiledExpression>> Parse(
      const bson_iter_t* operand) const override {
    std::shared_ptr<const ExpressionContext> ctx = ctx_;
    if (!ctx) {
      auto fresh = std::make_shared<ExpressionContext>();
      fresh->now_millis = WallClockMillis();
      ctx = std::move(fresh);
    }
    ParseContext pctx(ctx.get());
    ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(operand, &pctx));
    return std::unique_ptr<const query::CompiledExpression>(
        std::make_unique<CompiledAggExpression>(std::move(ctx), std::move(expr)));
  }

 private:
  std::shared_ptr<const ExpressionContext> ctx_;
};

}  // namespace

std::shared_ptr<const query::ExpressionParser> MakeQueryExpressionParser(ExpressionContext ctx) {
  // The resolver belongs to a running pipeline; query expressions never
  // open collections.
  ctx.resolver = nullptr;
  return std::make_shared<AggQueryExpressionParser>(
      std::make_shared<const ExpressionContext>(std::move(ctx)));
}

void InstallDefaultQueryExpressionParser() {
  static const AggQueryExpressionParser kDefault(nullptr);
  query::SetDefaultExpressionParser(&kDefault);
}

StatusWith<std::vector<std::pair<std::string, Value>>> EvaluateLet(const bson_t* let,
                                                                    const ExpressionContext& ctx) {
  ExpressionContext scope = ctx;
  std::vector<std::pair<std::string, Value>> out;
  bson_iter_t it;
  if (let == nullptr || !bson_iter_init(&it, let)) return out;
  bson::BsonDoc empty;
  while (bson_iter_next(&it)) {
    std::string name(bson_iter_key(&it), bson_iter_key_len(&it));
    RETURN_IF_ERROR(ValidateUserVariableName(name));
    ParseContext pctx(&scope);
    ASSIGN_OR_RETURN(ExpressionPtr expr, ParseOperand(&it, &pctx));
    ASSIGN_OR_RETURN(Value v, EvaluateOn(*expr, empty.get(), scope));
    scope.variables.emplace_back(name, v);
    out.emplace_back(std::move(name), std::move(v));
  }
  return out;
}

}  // namespace tigerdoc::agg
