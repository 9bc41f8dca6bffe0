// $bucket: {groupBy, boundaries: [b0, b1, ...], default, output}. A
// document goes to the bucket [b_i, b_i+1) holding its groupBy value
// (_id = b_i), else to `default` (an error without one). Output defaults to
// {count: {$sum: 1}}. Buckets come out in boundary order, then default.

#include <algorithm>

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/group.h"
#include "engine/agg/stages/sort.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/bson/compare.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseBucketStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(40201, "Argument to $bucket stage must be an object, but found type: " +
                            TypeNameOf(bson_iter_type(spec)) + ".");
  }
  bson_t doc = bson::SubDocumentView(spec);
  ParseContext pctx(&ctx);
  auto group = std::make_shared<GroupSpec>();
  std::vector<Value> bounds;
  std::optional<Value> default_value;
  bool have_output = false;
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "groupBy") {
      if (!IsPathOrExpressionObject(&it)) {
        return Error(40202, "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: " +
                                Value(&it).ToString() + ".");
      }
      ASSIGN_OR_RETURN(group->id, ParseOperand(&it, &pctx));
    } else if (key == "boundaries") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Error(40200, "The $bucket 'boundaries' field must be an array, but found type: " +
                                TypeNameOf(bson_iter_type(&it)) + ".");
      }
      bounds = Value(&it).Elements();
    } else if (key == "default") {
      default_value = Value(&it);
    } else if (key == "output") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(40196, "The $bucket 'output' field must be an object, but found type: " +
                                TypeNameOf(bson_iter_type(&it)) + ".");
      }
      bson_t out = bson::SubDocumentView(&it);
      RETURN_IF_ERROR(ParseAccumulatorFields(&out, &pctx, nullptr, &group->fields));
      have_output = true;
    } else {
      return Error(40197, "Unrecognized option to $bucket: " + key + ".");
    }
  }
  if (!group->id || bounds.empty()) {
    return Error(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  }
  if (bounds.size() < 2) {
    return Error(40192, "The $bucket 'boundaries' field must have at least 2 values, but found " +
                            std::to_string(bounds.size()) + " value(s).");
  }
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    if (bson::CanonicalTypeRank(bounds[i].type()) != bson::CanonicalTypeRank(bounds[i + 1].type())) {
      return Error(40193, "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types " +
                              bounds[i].TypeName() + " and " + bounds[i + 1].TypeName() + ".");
    }
    if (Compare(bounds[i], bounds[i + 1], ctx.collator) >= 0) {
      return Error(40194, "The 'boundaries' option to $bucket must be sorted, but elements " +
                              std::to_string(i) + " and " + std::to_string(i + 1) + " are not in ascending order (" +
                              bounds[i].ToString() + " is not less than " + bounds[i + 1].ToString() + ").");
    }
  }
  if (default_value && Compare(*default_value, bounds.front(), ctx.collator) >= 0 &&
      Compare(*default_value, bounds.back(), ctx.collator) < 0 &&
      bson::CanonicalTypeRank(default_value->type()) == bson::CanonicalTypeRank(bounds.front().type())) {
    return Error(40199, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.");
  }
  if (!have_output) {
    group->fields.push_back(CountStatement("count"));
  }
  auto shared_bounds = std::make_shared<std::vector<Value>>(std::move(bounds));
  // Boundaries compare under the operation's collation, as MongoDB's
  // $switch of $gte/$lt branches that $bucket stands for does.
  const bson::Collator* collator = ctx.collator;
  group->key_transform = [shared_bounds, default_value, collator](const Value& v) -> StatusWith<Value> {
    const auto& b = *shared_bounds;
    bool comparable = bson::CanonicalTypeRank(v.missing() ? BSON_TYPE_NULL : v.type()) ==
                      bson::CanonicalTypeRank(b.front().type());
    if (comparable && Compare(v, b.front(), collator) >= 0 && Compare(v, b.back(), collator) < 0) {
      auto up = std::upper_bound(b.begin(), b.end(), v, [collator](const Value& x, const Value& y) {
        return Compare(x, y, collator) < 0;
      });
      return *(up - 1);
    }
    if (!default_value) {
      return Error(40066, "$switch could not find a matching branch for an input, and no default was specified.");
    }
    return *default_value;
  };
  // Buckets in boundary order: sort the groups by _id (the default bucket
  // sorts where its value falls, as MongoDB's $sort on _id would put it;
  // MongoDB emits it last, which matters only when it lies below the
  // boundaries).
  bson::BsonDoc sort_doc;
  BSON_APPEND_INT32(sort_doc.mutable_get(), "_id", 1);
  ASSIGN_OR_RETURN(query::SortSpec sort, query::SortSpec::Parse(sort_doc.get()));
  auto shared_sort = std::make_shared<const query::SortSpec>(std::move(sort));
  return MakeSpec("$bucket", [group, shared_sort](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeSortStage(MakeGroupStage(std::move(input), c, group), c, shared_sort);
  });
}

}  // namespace tigerdoc::agg
