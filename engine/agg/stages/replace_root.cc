// $replaceRoot {newRoot: <expression>} and $replaceWith <expression>.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::agg {
namespace {

StageSpecPtr Make(const char* name, std::shared_ptr<Expression> expr) {
  return MakeSpec(name, [expr](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeMapStage(std::move(input), c,
                        [expr](bson::BsonDoc doc, Variables* vars) -> StatusWith<std::optional<bson::BsonDoc>> {
                          vars->SetRoot(Value::Document(doc));
                          ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
                          if (!v.is_document()) {
                            return Error(40228, "'newRoot' expression must evaluate to an object, but resulting value was: " +
                                                    v.ToString() + ". Type of resulting value: '" + v.TypeName() +
                                                    "'. Input document: " + bson::ToShellString(doc.get()));
                          }
                          return std::optional<bson::BsonDoc>(v.ToDoc());
                        });
  });
}

}  // namespace

StatusWith<StageSpecPtr> ParseReplaceRootStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(40229, "expected an object as specification for $replaceRoot stage, got " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  bson_t doc = bson::SubDocumentView(spec);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  std::shared_ptr<Expression> expr;
  ParseContext pctx(&ctx);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key != "newRoot") return Error(40415, "BSON field '$replaceRoot." + key + "' is an unknown field.");
    ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
    expr = std::move(e);
  }
  if (!expr) return Error(40414, "BSON field '$replaceRoot.newRoot' is missing but a required field");
  return Make("$replaceRoot", expr);
}

StatusWith<StageSpecPtr> ParseReplaceWithStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  ParseContext pctx(&ctx);
  ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(spec, &pctx));
  return Make("$replaceWith", std::shared_ptr<Expression>(std::move(e)));
}

}  // namespace tigerdoc::agg
