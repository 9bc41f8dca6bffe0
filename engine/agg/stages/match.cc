// $match: a query filter (engine/query/matcher). $expr, anywhere the
// matcher allows it, is compiled with this pipeline's context (its `let`
// and $lookup variables, $$NOW) through query_expressions.h.

#include "engine/agg/query_expressions.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/matcher/text.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseMatchStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15959, "the match filter must be an expression in an object");
  }
  bson_t filter = bson::SubDocumentView(spec);
  bson_iter_t where;
  if (bson_iter_init_find(&where, &filter, "$where")) {
    return Error(2, "$where is not allowed inside of a $match aggregation expression");
  }
  std::shared_ptr<const query::ExpressionParser> expressions = MakeQueryExpressionParser(ctx);
  ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> m,
                   query::Matcher::Parse(&filter, expressions.get(), ctx.collator));
  if (query::ContainsText(m->root())) {
    // Only the first stage may hold $text (pipeline.cc, 17313), and the
    // leading $match is the collection scan's query, where the plan
    // executor binds $text to the text index and filters: this stage then
    // has nothing left to remove. The scan also sets each document's text
    // score when the pipeline reads it (agg/document_metadata.h).
    return MakeSpec("$match", [](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
      return MakeMapStage(std::move(input), c,
                          [](bson::BsonDoc doc, Variables*) -> StatusWith<std::optional<bson::BsonDoc>> {
                            return std::optional<bson::BsonDoc>(std::move(doc));
                          });
    });
  }
  std::shared_ptr<query::Matcher> matcher = std::move(m);
  return MakeSpec("$match", [matcher](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeMapStage(std::move(input), c,
                        [matcher](bson::BsonDoc doc, Variables*)
                            -> StatusWith<std::optional<bson::BsonDoc>> {
                          if (matcher->Matches(doc.get())) {
                            return std::optional<bson::BsonDoc>(std::move(doc));
                          }
                          RETURN_IF_ERROR(matcher->EvaluationError());
                          return std::optional<bson::BsonDoc>();
                        });
  });
}

}  // namespace tigerdoc::agg
