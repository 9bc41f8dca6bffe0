// $sortByCount: <expression> = $group {_id: expr, count: {$sum: 1}} then
// $sort {count: -1}.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/group.h"
#include "engine/agg/stages/sort.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseSortByCountStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!IsPathOrExpressionObject(spec)) {
    return Error(40148, "the sortByCount field must be defined as a $-prefixed path or an expression");
  }
  if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    bson_t d = bson::SubDocumentView(spec);
    bson_iter_t f;
    if (!bson_iter_init(&f, &d) || !bson_iter_next(&f) || bson_iter_key(&f)[0] != '$') {
      return Error(40147, "the sortByCount field must be specified as an expression");
    }
  }
  ParseContext pctx(&ctx);
  auto group = std::make_shared<GroupSpec>();
  ASSIGN_OR_RETURN(group->id, ParseOperand(spec, &pctx));
  group->fields.push_back(CountStatement("count"));
  bson::BsonDoc sort_doc;
  BSON_APPEND_INT32(sort_doc.mutable_get(), "count", -1);
  ASSIGN_OR_RETURN(query::SortSpec sort, query::SortSpec::Parse(sort_doc.get()));
  auto shared_sort = std::make_shared<const query::SortSpec>(std::move(sort));
  return MakeSpec("$sortByCount", [group, shared_sort](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeSortStage(MakeGroupStage(std::move(input), c, group), c, shared_sort);
  });
}

}  // namespace tigerdoc::agg
