// $match: a query filter (engine/query/matcher). A top-level $expr, which
// the matcher does not know, is split off and evaluated here as an
// aggregation expression; the rest goes to the Matcher.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/query/matcher/matcher.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseMatchStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15959, "the match filter must be an expression in an object");
  }
  bson_t filter = SubDocument(spec);
  bson::BsonDoc rest;
  std::shared_ptr<Expression> expr;
  ParseContext pctx(&ctx);
  bson_iter_t it;
  bson_iter_init(&it, &filter);
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) == "$expr") {
      ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
      expr = std::move(e);
      continue;
    }
    if (std::string_view(bson_iter_key(&it)) == "$where") {
      return Error(2, "$where is not allowed inside of a $match aggregation expression");
    }
    bson_append_iter(rest.mutable_get(), nullptr, 0, &it);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> m, query::Matcher::Parse(rest.get()));
  std::shared_ptr<query::Matcher> matcher = std::move(m);
  return MakeSpec("$match", [matcher, expr](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeMapStage(std::move(input), c,
                        [matcher, expr](bson::BsonDoc doc, Variables* vars)
                            -> StatusWith<std::optional<bson::BsonDoc>> {
                          if (!matcher->Matches(doc.get())) return std::optional<bson::BsonDoc>();
                          if (expr) {
                            vars->SetRoot(Value::Document(doc));
                            ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
                            if (!v.Truthy()) return std::optional<bson::BsonDoc>();
                          }
                          return std::optional<bson::BsonDoc>(std::move(doc));
                        });
  });
}

}  // namespace tigerdoc::agg
