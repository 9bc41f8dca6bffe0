// Set operators: $setUnion $setIntersection $setDifference $setEquals
// $setIsSubset $anyElementTrue $allElementsTrue. Arrays are sets: duplicates
// are ignored and the output order is the order of first appearance.

#include <set>
#include <string>

#include "engine/agg/expressions/operator_table.h"

namespace tigerdoc::agg {
namespace {

// Keys of the distinct elements, and the elements in first-seen order.
// Under a collation, strings equal by it are one element (MongoDB's set
// operators compare with the operation's collation).
struct ValueSet {
  explicit ValueSet(const bson::Collator* c) : collator(c) {}
  const bson::Collator* collator;
  std::set<std::string> keys;
  std::vector<Value> ordered;
  void Add(const Value& v) {
    if (keys.insert(v.Key(collator)).second) ordered.push_back(v);
  }
  bool Has(const Value& v) const { return keys.count(v.Key(collator)) > 0; }
};

ValueSet SetOf(const Value& arr, const bson::Collator* collator) {
  ValueSet s(collator);
  for (const Value& e : arr.Elements()) s.Add(e);
  return s;
}

}  // namespace

StatusWith<ExpressionPtr> ParseSetOp(std::string_view name, const bson_iter_t* operand,
                                     ParseContext* ctx) {
  const bson::Collator* collator = ctx->context().collator;
  if (name == "$setUnion" || name == "$setIntersection") {
    bool is_union = name == "$setUnion";
    std::string op(name);
    return ParseNary(name, operand, ctx, 0, -1, [op, is_union, collator](std::vector<Value>& a) -> StatusWith<Value> {
      for (const Value& v : a) {
        if (v.nullish()) continue;
        if (!v.is_array()) {
          return Error(is_union ? 17043 : 17047, "All operands of " + op +
                                                     " must be arrays. One argument is of type: " +
                                                     v.TypeName());
        }
      }
      for (const Value& v : a) {
        if (v.nullish()) return Value::Null();
      }
      if (is_union) {
        ValueSet out(collator);
        for (const Value& v : a) {
          for (const Value& e : v.Elements()) out.Add(e);
        }
        return Value::Array(out.ordered);
      }
      if (a.empty()) return Value::Array({});
      ValueSet current = SetOf(a[0], collator);
      for (size_t i = 1; i < a.size(); ++i) {
        ValueSet other = SetOf(a[i], collator);
        ValueSet next(collator);
        for (const Value& e : current.ordered) {
          if (other.Has(e)) next.Add(e);
        }
        current = std::move(next);
      }
      return Value::Array(current.ordered);
    });
  }
  if (name == "$setDifference") {
    return ParseNary(name, operand, ctx, 2, 2, [collator](std::vector<Value>& a) -> StatusWith<Value> {
      if (a[0].nullish() || a[1].nullish()) return Value::Null();
      if (!a[0].is_array()) {
        return Error(17048, "both operands of $setDifference must be arrays. First argument is of type: " + a[0].TypeName());
      }
      if (!a[1].is_array()) {
        return Error(17049, "both operands of $setDifference must be arrays. Second argument is of type: " + a[1].TypeName());
      }
      ValueSet right = SetOf(a[1], collator);
      ValueSet out(collator);
      for (const Value& e : a[0].Elements()) {
        if (!right.Has(e)) out.Add(e);
      }
      return Value::Array(out.ordered);
    });
  }
  if (name == "$setEquals") {
    ASSIGN_OR_RETURN(auto args, ParseArgList(operand, ctx));
    if (args.size() < 2) {
      return Error(17045, "$setEquals needs at least two arguments had: " + std::to_string(args.size()));
    }
    return MakeNary(std::move(args), [collator](std::vector<Value>& a) -> StatusWith<Value> {
      std::set<std::string> first;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!a[i].is_array()) {
          return Error(17044, "All operands of $setEquals must be arrays. One argument is of type: " + a[i].TypeName());
        }
        ValueSet s = SetOf(a[i], collator);
        if (i == 0) {
          first = s.keys;
        } else if (s.keys != first) {
          return Value::Bool(false);
        }
      }
      return Value::Bool(true);
    });
  }
  if (name == "$setIsSubset") {
    return ParseNary(name, operand, ctx, 2, 2, [collator](std::vector<Value>& a) -> StatusWith<Value> {
      if (!a[0].is_array()) {
        return Error(17046, "both operands of $setIsSubset must be arrays. First argument is of type: " + a[0].TypeName());
      }
      if (!a[1].is_array()) {
        return Error(17042, "both operands of $setIsSubset must be arrays. Second argument is of type: " + a[1].TypeName());
      }
      ValueSet right = SetOf(a[1], collator);
      for (const Value& e : a[0].Elements()) {
        if (!right.Has(e)) return Value::Bool(false);
      }
      return Value::Bool(true);
    });
  }
  bool any = name == "$anyElementTrue";
  std::string op(name);
  return ParseNary(name, operand, ctx, 1, 1, [any, op](std::vector<Value>& a) -> StatusWith<Value> {
    if (!a[0].is_array()) {
      return Error(any ? 17041 : 17040, op + "'s argument must be an array, but is " + a[0].TypeName());
    }
    for (const Value& e : a[0].Elements()) {
      if (e.Truthy() == any) return Value::Bool(any);
    }
    return Value::Bool(!any);
  });
}

}  // namespace tigerdoc::agg
