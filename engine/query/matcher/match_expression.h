#pragma once
// MatchExpression: one node of a parsed query filter (MongoDB's
// MatchExpression tree). The parser (parser.h) builds the tree through the
// operator table (operator_table.h); each family of operators lives in its
// own file pair: comparison, logical, element, array, evaluation.
//
//   {a: {$gt: 1, $lt: 5}, $or: [{b: 1}, {c: {$exists: false}}]}
//
//                        And
//          ┌──────────┬───┴────────┐
//        Gt(a,1)    Lt(a,5)        Or
//                              ┌────┴─────┐
//                           Eq(b,1)    Not
//                                       │
//                                   Exists(c)
//
// Two ways to evaluate a node:
//  * Matches(doc): against a whole document (paths resolved from its root).
//  * MatchesValue(v): against one value with no path resolution; this is how
//    the children of a value-form $elemMatch ({$elemMatch: {$gt: 1}}) and
//    the leaves under $in/$all see array elements. `v` is nullptr for
//    "missing". Nodes that only make sense on documents ($and of
//    full-document filters, ...) delegate or return false.
//
// Thread-safety: immutable after parsing; concurrent Matches() calls are safe.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/bson/collator.h"
#include "engine/bson/field_path.h"
#include "engine/query/matcher/match_details.h"

namespace tigerdoc::query {

enum class MatchKind {
  kAnd, kOr, kNor, kNot, kAlwaysTrue, kAlwaysFalse,  // logical
  kEq, kLt, kLte, kGt, kGte, kIn,                    // comparison
  kExists, kType,                                    // element
  kSize, kElemMatchObject, kElemMatchValue,          // array
  kRegex, kMod,                                      // evaluation
  kBitsAllSet, kBitsAllClear, kBitsAnySet, kBitsAnyClear,  // bitwise
  kExpr,                                             // $expr (expr.h)
  kJsonSchema,                                       // $jsonSchema (json_schema.h)
  kText,                                             // $text (text.h)
};

class MatchExpression {
 public:
  explicit MatchExpression(MatchKind kind) : kind_(kind) {}
  virtual ~MatchExpression() = default;
  MatchExpression(const MatchExpression&) = delete;
  MatchExpression& operator=(const MatchExpression&) = delete;

  MatchKind kind() const { return kind_; }

  virtual bool Matches(const bson_t* doc) const = 0;
  virtual bool MatchesValue(const bson_iter_t* value) const = 0;

  // The same, also recording into `details` (when not null) which array
  // element made the match (match_details.h). Nodes that never record keep
  // these defaults; `details` may be null.
  virtual bool MatchesWithDetails(const bson_t* doc, MatchDetails* details) const {
    (void)details;
    return Matches(doc);
  }
  virtual bool MatchesValueWithDetails(const bson_iter_t* value, MatchDetails* details) const {
    (void)details;
    return MatchesValue(value);
  }

  // Makes string comparisons of this subtree follow `collator` (nullptr:
  // binary). Called once, by Matcher::Parse, before any evaluation; nodes
  // that compare values keep it, the others pass it to their children.
  virtual void AttachCollator(const bson::Collator* collator) {
    for (size_t i = 0; i < num_children(); ++i) {
      const_cast<MatchExpression*>(child(i))->AttachCollator(collator);
    }
  }

  // Children of logical nodes (empty for leaves).
  virtual size_t num_children() const { return 0; }
  virtual const MatchExpression* child(size_t) const { return nullptr; }

 private:
  MatchKind kind_;
};

using MatchExpressionPtr = std::unique_ptr<MatchExpression>;

// A predicate on the values at one path (MongoDB's LeafMatchExpression):
// Matches(doc) is true when MatchesValue() holds for any value VisitPath()
// yields. An empty path (children of value-form $elemMatch) is only ever
// evaluated through MatchesValue().
class PathMatchExpression : public MatchExpression {
 public:
  PathMatchExpression(MatchKind kind, std::string path, bson::LeafArrays leaf_arrays)
      : MatchExpression(kind), path_(path), leaf_arrays_(leaf_arrays) {}

  const bson::FieldPath& path() const { return path_; }
  bool Matches(const bson_t* doc) const override;
  // Records the position in the outermost array implicitly traversed on
  // the path (or what MatchesValueWithDetails recorded, for $elemMatch).
  bool MatchesWithDetails(const bson_t* doc, MatchDetails* details) const override;

 private:
  // MatchesWithDetails for the rest of the path, components [start, size),
  // inside `doc` (bson::VisitPathFrom's walk, recording positions).
  bool MatchesFrom(const bson_t* doc, size_t start, MatchDetails* details) const;
  // The same once an array was met at component `index`.
  bool MatchesThroughArray(const bson_iter_t* array, size_t index, MatchDetails* details) const;

  bson::FieldPath path_;
  bson::LeafArrays leaf_arrays_;
};

}  // namespace tigerdoc::query
