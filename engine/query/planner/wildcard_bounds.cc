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

struct PathPredicates {
  std::string path;
  std::vector<const MatchExpression*> predicates;
};

// MongoDB's limit on positional components read as array indexes
// (kWildcardMaxArrayIndexTraversalDepth): the path set doubles with each.
constexpr size_t kMaxArrayIndexTraversal = 8;

// The index paths a query path may reach values under. A numeric component
// right after a component that has held an array ("a.0" with a multikey)
// reads an array element, keyed under the array's own path ("a"), or a
// field named "0" of a document inside it ("a.0"): both spellings are
// scanned, every combination of them when there are several. An element
// that is itself an array is keyed whole under the array's path, so those
// paths ("a" for "a.0.b") are listed in `nested_array_paths`: their values
// bounds must include arrays.
struct QueryPathSet {
  std::vector<std::string> paths;
  std::vector<std::string> nested_array_paths;
};

// nullopt when the index cannot answer `path`: too many positional
// components, two in a row after an array ("a.0.1": an index never holds
// the elements of a nested array), or a spelling the index leaves out.
std::optional<QueryPathSet> IndexPathsFor(const index::IndexSpec& spec,
                                          const bson::FieldPath& path) {
  const auto is_multikey = [&](const std::string& p) {
    return spec.wildcard_multikey_paths.count(p) != 0;
  };
  QueryPathSet out;
  std::vector<std::string> variants{""};  // spellings of the components so far
  size_t positional = 0;
  bool previous_multikey = false;
  bool previous_positional = false;
  for (size_t i = 0; i < path.size(); ++i) {
    const std::string& part = path.part(i);
    const bool numeric = bson::ParseArrayIndex(part).has_value();
    if (numeric && previous_positional) return std::nullopt;
    const bool array_index = i > 0 && numeric && previous_multikey;
    std::vector<std::string> next;
    for (const std::string& v : variants) {
      next.push_back(v.empty() ? part : v + "." + part);
      if (array_index) next.push_back(v);
    }
    if (array_index) {
      if (++positional > kMaxArrayIndexTraversal) return std::nullopt;
      for (const std::string& v : variants) out.nested_array_paths.push_back(v);
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    variants = std::move(next);
    previous_positional = array_index;
    previous_multikey = std::any_of(variants.begin(), variants.end(), is_multikey);
  }
  out.paths = std::move(variants);
  for (const auto* list : {&out.paths, &out.nested_array_paths}) {
    for (const std::string& p : *list) {
      if (!index::WildcardIndexesPath(*spec.wildcard, p)) return std::nullopt;
    }
  }
  return out;
}

bool AnyMultikey(const index::IndexSpec& spec, const std::vector<std::string>& paths) {
  return std::any_of(paths.begin(), paths.end(),
                     [&](const std::string& p) { return index::WildcardPathMultikey(spec, p); });
}

// Every array value: [[], BinData()) in the canonical type order.
Interval ArrayValues() {
  static const uint8_t kEmptyArray[5] = {5, 0, 0, 0, 0};
  static uint8_t no_bytes = 0;
  bson_value_t empty_array{};
  empty_array.value_type = BSON_TYPE_ARRAY;
  empty_array.value.v_doc.data = const_cast<uint8_t*>(kEmptyArray);
  empty_array.value.v_doc.data_len = sizeof(kEmptyArray);
  bson_value_t binary{};
  binary.value_type = BSON_TYPE_BINARY;
  binary.value.v_binary.subtype = BSON_SUBTYPE_BINARY;
  binary.value.v_binary.data = &no_bytes;
  binary.value.v_binary.data_len = 0;
  return Interval::Make(&empty_array, true, &binary, false);
}

}  // namespace

std::vector<WildcardExpansion> ExpandWildcard(const index::IndexSpec& spec,
                                              const MatchExpression* filter) {
  std::vector<WildcardExpansion> out;
  if (!spec.wildcard || filter == nullptr) return out;
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
    if (path.size() == 0) continue;
    const std::string& dotted = path.dotted();
    auto it = std::find_if(by_path.begin(), by_path.end(),
                           [&](const PathPredicates& p) { return p.path == dotted; });
    if (it == by_path.end()) {
      by_path.push_back(PathPredicates{dotted, {}});
      it = by_path.end() - 1;
    }
    it->predicates.push_back(conjunct);
  }

  for (const PathPredicates& entry : by_path) {
    const bson::FieldPath query_path(entry.path);
    std::optional<QueryPathSet> index_paths = IndexPathsFor(spec, query_path);
    if (!index_paths) continue;
    const bool positional = !index_paths->nested_array_paths.empty();
    const bool multikey = positional || AnyMultikey(spec, index_paths->paths);
    // Value predicates pin the path itself; {$exists: true} alone needs the
    // paths below it too. An array on the way forbids intersecting.
    std::vector<const MatchExpression*> used;
    for (const MatchExpression* p : entry.predicates) {
      if (p->kind() != MatchKind::kExists) used.push_back(p);
    }
    const bool exists_only = used.empty();
    if (exists_only) used.push_back(entry.predicates[0]);
    if (multikey) used.resize(1);

    // Value bounds are collation keys in a collated index (the caller plans
    // under the query's collation, the index's own); $_path is binary.
    FieldContext context;
    context.multikey = multikey;
    context.array_before_leaf = multikey;
    std::optional<OrderedIntervalList> values;
    bool translated = true;
    {
      ScopedBoundsCollator value_collation(spec.collator);
      for (const MatchExpression* p : used) {
        std::optional<LeafBounds> leaf = TranslatePredicate(*p, context);
        if (!leaf) {
          translated = false;
          break;
        }
        values = values ? values->Intersect(leaf->oil) : std::move(leaf->oil);
      }
      if (translated && values && positional) {
        values = values->Union(OrderedIntervalList(std::vector<Interval>{ArrayValues()}));
      }
    }
    if (!translated || !values) continue;

    WildcardExpansion expansion;
    IndexKeyField path_field;
    path_field.path = index::kWildcardPathField;
    path_field.never_collated = true;
    IndexKeyField value_field;
    value_field.path = entry.path;
    value_field.direction = spec.fields[0].dir;
    value_field.multikey = multikey;
    value_field.array_before_leaf = multikey;
    value_field.value_under_wildcard_path = positional;
    expansion.shape.fields = {path_field, value_field};
    expansion.shape.collator = spec.collator;

    ScopedBoundsCollator path_collation(nullptr);
    std::vector<Interval> path_intervals;
    for (const std::string& p : index_paths->paths) {
      const OwnedValue path_value = StringValue(p);
      path_intervals.push_back(Interval::Point(path_value.get()));
      if (exists_only) {
        const OwnedValue below = StringValue(p + ".");
        const OwnedValue after = StringValue(p + "/");  // '/' follows '.'
        path_intervals.push_back(Interval::Make(below.get(), true, after.get(), false));
      }
    }
    for (const std::string& p : index_paths->nested_array_paths) {
      const OwnedValue path_value = StringValue(p);
      path_intervals.push_back(Interval::Point(path_value.get()));
    }
    expansion.bounds.fields = {OrderedIntervalList(std::move(path_intervals)), std::move(*values)};
    out.push_back(std::move(expansion));
  }
  return out;
}

}  // namespace tigerdoc::query::planner
