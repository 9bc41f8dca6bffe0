// $unset: "field" or ["a", "b.c"]: an exclusion projection.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/projection_tree.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseUnsetStage(const bson_iter_t* spec, const ExpressionContext&) {
  std::vector<std::string> paths;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    paths.emplace_back(IterString(spec));
  } else if (BSON_ITER_HOLDS_ARRAY(spec)) {
    bson_t arr = bson::SubDocumentView(spec);
    bson_iter_t it;
    bson_iter_init(&it, &arr);
    while (bson_iter_next(&it)) {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Error(31120, "$unset specification must be a string or an array containing only string values");
      }
      paths.emplace_back(IterString(&it));
    }
    if (paths.empty()) return Error(31119, "$unset specification must be a string or an array with at least one field");
  } else {
    return Error(31002, "$unset specification must be a string or an array");
  }
  ASSIGN_OR_RETURN(ProjectionTree tree, ProjectionTree::ParseUnset(paths));
  return MakeProjectionSpec("$unset", std::make_shared<const ProjectionTree>(std::move(tree)));
}

}  // namespace tigerdoc::agg
