// $text plans over a term-keyed text index: see text_plan.h.

#include "engine/query/planner/text_plan.h"

#include "engine/index/text_keys.h"
#include "engine/keystring/key_string.h"
#include "engine/query/matcher/comparison.h"

namespace tigerdoc::query::planner {
namespace {

constexpr char kPrefixRequired[] =
    "failed to use text index to satisfy $text query (if text index is compound, are equality "
    "predicates given for all prefix fields?)";

// The first equality on `path` among the conjuncts of `node` (the node
// itself, or the children of a top-level $and and of $ands inside it).
const ComparisonExpression* EqualityOn(const MatchExpression* node, const std::string& path) {
  if (node->kind() == MatchKind::kEq) {
    auto* eq = static_cast<const ComparisonExpression*>(node);
    return eq->path().dotted() == path ? eq : nullptr;
  }
  if (node->kind() != MatchKind::kAnd) return nullptr;
  for (size_t i = 0; i < node->num_children(); ++i) {
    if (const ComparisonExpression* eq = EqualityOn(node->child(i), path)) return eq;
  }
  return nullptr;
}

}  // namespace

StatusWith<TextPlan> PlanTextSearch(const MatchExpression* root, const fts::TextQuery& query,
                                    std::shared_ptr<const index::IndexSpec> index) {
  if (index->partial_matcher && !QueryImplies(root, index->partial_matcher->root())) {
    return Status(ErrorCode::kNoQueryExecutionPlans, kPrefixRequired);
  }
  TextPlan out;
  std::vector<const bson_value_t*> prefix_values;
  const size_t prefix_count = index::TextPrefixFieldCount(*index);
  for (size_t i = 0; i < prefix_count; ++i) {
    const std::string& path = index->fields[i].path.dotted();
    const ComparisonExpression* eq = EqualityOn(root, path);
    if (eq == nullptr) return Status(ErrorCode::kNoQueryExecutionPlans, kPrefixRequired);
    prefix_values.push_back(eq->rhs().get());
    bson_append_value(out.index_prefix.mutable_get(), path.data(), static_cast<int>(path.size()),
                      eq->rhs().get());
  }
  const IndexShape shape = ShapeOf(*index);
  for (const std::string& term : query.terms()) {
    IndexScanPlan scan;
    scan.index = index;
    scan.shape = shape;
    scan.bounds = IndexBounds::AllValues(index->fields.size());
    std::string lower = index::TextTermKeyPrefix(*index, prefix_values, term);
    std::string upper = keystring::PrefixSuccessor(lower);
    scan.ranges.push_back(KeyRange{std::move(lower), std::move(upper)});
    scan.fields_enforced = index->fields.size();  // the range is the term: nothing left to check
    out.plan.scans.push_back(std::move(scan));
  }
  out.plan.kind = out.plan.scans.size() == 1 ? QueryPlan::Kind::kIndexScan : QueryPlan::Kind::kOr;
  return out;
}

}  // namespace tigerdoc::query::planner
