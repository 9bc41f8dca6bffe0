// Wildcard index expansion (rules in wildcard_bounds.h).

#include "engine/query/planner/wildcard_bounds.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/index/wildcard.h"
#include "engine/query/matcher/comparison.h"

namespace tigerdoc::query::planner {
namespace {

// An operand a wildcard index can look up: the index has keys for scalars
// only (and for {} and [] as such), never for a missing path.
bool LookupOperand(const bson_value_t* value) {
  switch (value->value_type) {
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED:
    case BSON_TYPE_MINKEY:
    case BSON_TYPE_MAXKEY:
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_ARRAY:
      return false;
    default:
      return true;
  }
}

// Whether `expr` is a predicate whose bounds on a wildcard index hold every
// document it matches.
bool WildcardPredicate(const MatchExpression& expr) {
  switch (expr.kind()) {
    case MatchKind::kEq:
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte:
      return LookupOperand(static_cast<const ComparisonExpression&>(expr).rhs().get());
    case MatchKind::kIn: {
      const auto& in = static_cast<const InExpression&>(expr);
      return std::all_of(in.equalities().begin(), in.equalities().end(),
                         [](const OwnedValue& v) { return LookupOperand(v.get()); });
    }
    case MatchKind::kRegex:
    case MatchKind::kExists:
      return true;
    default:
      return false;
  }
}

bool HasPositionalComponent(const bson::FieldPath& path) {
  for (size_t i = 0; i < path.size(); ++i) {
    if (bson::ParseArrayIndex(path.part(i))) return true;
  }
  return false;
}

struct PathPredicates {
  std::string path;
  std::vector<const MatchExpression*> predicates;
};

}  // namespace

std::vector<WildcardExpansion> ExpandWildcard(const index::IndexSpec& spec,
                                              const MatchExpression* filter) {
  std::vector<WildcardExpansion> out;
  if (!spec.wildcard || spec.collator != nullptr || filter == nullptr) return out;
  std::vector<const MatchExpression*> conjuncts;
  if (filter->kind() == MatchKind::kAnd) {
    for (size_t i = 0; i < filter->num_children(); ++i) conjuncts.push_back(filter->child(i));
  } else {
    conjuncts.push_back(filter);
  }
  std::vector<PathPredicates> by_path;
  for (const MatchExpression* conjunct : conjuncts) {
    if (!WildcardPredicate(*conjunct)) continue;
    const bson::FieldPath& path = static_cast<const PathMatchExpression*>(conjunct)->path();
    if (path.size() == 0 || HasPositionalComponent(path)) continue;
    const std::string& dotted = path.dotted();
    if (!index::WildcardIndexesPath(*spec.wildcard, dotted)) continue;
    auto it = std::find_if(by_path.begin(), by_path.end(),
                           [&](const PathPredicates& p) { return p.path == dotted; });
    if (it == by_path.end()) {
      by_path.push_back(PathPredicates{dotted, {}});
      it = by_path.end() - 1;
    }
    it->predicates.push_back(conjunct);
  }

  for (const PathPredicates& entry : by_path) {
    const bool multikey = index::WildcardPathMultikey(spec, entry.path);
    // Value predicates pin the path itself; {$exists: true} alone needs the
    // paths below it too. An array on the way forbids intersecting.
    std::vector<const MatchExpression*> used;
    for (const MatchExpression* p : entry.predicates) {
      if (p->kind() != MatchKind::kExists) used.push_back(p);
    }
    const bool exists_only = used.empty();
    if (exists_only) used.push_back(entry.predicates[0]);
    if (multikey) used.resize(1);

    FieldContext context;
    context.multikey = multikey;
    context.array_before_leaf = multikey;
    std::optional<OrderedIntervalList> values;
    bool translated = true;
    for (const MatchExpression* p : used) {
      std::optional<LeafBounds> leaf = TranslatePredicate(*p, context);
      if (!leaf) {
        translated = false;
        break;
      }
      values = values ? values->Intersect(leaf->oil) : std::move(leaf->oil);
    }
    if (!translated || !values) continue;

    WildcardExpansion expansion;
    IndexKeyField path_field;
    path_field.path = index::kWildcardPathField;
    IndexKeyField value_field;
    value_field.path = entry.path;
    value_field.direction = spec.fields[0].dir;
    value_field.multikey = multikey;
    value_field.array_before_leaf = multikey;
    expansion.shape.fields = {path_field, value_field};

    const OwnedValue path_value = StringValue(entry.path);
    std::vector<Interval> path_intervals = {Interval::Point(path_value.get())};
    if (exists_only) {
      const OwnedValue below = StringValue(entry.path + ".");
      const OwnedValue after = StringValue(entry.path + "/");  // '/' follows '.'
      path_intervals.push_back(Interval::Make(below.get(), true, after.get(), false));
    }
    expansion.bounds.fields = {OrderedIntervalList(std::move(path_intervals)), std::move(*values)};
    out.push_back(std::move(expansion));
  }
  return out;
}

}  // namespace tigerdoc::query::planner
