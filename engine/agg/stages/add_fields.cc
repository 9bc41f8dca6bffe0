// $addFields and its alias $set.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/projection_tree.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

namespace {
StatusWith<StageSpecPtr> Parse(const char* name, const bson_iter_t* spec,
                               const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(40272, std::string(name) + " specification stage must be an object, got " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  bson_t doc = bson::SubDocumentView(spec);
  ParseContext pctx(&ctx);
  ASSIGN_OR_RETURN(ProjectionTree tree, ProjectionTree::ParseAddFields(&doc, &pctx));
  return MakeProjectionSpec(name, std::make_shared<const ProjectionTree>(std::move(tree)));
}
}  // namespace

StatusWith<StageSpecPtr> ParseAddFieldsStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  return Parse("$addFields", spec, ctx);
}
StatusWith<StageSpecPtr> ParseSetStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  return Parse("$set", spec, ctx);
}

}  // namespace tigerdoc::agg
