#include "engine/query/planner/bounds_builder.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/query/matcher/array.h"
#include "engine/query/matcher/comparison.h"
#include "engine/query/matcher/evaluation.h"
#include "engine/query/matcher/logical.h"

namespace tigerdoc::query::planner {
namespace {

constexpr uint8_t kEmptyDocument[5] = {5, 0, 0, 0, 0};

OwnedValue Container(bson_type_t type) {
  bson_value_t v{};
  v.value_type = type;
  v.value.v_doc.data = const_cast<uint8_t*>(kEmptyDocument);
  v.value.v_doc.data_len = sizeof(kEmptyDocument);
  return OwnedValue(&v);
}

OwnedValue EmptyBinary() {
  static uint8_t none = 0;
  bson_value_t v{};
  v.value_type = BSON_TYPE_BINARY;
  v.value.v_binary.subtype = BSON_SUBTYPE_BINARY;
  v.value.v_binary.data = &none;
  v.value.v_binary.data_len = 0;
  return OwnedValue(&v);
}

OwnedValue Oid(uint8_t fill) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_OID;
  std::memset(v.value.v_oid.bytes, fill, sizeof(v.value.v_oid.bytes));
  return OwnedValue(&v);
}

OwnedValue Bool(bool b) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_BOOL;
  v.value.v_bool = b;
  return OwnedValue(&v);
}

OwnedValue Date(int64_t ms) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_DATE_TIME;
  v.value.v_datetime = ms;
  return OwnedValue(&v);
}

OwnedValue Timestamp(uint32_t t, uint32_t i) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_TIMESTAMP;
  v.value.v_timestamp.timestamp = t;
  v.value.v_timestamp.increment = i;
  return OwnedValue(&v);
}

OwnedValue Regex(const std::string& pattern, const std::string& flags) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_REGEX;
  v.value.v_regex.regex = const_cast<char*>(pattern.c_str());
  v.value.v_regex.options = const_cast<char*>(flags.c_str());
  return OwnedValue(&v);
}

// The values of one canonical type, as MongoDB's type-bracketed range
// predicates see them: {$gt: 5} ranges up to the largest number, not into
// the strings.
struct Bracket {
  OwnedValue lo;
  bool lo_inclusive;
  OwnedValue hi;
  bool hi_inclusive;
};

std::optional<Bracket> BracketOf(const bson_value_t* v) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (v->value_type) {
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128:
      // NaN sorts below -inf and compares with nothing: outside the bracket.
      return Bracket{DoubleValue(-inf), true, DoubleValue(inf), true};
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
      return Bracket{StringValue(""), true, Container(BSON_TYPE_DOCUMENT), false};
    case BSON_TYPE_DOCUMENT:
      return Bracket{Container(BSON_TYPE_DOCUMENT), true, Container(BSON_TYPE_ARRAY), false};
    case BSON_TYPE_BINARY:
      return Bracket{EmptyBinary(), true, Oid(0), false};
    case BSON_TYPE_OID:
      return Bracket{Oid(0), true, Oid(0xFF), true};
    case BSON_TYPE_BOOL:
      return Bracket{Bool(false), true, Bool(true), true};
    case BSON_TYPE_DATE_TIME:
      return Bracket{Date(INT64_MIN), true, Date(INT64_MAX), true};
    case BSON_TYPE_TIMESTAMP:
      return Bracket{Timestamp(0, 0), true, Timestamp(UINT32_MAX, UINT32_MAX), true};
    default:
      // Arrays, regexes, code, DBPointer: MongoDB does not bound these.
      return std::nullopt;
  }
}

bool IsNaN(const bson_value_t* v) {
  if (v->value_type == BSON_TYPE_DOUBLE) return std::isnan(v->value.v_double);
  if (v->value_type == BSON_TYPE_DECIMAL128) {
    bson_decimal128_t d = v->value.v_decimal128;
    char text[BSON_DECIMAL128_STRING];
    bson_decimal128_to_string(&d, text);
    return std::strstr(text, "NaN") != nullptr;
  }
  return false;
}

OrderedIntervalList List(std::vector<Interval> intervals) {
  return OrderedIntervalList(std::move(intervals));
}

OrderedIntervalList NullPoints() {
  return List({Interval::Point(UndefinedValue().get()), Interval::Point(NullValue().get())});
}

// {path: v} and the members of $in.
LeafBounds EqualityBounds(const bson_value_t* v) {
  if (v->value_type == BSON_TYPE_NULL) {
    // Missing fields and undefined key as null / undefined, and arrays
    // without elements as undefined: all need the document to tell apart.
    return LeafBounds{NullPoints(), Tightness::kInexactFetch};
  }
  if (v->value_type == BSON_TYPE_ARRAY) {
    // {a: [1, 2]} matches a == [1, 2] and arrays holding [1, 2]; a
    // multikey index holds the first element 1 for the former.
    std::vector<Interval> points{Interval::Point(v)};
    bson_iter_t it;
    if (bson_iter_init_from_data(&it, v->value.v_doc.data, v->value.v_doc.data_len) &&
        bson_iter_next(&it)) {
      points.push_back(Interval::Point(bson_iter_value(&it)));
    } else {
      points.push_back(Interval::Point(UndefinedValue().get()));
    }
    return LeafBounds{List(std::move(points)), Tightness::kInexactFetch};
  }
  return LeafBounds{List({Interval::Point(v)}), Tightness::kExact};
}

std::optional<LeafBounds> RangeBounds(MatchKind kind, const bson_value_t* v) {
  const bool inclusive = kind == MatchKind::kLte || kind == MatchKind::kGte;
  const bool upper = kind == MatchKind::kLt || kind == MatchKind::kLte;
  const OwnedValue min_key = MinKeyValue(), max_key = MaxKeyValue();
  switch (v->value_type) {
    case BSON_TYPE_MINKEY:
      // Everything is above MinKey; nothing below.
      if (upper) {
        return LeafBounds{inclusive ? List({Interval::Point(v)}) : OrderedIntervalList(),
                          Tightness::kExact};
      }
      return LeafBounds{List({Interval::Make(v, inclusive, max_key.get(), true)}), Tightness::kExact};
    case BSON_TYPE_MAXKEY:
      if (!upper) {
        return LeafBounds{inclusive ? List({Interval::Point(v)}) : OrderedIntervalList(),
                          Tightness::kExact};
      }
      return LeafBounds{List({Interval::Make(min_key.get(), true, v, inclusive)}), Tightness::kExact};
    case BSON_TYPE_NULL:
      // Null is a bracket of its own: $lte/$gte null are equality to null.
      if (inclusive) return EqualityBounds(v);
      return LeafBounds{OrderedIntervalList(), Tightness::kExact};
    default:
      break;
  }
  if (IsNaN(v)) {
    // NaN is neither below nor above anything; $lte/$gte NaN match NaN.
    return LeafBounds{inclusive ? List({Interval::Point(v)}) : OrderedIntervalList(),
                      Tightness::kExact};
  }
  std::optional<Bracket> bracket = BracketOf(v);
  if (!bracket) return std::nullopt;
  Interval interval = upper ? Interval::Make(bracket->lo.get(), bracket->lo_inclusive, v, inclusive)
                            : Interval::Make(v, inclusive, bracket->hi.get(), bracket->hi_inclusive);
  return LeafBounds{List({std::move(interval)}), Tightness::kExact};
}

// The smallest string above every string starting with `prefix`; empty
// when there is none (the prefix is all 0xFF bytes).
std::string StringSuccessor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xFF) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

LeafBounds RegexBounds(const RegexExpression& regex) {
  // A stored regex matches only an identical one: its own point.
  Interval self = Interval::Point(Regex(regex.pattern(), regex.flags()).get());
  std::optional<RegexPrefix> prefix = AnchoredRegexPrefix(regex.pattern(), regex.flags());
  OwnedValue all_strings_end = Container(BSON_TYPE_DOCUMENT);
  // Under a collation, strings with a byte prefix are not a range of
  // collation keys: scan every string and let the filter decide (MongoDB's
  // planner does the same for a collated index).
  if (ScopedBoundsCollator::Current() != nullptr) {
    Interval strings = Interval::Make(StringValue("").get(), true, all_strings_end.get(), false);
    return LeafBounds{List({std::move(strings), std::move(self)}), Tightness::kInexactCovered};
  }
  if (!prefix || prefix->prefix.empty()) {
    Interval strings = Interval::Make(StringValue("").get(), true, all_strings_end.get(), false);
    return LeafBounds{List({std::move(strings), std::move(self)}),
                      prefix && prefix->exact ? Tightness::kExact : Tightness::kInexactCovered};
  }
  std::string successor = StringSuccessor(prefix->prefix);
  Interval strings = successor.empty()
                         ? Interval::Make(StringValue(prefix->prefix).get(), true,
                                          all_strings_end.get(), false)
                         : Interval::Make(StringValue(prefix->prefix).get(), true,
                                          StringValue(successor).get(), false);
  return LeafBounds{List({std::move(strings), std::move(self)}),
                    prefix->exact ? Tightness::kExact : Tightness::kInexactCovered};
}

// Whether a translated child may be complemented for a negation: its
// bounds must be the exact set of matching values. Equality to null is
// inexact only because of missing/undefined/empty arrays, all of which the
// complement rightly excludes when the field never held an array.
bool Complementable(const MatchExpression& child, const LeafBounds& bounds) {
  if (bounds.tightness == Tightness::kExact) return true;
  if (child.kind() == MatchKind::kEq) {
    return static_cast<const ComparisonExpression&>(child).rhs().type() == BSON_TYPE_NULL;
  }
  if (child.kind() == MatchKind::kIn) {
    const auto& in = static_cast<const InExpression&>(child);
    if (in.has_regexes()) return false;
    for (const OwnedValue& v : in.equalities()) {
      if (v.type() == BSON_TYPE_ARRAY) return false;
    }
    return true;
  }
  return false;
}

std::optional<LeafBounds> TranslateNot(const MatchExpression& not_expr, const FieldContext& field) {
  const MatchExpression* child = not_expr.child(0);
  // $not: {...} parses to Not(And(children)); one child is the common case.
  if (child->kind() == MatchKind::kAnd && child->num_children() == 1) child = child->child(0);
  if (child->kind() == MatchKind::kExists) {
    // {$exists: false}: missing keys as null (a sparse index cannot help;
    // the planner checks that apart).
    return LeafBounds{List({Interval::Point(NullValue().get())}), Tightness::kInexactFetch};
  }
  switch (child->kind()) {
    case MatchKind::kEq:
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte:
    case MatchKind::kIn:
      break;
    default:
      return std::nullopt;  // $not of a regex, $mod, ... : not indexable
  }
  std::optional<LeafBounds> inner = TranslatePredicate(*child, FieldContext{});
  if (!inner || !Complementable(*child, *inner)) return std::nullopt;
  if (!field.multikey) return LeafBounds{inner->oil.Complement(), Tightness::kExact};
  // An empty array keys as undefined and satisfies every negation ({a: []}
  // has no element equal to null, or to anything): keep that key in. So
  // does a null key made by a path that goes on through an array ({"a.b"}
  // over {a: []} or {a: ["x"]} keys null, yet a.b has no value there and
  // {$ne: null} matches): keep null in too.
  std::vector<Interval> kept{Interval::Point(UndefinedValue().get())};
  if (field.array_before_leaf) kept.push_back(Interval::Point(NullValue().get()));
  return LeafBounds{inner->oil.Complement().Union(OrderedIntervalList(std::move(kept))),
                    Tightness::kInexactFetch};
}

}  // namespace

std::optional<RegexPrefix> AnchoredRegexPrefix(const std::string& pattern, const std::string& flags) {
  for (char f : flags) {
    // 's' only changes what '.' matches; the others change what '^' or the
    // literal characters mean.
    if (f != 's') return std::nullopt;
  }
  size_t pos;
  if (pattern.rfind("^", 0) == 0) {
    pos = 1;
  } else if (pattern.rfind("\\A", 0) == 0) {
    pos = 2;
  } else {
    return std::nullopt;
  }
  if (pattern.find('|') != std::string::npos) return std::nullopt;
  RegexPrefix out;
  auto is_meta = [](char c) { return std::strchr("\\^$.[]()|?*+{}", c) != nullptr; };
  while (pos < pattern.size()) {
    char c = pattern[pos];
    if (c == '\\') {
      // An escaped punctuation character is itself; \d, \w, \Q... are not
      // literals.
      if (pos + 1 < pattern.size() && !std::isalnum(static_cast<unsigned char>(pattern[pos + 1])) &&
          pattern[pos + 1] != '\0') {
        out.prefix.push_back(pattern[pos + 1]);
        pos += 2;
        continue;
      }
      return out;
    }
    if (is_meta(c)) {
      // A quantifier that allows zero repetitions makes the last literal
      // optional.
      if ((c == '*' || c == '?' || c == '{') && !out.prefix.empty()) out.prefix.pop_back();
      return out;
    }
    out.prefix.push_back(c);
    ++pos;
  }
  out.exact = flags.empty();
  return out;
}

std::optional<LeafBounds> TranslatePredicate(const MatchExpression& expr, const FieldContext& field) {
  switch (expr.kind()) {
    case MatchKind::kEq:
      return EqualityBounds(static_cast<const ComparisonExpression&>(expr).rhs().get());
    case MatchKind::kLt:
    case MatchKind::kLte:
    case MatchKind::kGt:
    case MatchKind::kGte: {
      const bson_value_t* v = static_cast<const ComparisonExpression&>(expr).rhs().get();
      if (v->value_type == BSON_TYPE_ARRAY) return std::nullopt;
      return RangeBounds(expr.kind(), v);
    }
    case MatchKind::kIn: {
      const auto& in = static_cast<const InExpression&>(expr);
      LeafBounds out{OrderedIntervalList(), Tightness::kExact};
      for (const OwnedValue& v : in.equalities()) {
        LeafBounds one = EqualityBounds(v.get());
        out.oil = out.oil.Union(one.oil);
        out.tightness = Loosest(out.tightness, one.tightness);
      }
      for (const auto& regex : in.regexes()) {
        LeafBounds one = RegexBounds(*regex);
        out.oil = out.oil.Union(one.oil);
        out.tightness = Loosest(out.tightness, one.tightness);
      }
      return out;
    }
    case MatchKind::kRegex:
      return RegexBounds(static_cast<const RegexExpression&>(expr));
    case MatchKind::kExists:
      return LeafBounds{OrderedIntervalList::AllValues(),
                        field.sparse_single_field ? Tightness::kExact : Tightness::kInexactFetch};
    case MatchKind::kNot:
      return TranslateNot(expr, field);
    case MatchKind::kElemMatchValue: {
      // Every child holds for one and the same element: the bounds
      // intersect even on a multikey field. The array itself must be
      // checked, so never exact.
      const auto& elem_match = static_cast<const ElemMatchValueExpression&>(expr);
      std::optional<OrderedIntervalList> oil;
      for (const auto& child : elem_match.children()) {
        // A nested $elemMatch constrains the elements of an element that is
        // itself an array, and a multikey index keeps such an element whole
        // ({a: [[5]]} keys as [5]): no bounds on the element can come of it.
        if (child->kind() == MatchKind::kElemMatchValue ||
            child->kind() == MatchKind::kElemMatchObject) {
          continue;
        }
        std::optional<LeafBounds> one = TranslatePredicate(*child, FieldContext{true, false});
        if (!one) continue;
        oil = oil ? oil->Intersect(one->oil) : std::move(one->oil);
      }
      if (!oil) return std::nullopt;
      return LeafBounds{std::move(*oil), Tightness::kInexactFetch};
    }
    default:
      return std::nullopt;
  }
}

}  // namespace tigerdoc::query::planner
