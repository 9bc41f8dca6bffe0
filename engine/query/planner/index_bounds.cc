#include "engine/query/planner/index_bounds.h"

#include <algorithm>

#include "engine/query/matcher/array.h"
#include "engine/bson/field_path.h"
#include "engine/index/wildcard.h"
#include "engine/query/matcher/comparison.h"

namespace tigerdoc::query::planner {
namespace {

// The collator field `i`'s keys are encoded with.
const bson::Collator* FieldCollator(const IndexShape& index, size_t i) {
  return index.fields[i].never_collated ? nullptr : index.collator;
}

// The path a predicate constrains: a path predicate's own, or that of the
// one predicate under a Not ($ne, $nin, $not, {$exists: false}).
const std::string* PredicatePath(const MatchExpression* expr) {
  if (expr->kind() == MatchKind::kNot) {
    const MatchExpression* child = expr->child(0);
    if (child->kind() == MatchKind::kAnd && child->num_children() == 1) child = child->child(0);
    expr = child;
  }
  switch (expr->kind()) {
    case MatchKind::kAnd:
    case MatchKind::kOr:
    case MatchKind::kNor:
    case MatchKind::kNot:
    case MatchKind::kAlwaysTrue:
    case MatchKind::kAlwaysFalse:
    // Whole-document predicates: not PathMatchExpressions, no bounds.
    case MatchKind::kExpr:
    case MatchKind::kJsonSchema:
    case MatchKind::kText:
      return nullptr;
    default:
      return &static_cast<const PathMatchExpression*>(expr)->path().dotted();
  }
}

// One predicate on one path. Predicates inside {a: {$elemMatch: {b: ...}}}
// carry the full path "a.b" and the $elemMatch they belong to (`group`).
struct Predicate {
  const MatchExpression* expr;
  std::string path;
  int group;  // -1: a conjunct of its own
  size_t conjunct;
};

struct Conjunction {
  std::vector<const MatchExpression*> conjuncts;
  std::vector<Predicate> predicates;
};

void FlattenAnd(const MatchExpression* expr, std::vector<const MatchExpression*>* out) {
  if (expr->kind() == MatchKind::kAnd) {
    for (size_t i = 0; i < expr->num_children(); ++i) FlattenAnd(expr->child(i), out);
  } else {
    out->push_back(expr);
  }
}

std::string FirstComponent(const std::string& path) { return path.substr(0, path.find('.')); }

std::string LastComponent(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

bool HasPositionalComponent(const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string::npos) dot = path.size();
    if (start > 0 && bson::ParseArrayIndex(std::string_view(path).substr(start, dot - start))) {
      return true;
    }
    start = dot + 1;
  }
  return false;
}

Conjunction Collect(const MatchExpression* root) {
  Conjunction out;
  FlattenAnd(root, &out.conjuncts);
  int next_group = 0;
  for (size_t i = 0; i < out.conjuncts.size(); ++i) {
    const MatchExpression* c = out.conjuncts[i];
    if (c->kind() == MatchKind::kElemMatchObject) {
      const auto* elem_match = static_cast<const ElemMatchObjectExpression*>(c);
      const int group = next_group++;
      std::vector<const MatchExpression*> inner;
      FlattenAnd(elem_match->sub(), &inner);
      for (const MatchExpression* sub : inner) {
        if (sub->kind() == MatchKind::kElemMatchObject) continue;  // nested: no bounds
        const std::string* path = PredicatePath(sub);
        if (path == nullptr || path->empty()) continue;
        // {a: {$elemMatch: {"0": 5}}} reads an element that is an array by
        // position, whatever its place in `a`; an index on "a.0" holds a[0]
        // only: no bounds.
        if (bson::ParseArrayIndex(FirstComponent(*path))) continue;
        out.predicates.push_back(
            Predicate{sub, elem_match->path().dotted() + "." + *path, group, i});
      }
      continue;
    }
    if (const std::string* path = PredicatePath(c)) {
      out.predicates.push_back(Predicate{c, *path, -1, i});
    }
  }
  return out;
}

// Whether `expr` says the same of a null value as of a missing field, so it
// can be checked on index key values (where missing reads as null).
bool SameOnNullAndMissing(const MatchExpression* expr) {
  bson_t doc = BSON_INITIALIZER;
  BSON_APPEND_NULL(&doc, "");
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  bson_iter_next(&it);
  bool same = expr->MatchesValue(&it) == expr->MatchesValue(nullptr);
  bson_destroy(&doc);
  return same;
}

// Hashed key fields hold hashes: equality points map through the hash;
// nothing else can use them, and a hash match is never exact.
std::optional<LeafBounds> HashedBounds(const MatchExpression& expr, const IndexShape& index) {
  if (!index.hash) return std::nullopt;
  std::vector<const OwnedValue*> values;
  if (expr.kind() == MatchKind::kEq) {
    values.push_back(&static_cast<const ComparisonExpression&>(expr).rhs());
  } else if (expr.kind() == MatchKind::kIn) {
    const auto& in = static_cast<const InExpression&>(expr);
    if (in.has_regexes()) return std::nullopt;
    for (const OwnedValue& v : in.equalities()) values.push_back(&v);
  } else {
    return std::nullopt;
  }
  std::vector<Interval> points;
  for (const OwnedValue* v : values) {
    // Arrays cannot be hashed-indexed; null also finds missing fields.
    if (v->type() == BSON_TYPE_ARRAY) return std::nullopt;
    OwnedValue hash = index.hash(*v);
    points.push_back(Interval::Point(hash.get()));
  }
  return LeafBounds{OrderedIntervalList(std::move(points)), Tightness::kInexactFetch};
}

}  // namespace

IndexBounds IndexBounds::AllValues(size_t num_fields) {
  IndexBounds out;
  out.fields.assign(num_fields, OrderedIntervalList::AllValues());
  return out;
}

bool IndexBounds::IsEmpty() const {
  return std::any_of(fields.begin(), fields.end(),
                     [](const OrderedIntervalList& oil) { return oil.empty(); });
}

std::vector<KeyRange> IndexBounds::ToKeyRanges(const IndexShape& index,
                                               size_t* fields_enforced) const {
  std::vector<KeyRange> ranges;
  *fields_enforced = 0;
  if (IsEmpty()) {
    *fields_enforced = fields.size();
    return ranges;
  }
  // Intervals of one field in index order: reversed for a descending field.
  auto in_index_order = [&](size_t i) {
    std::vector<const Interval*> out;
    for (const Interval& iv : fields[i].intervals()) out.push_back(&iv);
    if (index.fields[i].direction == keystring::Direction::kDescending) {
      std::reverse(out.begin(), out.end());
    }
    return out;
  };
  std::vector<std::string> prefixes{""};
  size_t compounded = 0;  // leading fields folded into `prefixes`
  for (; compounded < fields.size(); ++compounded) {
    const size_t i = compounded;
    const keystring::Direction dir = index.fields[i].direction;
    const bool descending = dir == keystring::Direction::kDescending;
    std::vector<const Interval*> intervals = in_index_order(i);
    if (prefixes.size() * intervals.size() > kMaxScanRanges) break;  // scan the prefixes whole
    if (fields[i].AllPoints()) {
      std::vector<std::string> longer;
      for (const std::string& prefix : prefixes) {
        for (const Interval* point : intervals) {
          keystring::KeyBuilder key(FieldCollator(index, i));
          key.AppendEncoded(prefix);
          key.Append(point->start.get(), dir);
          longer.push_back(key.Release());
        }
      }
      prefixes = std::move(longer);
      continue;
    }
    // The last field the ranges enforce: one range per prefix and interval.
    for (const std::string& prefix : prefixes) {
      for (const Interval* iv : intervals) {
        const OwnedValue& lo = descending ? iv->end : iv->start;
        const OwnedValue& hi = descending ? iv->start : iv->end;
        const bool lo_inclusive = descending ? iv->end_inclusive : iv->start_inclusive;
        const bool hi_inclusive = descending ? iv->start_inclusive : iv->end_inclusive;
        keystring::KeyBuilder lo_key(FieldCollator(index, i)), hi_key(FieldCollator(index, i));
        lo_key.AppendEncoded(prefix);
        lo_key.Append(lo.get(), dir);
        hi_key.AppendEncoded(prefix);
        hi_key.Append(hi.get(), dir);
        KeyRange range;
        range.lower = lo_inclusive ? lo_key.Release() : keystring::PrefixSuccessor(lo_key.bytes());
        range.upper = hi_inclusive ? keystring::PrefixSuccessor(hi_key.bytes()) : hi_key.Release();
        if (range.lower.empty()) continue;  // nothing above an all-0xFF key
        if (!range.upper.empty() && range.lower >= range.upper) continue;
        ranges.push_back(std::move(range));
      }
    }
    *fields_enforced = i + 1;
    return ranges;
  }
  // Only points (or too many of them): each prefix is a range.
  *fields_enforced = compounded;
  for (const std::string& prefix : prefixes) {
    ranges.push_back(KeyRange{prefix, keystring::PrefixSuccessor(prefix)});
  }
  return ranges;
}

bool IndexBounds::KeyInBounds(const bson_t* key_values, const IndexShape& index,
                              size_t from_field) const {
  for (size_t i = from_field; i < fields.size(); ++i) {
    if (fields[i].IsAllValues()) continue;
    // Key values name fields by their dotted path, literally; a missing
    // field is absent and keys as null.
    bson_iter_t it;
    std::string key;
    std::string value_path = index.fields[i].path;
    if (index.fields[i].value_under_wildcard_path &&
        bson_iter_init_find(&it, key_values, index::kWildcardPathField) &&
        BSON_ITER_HOLDS_UTF8(&it)) {
      value_path = bson_iter_utf8(&it, nullptr);
    }
    if (bson_iter_init_find(&it, key_values, value_path.c_str())) {
      key = keystring::Encode(&it, FieldCollator(index, i));
    } else {
      keystring::KeyBuilder null_key;
      null_key.AppendNull();
      key = null_key.Release();
    }
    if (!fields[i].ContainsKey(key)) return false;
  }
  return true;
}

bson::BsonDoc IndexBounds::ToBson(const IndexShape& index, bool backward) const {
  bson::BsonDoc out;
  for (size_t i = 0; i < fields.size(); ++i) {
    bson_t list;
    bson_append_array_begin(out.mutable_get(), index.fields[i].path.c_str(), -1, &list);
    const bool reversed = (index.fields[i].direction == keystring::Direction::kDescending) != backward;
    std::vector<std::string> strings = fields[i].ToStrings(reversed);
    for (size_t j = 0; j < strings.size(); ++j) {
      std::string key = std::to_string(j);
      bson_append_utf8(&list, key.c_str(), -1, strings[j].c_str(), -1);
    }
    bson_append_array_end(out.mutable_get(), &list);
  }
  return out;
}

ConjunctionBounds BoundsForConjunction(const MatchExpression* root, const IndexShape& index) {
  ScopedBoundsCollator collation(index.collator);
  Conjunction conj = Collect(root);
  ConjunctionBounds out;
  out.bounds = IndexBounds::AllValues(index.fields.size());
  std::vector<bool> consumed(conj.conjuncts.size(), false);
  // Per field: the $elemMatch group its bounds came from (-1: none), and
  // whether it got bounds at all.
  std::vector<int> field_group(index.fields.size(), -1);
  std::vector<bool> field_bounded(index.fields.size(), false);

  for (size_t f = 0; f < index.fields.size(); ++f) {
    const IndexKeyField& field = index.fields[f];
    FieldContext context;
    context.multikey = field.multikey;
    context.array_before_leaf = field.array_before_leaf;
    context.sparse_single_field = index.sparse && index.fields.size() == 1;
    std::optional<OrderedIntervalList> oil;
    int group = -1;
    std::vector<std::pair<size_t, Tightness>> used;  // conjunct, tightness
    for (const Predicate& pred : conj.predicates) {
      if (pred.path != field.path) continue;
      // Multikey fields sharing a path prefix with a bounded field: only
      // within the same $elemMatch may their bounds be combined.
      bool conflict = false;
      for (size_t g = 0; g < f; ++g) {
        if (!field_bounded[g]) continue;
        if (FirstComponent(index.fields[g].path) != FirstComponent(field.path)) continue;
        if (!(field.multikey || index.fields[g].multikey)) continue;
        if (pred.group >= 0 && pred.group == field_group[g]) continue;
        conflict = true;
      }
      if (conflict) continue;
      // A positional index path holds the element at that position only,
      // while the matcher also reads the field named like the position in
      // every element ({"a.0": null} matches {a: [[1], {b: 1}]}, whose key
      // is [1]): a predicate a missing value satisfies gets no bounds there.
      if (HasPositionalComponent(field.path) && pred.expr->MatchesValue(nullptr)) continue;
      // An array reached by a position at the end of the path ({"a.0"}
      // over {a: [[1, 2]]}) is one key, kept whole, yet $elemMatch reads
      // its elements: element bounds would miss it.
      if (pred.expr->kind() == MatchKind::kElemMatchValue &&
          bson::ParseArrayIndex(LastComponent(field.path))) {
        continue;
      }
      std::optional<LeafBounds> leaf = field.hashed ? HashedBounds(*pred.expr, index)
                                                    : TranslatePredicate(*pred.expr, context);
      if (!leaf) continue;
      Tightness tightness = pred.group >= 0 ? Tightness::kInexactFetch : leaf->tightness;
      if (oil && field.multikey) {
        // A second predicate on a multikey field: its bounds may not
        // intersect with the first's (one element may satisfy each).
        continue;
      }
      oil = oil ? oil->Intersect(leaf->oil) : std::move(leaf->oil);
      if (group < 0) group = pred.group;
      used.emplace_back(pred.conjunct, tightness);
    }
    if (!oil) continue;
    out.bounds.fields[f] = std::move(*oil);
    field_bounded[f] = true;
    field_group[f] = group;
    if (f == 0) out.leading_field_bounded = true;
    for (const auto& [conjunct, tightness] : used) {
      if (tightness == Tightness::kExact && conj.conjuncts[conjunct]->kind() != MatchKind::kElemMatchObject) {
        consumed[conjunct] = true;
      }
    }
  }

  out.exact = true;
  out.coverable = true;
  for (size_t i = 0; i < conj.conjuncts.size(); ++i) {
    const MatchExpression* c = conj.conjuncts[i];
    if (consumed[i] || c->kind() == MatchKind::kAlwaysTrue) continue;
    out.exact = false;
    // Checkable on key values: a plain predicate on a key field that never
    // held an array and is not hashed, blind to null versus missing.
    bool checkable = false;
    switch (c->kind()) {
      case MatchKind::kNot:
      case MatchKind::kExists:
      case MatchKind::kType:
      case MatchKind::kSize:
      case MatchKind::kElemMatchObject:
      case MatchKind::kElemMatchValue:
        break;
      default:
        if (const std::string* path = PredicatePath(c)) {
          for (const IndexKeyField& field : index.fields) {
            if (field.path == *path && !field.multikey && !field.hashed) {
              checkable = SameOnNullAndMissing(c);
            }
          }
        }
    }
    if (!checkable) out.coverable = false;
  }

  if (index.sparse) {
    // Documents missing every key field have no entry: some predicate on a
    // key field must exclude a missing value.
    out.sparse_ok = false;
    for (const Predicate& pred : conj.predicates) {
      bool on_key = std::any_of(index.fields.begin(), index.fields.end(),
                                [&](const IndexKeyField& f) { return f.path == pred.path; });
      if (on_key && !pred.expr->MatchesValue(nullptr)) out.sparse_ok = true;
    }
  }
  return out;
}

bool QueryImplies(const MatchExpression* query, const MatchExpression* partial) {
  Conjunction q = Collect(query);
  std::vector<const MatchExpression*> needed;
  FlattenAnd(partial, &needed);
  for (const MatchExpression* p : needed) {
    if (p->kind() == MatchKind::kAlwaysTrue) continue;
    const std::string* path = PredicatePath(p);
    if (path == nullptr || p->kind() == MatchKind::kNot) return false;
    bool implied = false;
    if (p->kind() == MatchKind::kExists) {
      for (const Predicate& pred : q.predicates) {
        if (pred.path == *path && !pred.expr->MatchesValue(nullptr)) implied = true;
      }
    } else {
      std::optional<LeafBounds> want = TranslatePredicate(*p, FieldContext{});
      if (!want || want->tightness != Tightness::kExact) return false;
      for (const Predicate& pred : q.predicates) {
        if (pred.path != *path || pred.group >= 0 || pred.expr->kind() == MatchKind::kNot) continue;
        std::optional<LeafBounds> have = TranslatePredicate(*pred.expr, FieldContext{});
        if (have && have->tightness == Tightness::kExact && have->oil.IsSubsetOf(want->oil)) {
          implied = true;
        }
      }
    }
    if (!implied) return false;
  }
  return true;
}

}  // namespace tigerdoc::query::planner
