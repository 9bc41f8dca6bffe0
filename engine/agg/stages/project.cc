// $project: inclusion / exclusion / computed fields (projection_tree.h).

#include "engine/agg/document_metadata.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/projection_tree.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

// Shared by $project, $addFields/$set and $unset.
StageSpecPtr MakeProjectionSpec(std::string name, std::shared_ptr<const ProjectionTree> tree) {
  return MakeSpec(std::move(name), [tree](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeMapStage(std::move(input), c,
                        [tree](bson::BsonDoc doc, Variables* vars)
                            -> StatusWith<std::optional<bson::BsonDoc>> {
                          Value root = Value::Document(doc);
                          vars->SetRoot(root);
                          ASSIGN_OR_RETURN(Value out, tree->Apply(root, vars));
                          bson::BsonDoc result = out.ToDoc();
                          // An inclusion keeps the document's metadata
                          // (document_metadata.h).
                          if (vars->context().carries_metadata()) {
                            CopyMetadata(doc.get(), result.mutable_get());
                          }
                          return std::optional<bson::BsonDoc>(std::move(result));
                        });
  });
}

StatusWith<StageSpecPtr> ParseProjectStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15969, "$project specification must be an object");
  }
  bson_t doc = bson::SubDocumentView(spec);
  ParseContext pctx(&ctx);
  ASSIGN_OR_RETURN(ProjectionTree tree, ProjectionTree::ParseProject(&doc, &pctx));
  return MakeProjectionSpec("$project", std::make_shared<const ProjectionTree>(std::move(tree)));
}

}  // namespace tigerdoc::agg
