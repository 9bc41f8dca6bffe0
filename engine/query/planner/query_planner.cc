#include "engine/query/planner/query_planner.h"

#include <algorithm>
#include <tuple>

#include "engine/index/key_generator.h"
#include "engine/query/planner/wildcard_bounds.h"

namespace tigerdoc::query::planner {
namespace {

constexpr char kNoSuchIndex[] = "hint provided does not correspond to an existing index";
constexpr ErrorCode kWildcardMinMaxCode = static_cast<ErrorCode>(51174);

// The paths an inclusion projection needs ({a: 1, "b.c": 1} -> a, b.c, _id);
// nullopt for anything a covered plan cannot produce from key values
// (exclusions other than _id, operators, computed fields).
std::optional<std::vector<std::string>> ProjectedPaths(const bson_t* projection) {
  if (projection == nullptr || bson_empty(projection)) return std::nullopt;
  std::vector<std::string> paths;
  bool id_excluded = false;
  bson_iter_t it;
  if (!bson_iter_init(&it, projection)) return std::nullopt;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key.find('$') != std::string::npos) return std::nullopt;
    if (!BSON_ITER_HOLDS_NUMBER(&it) && !BSON_ITER_HOLDS_BOOL(&it)) return std::nullopt;
    bool include = BSON_ITER_HOLDS_BOOL(&it) ? bson_iter_bool(&it) : bson_iter_as_double(&it) != 0;
    if (!include) {
      if (key != "_id") return std::nullopt;
      id_excluded = true;
      continue;
    }
    paths.push_back(key);
  }
  if (paths.empty()) return std::nullopt;  // {_id: 0} alone is an exclusion projection
  if (!id_excluded && std::find(paths.begin(), paths.end(), "_id") == paths.end()) {
    paths.push_back("_id");
  }
  return paths;
}

// A key field whose values are the document's own (no arrays met, not a
// hash): a covered plan can hand them out and a sort can rely on them.
bool PlainField(const IndexKeyField& field) { return !field.multikey && !field.hashed; }

bool IsPlainKeyField(const IndexShape& shape, const std::string& path) {
  return std::any_of(shape.fields.begin(), shape.fields.end(), [&](const IndexKeyField& f) {
    return f.path == path && PlainField(f);
  });
}

// The index provides the sort when, after key fields pinned to one value,
// the sort fields follow in the index's directions (read forward) or all in
// the opposite ones (read backward), over fields that never held arrays.
// Sets *backward for the second case.
bool ProvidesSort(const IndexShape& shape, const IndexBounds& bounds, const SortSpec* sort,
                  bool* backward) {
  if (sort == nullptr || sort->empty()) return false;
  const auto& wanted = sort->fields();
  for (const bool reversed : {false, true}) {
    size_t j = 0;
    bool ok = true;
    for (size_t i = 0; i < shape.fields.size() && j < wanted.size(); ++i) {
      const IndexKeyField& field = shape.fields[i];
      const bool same_direction = field.direction == wanted[j].direction;
      if (field.path == wanted[j].path.dotted() && same_direction != reversed &&
          PlainField(field)) {
        ++j;
        continue;
      }
      const OrderedIntervalList& oil = bounds.fields[i];
      if (oil.size() == 1 && oil.AllPoints()) continue;  // equality prefix
      ok = false;
      break;
    }
    if (ok && j == wanted.size()) {
      *backward = reversed;
      return true;
    }
  }
  return false;
}

std::optional<IndexScanPlan> BuildIndexPlan(const std::shared_ptr<const index::IndexSpec>& spec,
                                            const MatchExpression* filter,
                                            const PlanRequest& request, bool hinted) {
  IndexScanPlan plan;
  plan.index = spec;
  plan.shape = ShapeOf(*spec);
  plan.multikey = spec->multikey;
  ConjunctionBounds cb = BoundsForConjunction(filter, plan.shape);
  // A missing leading field leaves its entry out of a distinct scan (the
  // key values tell missing from null), so a sparse index serves it too.
  plan.distinct_scan = !request.distinct_key.empty() && cb.exact &&
                       plan.shape.fields[0].path == request.distinct_key &&
                       PlainField(plan.shape.fields[0]);
  if (!hinted && !cb.sparse_ok && !plan.distinct_scan) return std::nullopt;
  plan.bounds = std::move(cb.bounds);
  plan.exact = cb.exact;
  plan.provides_sort = ProvidesSort(plan.shape, plan.bounds, request.sort, &plan.backward);
  if (!hinted && !cb.leading_field_bounded && !plan.provides_sort && !plan.distinct_scan) {
    return std::nullopt;
  }
  plan.ranges = plan.bounds.ToKeyRanges(plan.shape, &plan.fields_enforced);

  std::optional<std::vector<std::string>> needed =
      request.needs_documents ? std::nullopt : ProjectedPaths(request.projection);
  if (needed && (cb.exact || cb.coverable)) {
    bool all_keys = std::all_of(needed->begin(), needed->end(), [&](const std::string& path) {
      return IsPlainKeyField(plan.shape, path);
    });
    // A blocking sort over covered results sorts key values: its fields must
    // be plain key fields too.
    if (all_keys && request.sort != nullptr && !plan.provides_sort) {
      for (const SortSpec::Field& f : request.sort->fields()) {
        if (!IsPlainKeyField(plan.shape, f.path.dotted())) all_keys = false;
      }
    }
    plan.covered = all_keys;
    plan.filter_on_keys = all_keys && !cb.exact;
  }
  return plan;
}

// A wildcard index's candidates: one scan of the expanded index
// {$_path, <path>} per path it can answer (wildcard_bounds.h). Never exact
// nor covered: documents are fetched and filtered.
std::vector<IndexScanPlan> WildcardIndexPlans(const std::shared_ptr<const index::IndexSpec>& spec,
                                              const MatchExpression* filter,
                                              const PlanRequest& request) {
  std::vector<IndexScanPlan> out;
  for (WildcardExpansion& expansion : ExpandWildcard(*spec, filter)) {
    IndexScanPlan plan;
    plan.index = spec;
    plan.shape = std::move(expansion.shape);
    plan.bounds = std::move(expansion.bounds);
    plan.multikey = true;  // a document may have several keys in the bounds
    plan.provides_sort = ProvidesSort(plan.shape, plan.bounds, request.sort, &plan.backward);
    plan.ranges = plan.bounds.ToKeyRanges(plan.shape, &plan.fields_enforced);
    out.push_back(std::move(plan));
  }
  return out;
}

bool Sorted(const PlanRequest& request) { return request.sort != nullptr && !request.sort->empty(); }

void Cost(QueryPlan* plan, const PlanRequest& request, const KeyCounter& count_keys) {
  if (plan->kind == QueryPlan::Kind::kCollScan) {
    plan->blocking_sort = Sorted(request);
    plan->cost = request.collection_docs * (plan->blocking_sort ? 2 : 1);
    return;
  }
  int64_t total = 0;
  bool ordered = (plan->kind == QueryPlan::Kind::kIndexScan && plan->scans[0].provides_sort) ||
                 (plan->kind == QueryPlan::Kind::kOr && plan->sort_merge);
  for (const IndexScanPlan& scan : plan->scans) {
    int64_t keys = count_keys ? count_keys(scan, kCostCountCap) : kCostCountCap;
    total += keys + (scan.covered ? 0 : keys);
  }
  plan->blocking_sort = Sorted(request) && !ordered;
  plan->cost = total + (plan->blocking_sort ? total / 2 : 0);
}

// Orders plans best first: cost, then covered, exact, sort-providing, an
// index over a collection scan, fewer key fields.
auto Rank(const QueryPlan& p) {
  const IndexScanPlan* scan = p.kind == QueryPlan::Kind::kIndexScan ? &p.scans[0] : nullptr;
  return std::make_tuple(p.cost, scan ? !scan->covered : true, p.NeedsFilter(),
                         scan ? !scan->provides_sort : true, p.kind == QueryPlan::Kind::kCollScan,
                         scan ? scan->shape.fields.size() : size_t{0});
}

QueryPlan Single(IndexScanPlan scan) {
  QueryPlan plan;
  plan.kind = QueryPlan::Kind::kIndexScan;
  plan.scans.push_back(std::move(scan));
  return plan;
}

// The usable (not hidden, partial filter implied) index plans for `filter`.
std::vector<IndexScanPlan> IndexPlansFor(const MatchExpression* filter, const PlanRequest& request) {
  std::vector<IndexScanPlan> out;
  if (!request.indexes) return out;
  for (const auto& spec : request.indexes->specs) {
    if (spec->hidden) continue;
    // A text index serves only $text (text_plan.h): documents without
    // text have no entry, others one per term.
    if (spec->text) continue;
    if (spec->partial_matcher && !QueryImplies(filter, spec->partial_matcher->root())) continue;
    if (spec->wildcard) {
      for (IndexScanPlan& plan : WildcardIndexPlans(spec, filter, request)) {
        out.push_back(std::move(plan));
      }
      continue;
    }
    if (auto plan = BuildIndexPlan(spec, filter, request, false)) out.push_back(std::move(*plan));
  }
  return out;
}

}  // namespace

bool QueryPlan::NeedsFilter() const {
  if (kind == Kind::kCollScan) return true;
  return std::any_of(scans.begin(), scans.end(), [](const IndexScanPlan& s) { return !s.exact; });
}

std::string QueryPlan::Describe() const {
  switch (kind) {
    case Kind::kCollScan:
      return "COLLSCAN";
    case Kind::kIndexScan:
      // A wildcard index has one candidate per path: the path tells them apart.
      return "IXSCAN " + scans[0].index->name +
             (scans[0].index->wildcard ? " " + scans[0].shape.fields.back().path : "");
    case Kind::kOr: {
      std::string out = sort_merge ? "SORT_MERGE(" : "OR(";
      for (size_t i = 0; i < scans.size(); ++i) {
        out += (i ? ", IXSCAN " : "IXSCAN ") + scans[i].index->name;
      }
      return out + ")";
    }
  }
  return "";
}

IndexShape ShapeOf(const index::IndexSpec& spec) {
  IndexShape shape;
  shape.sparse = spec.sparse;
  shape.collator = spec.collator;
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    IndexKeyField field;
    field.path = spec.fields[i].path.dotted();
    field.direction = spec.fields[i].dir;
    field.hashed = spec.fields[i].hashed;
    field.multikey = i < spec.multikey_paths.size() ? !spec.multikey_paths[i].empty() : spec.multikey;
    const size_t last = spec.fields[i].path.size() - 1;
    if (i < spec.multikey_paths.size()) {
      for (size_t component : spec.multikey_paths[i]) {
        field.array_before_leaf = field.array_before_leaf || component < last;
      }
    } else {
      field.array_before_leaf = field.multikey && last > 0;  // no paths recorded: assume so
    }
    shape.fields.push_back(std::move(field));
  }
  shape.hash = [collator = spec.collator](const OwnedValue& v) {
    bson_value_t hash{};
    hash.value_type = BSON_TYPE_INT64;
    hash.value.v_int64 = index::HashIndexValue(v.get(), collator);
    return OwnedValue(&hash);
  };
  return shape;
}

StatusWith<PlanChoice> ChoosePlan(const PlanRequest& request, const KeyCounter& count_keys) {
  const MatchExpression* filter = request.matcher->root();
  PlanChoice choice;

  // A hint is obeyed without a choice.
  if (request.hint.kind == PlanHint::Kind::kNatural) {
    Cost(&choice.winner, request, count_keys);
    return choice;
  }
  if (request.hint.kind != PlanHint::Kind::kNone) {
    std::shared_ptr<const index::IndexSpec> hinted;
    if (request.indexes) {
      for (const auto& spec : request.indexes->specs) {
        bool named = request.hint.kind == PlanHint::Kind::kIndexName
                         ? spec->name == request.hint.name
                         : index::KeyPatternsEqual(spec->key_pattern.get(),
                                                   request.hint.key_pattern.get());
        if (named && !spec->hidden) {
          hinted = spec;
          break;
        }
      }
    }
    if (!hinted ||
        (hinted->partial_matcher && !QueryImplies(filter, hinted->partial_matcher->root()))) {
      return Status(ErrorCode::kBadValue, kNoSuchIndex);
    }
    if (hinted->text) {
      // Nothing but $text (which refuses hints) can read a text index.
      return Status(ErrorCode::kNoQueryExecutionPlans, "No query solutions");
    }
    if (hinted->wildcard) {
      if (request.min_max) {
        return Status(kWildcardMinMaxCode, "$min/$max are not supported for wildcard indexes");
      }
      std::vector<QueryPlan> options;
      for (IndexScanPlan& scan : WildcardIndexPlans(hinted, filter, request)) {
        options.push_back(Single(std::move(scan)));
        Cost(&options.back(), request, count_keys);
      }
      if (options.empty()) {
        return Status(ErrorCode::kNoQueryExecutionPlans, "No query solutions");
      }
      auto best = std::min_element(options.begin(), options.end(), [](const QueryPlan& a,
                                                                       const QueryPlan& b) {
        return Rank(a) < Rank(b);
      });
      choice.winner = std::move(*best);
      return choice;
    }
    choice.winner = Single(*BuildIndexPlan(hinted, filter, request, true));
    Cost(&choice.winner, request, count_keys);
    return choice;
  }

  std::vector<QueryPlan> candidates;
  for (IndexScanPlan& scan : IndexPlansFor(filter, request)) {
    candidates.push_back(Single(std::move(scan)));
  }
  const MatchExpression* or_node =
      filter->kind() == MatchKind::kOr && filter->num_children() > 0 ? filter : request.text_or;
  if (or_node != nullptr) {
    // One index scan per branch, each the cheapest of its branch; when the
    // query is sorted and every branch has a scan giving the sort, also the
    // SORT_MERGE of the cheapest such scans.
    QueryPlan or_plan;
    or_plan.kind = QueryPlan::Kind::kOr;
    QueryPlan merge_plan = or_plan;
    merge_plan.sort_merge = true;
    bool mergeable = Sorted(request) && request.text_branch == nullptr;
    bool same_choice = true;  // every branch's cheapest scan gives the sort
    bool every_branch_indexed = true;
    for (size_t i = 0; i < or_node->num_children(); ++i) {
      if (or_node->child(i) == request.text_branch) {
        for (const IndexScanPlan& scan : request.text_scans) or_plan.scans.push_back(scan);
        continue;
      }
      // Branches are planned for their own predicates: no sort, no covering.
      PlanRequest branch;
      branch.matcher = request.matcher;
      branch.indexes = request.indexes;
      branch.needs_documents = true;
      branch.collection_docs = request.collection_docs;
      std::vector<QueryPlan> options;
      for (IndexScanPlan& scan : IndexPlansFor(or_node->child(i), branch)) {
        options.push_back(Single(std::move(scan)));
      }
      if (options.empty()) {
        or_plan.scans.clear();
        every_branch_indexed = false;
        break;
      }
      for (QueryPlan& option : options) Cost(&option, branch, count_keys);
      auto by_rank = [](const QueryPlan& a, const QueryPlan& b) { return Rank(a) < Rank(b); };
      auto best = std::min_element(options.begin(), options.end(), by_rank);
      if (mergeable) {
        // The cheapest scan of this branch that gives the requested sort.
        std::optional<size_t> sorted_best;
        bool backward = false;
        for (size_t k = 0; k < options.size(); ++k) {
          bool reversed = false;
          const IndexScanPlan& scan = options[k].scans[0];
          if (!ProvidesSort(scan.shape, scan.bounds, request.sort, &reversed)) continue;
          if (!sorted_best || Rank(options[k]) < Rank(options[*sorted_best])) {
            sorted_best = k;
            backward = reversed;
          }
        }
        if (!sorted_best) {
          mergeable = false;
        } else {
          same_choice = same_choice && &options[*sorted_best] == &*best;
          IndexScanPlan scan = options[*sorted_best].scans[0];
          scan.provides_sort = true;
          scan.backward = backward;
          merge_plan.scans.push_back(std::move(scan));
        }
      }
      or_plan.scans.push_back(std::move(best->scans[0]));
    }
    if (request.text_branch != nullptr) {
      if (!every_branch_indexed) {
        return Status(ErrorCode::kNoQueryExecutionPlans,
                      or_node == filter
                          ? "Failed to produce a solution for TEXT under OR - other non-TEXT "
                            "clauses under OR have to be indexed as well."
                          : "No query solutions");
      }
      Cost(&or_plan, request, count_keys);
      choice.winner = std::move(or_plan);
      return choice;
    }
    if (every_branch_indexed && mergeable) {
      candidates.push_back(std::move(merge_plan));
      // The unsorted OR differs only when some branch's cheapest scan does
      // not give the sort.
      if (same_choice) or_plan.scans.clear();
    }
    if (!or_plan.scans.empty()) candidates.push_back(std::move(or_plan));
  }
  // As MongoDB's planner: a collection scan is a candidate only when no
  // index can answer the query (or $natural is hinted).
  if (candidates.empty()) candidates.emplace_back();  // COLLSCAN
  if (!request.distinct_key.empty()) {
    auto distinct = candidates.end();
    for (auto it = candidates.begin(); it != candidates.end(); ++it) {
      if (it->kind != QueryPlan::Kind::kIndexScan || !it->scans[0].distinct_scan) continue;
      if (distinct == candidates.end() ||
          it->scans[0].shape.fields.size() < distinct->scans[0].shape.fields.size()) {
        distinct = it;
      }
    }
    if (distinct != candidates.end()) {
      Cost(&*distinct, request, nullptr);
      choice.winner = std::move(*distinct);
      for (auto it = candidates.begin(); it != candidates.end(); ++it) {
        if (it != distinct) choice.rejected.push_back(std::move(*it));
      }
      return choice;
    }
  }
  if (request.cached_winner) {
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].Describe() != *request.cached_winner) continue;
      Cost(&candidates[i], request, nullptr);  // no key counts: only the sort flag matters
      choice.winner = std::move(candidates[i]);
      choice.from_cache = true;
      for (size_t j = 0; j < candidates.size(); ++j) {
        if (j != i) choice.rejected.push_back(std::move(candidates[j]));
      }
      return choice;
    }
  }
  for (QueryPlan& plan : candidates) Cost(&plan, request, count_keys);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const QueryPlan& a, const QueryPlan& b) { return Rank(a) < Rank(b); });
  choice.winner = std::move(candidates[0]);
  for (size_t i = 1; i < candidates.size(); ++i) choice.rejected.push_back(std::move(candidates[i]));
  return choice;
}

}  // namespace tigerdoc::query::planner
