// $documents: <expression evaluating to an array of objects>; must be the
// first stage; its input (if any) is ignored.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseDocumentsStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  ParseContext pctx(&ctx);
  ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(spec, &pctx));
  std::shared_ptr<Expression> expr = std::move(e);
  return MakeSpec(
      "$documents",
      [expr](StagePtr, const ExpressionContext* c) -> StatusWith<StagePtr> {
        Variables vars(c);
        vars.SetRoot(MakeDocument({}));
        ASSIGN_OR_RETURN(Value v, expr->Evaluate(&vars));
        if (!v.is_array()) {
          return Error(5858203, "error during lookup on $documents: an array is expected");
        }
        std::vector<bson::BsonDoc> docs;
        for (const Value& d : v.Elements()) {
          if (!d.is_document()) return Error(40228, "$documents requires an array of objects");
          docs.push_back(d.ToDoc());
        }
        return MakeVectorStage(std::move(docs));
      },
      /*is_source=*/true);
}

}  // namespace tigerdoc::agg
