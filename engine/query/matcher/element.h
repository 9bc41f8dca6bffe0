#pragma once
// Element operators: $exists and $type. Contracts as match_expression.h.
// {$exists: false} is Not(Exists). $type tests each value the path yields,
// including a leaf array itself, so {$type: "array"} matches {a: [1]}.

#include <bson/bson.h>

#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/type_name.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class ExistsExpression : public PathMatchExpression {
 public:
  explicit ExistsExpression(std::string path)
      : PathMatchExpression(MatchKind::kExists, std::move(path), bson::LeafArrays::kTraverse) {}
  bool MatchesValue(const bson_iter_t* value) const override { return value != nullptr; }
};

class TypeExpression : public PathMatchExpression {
 public:
  // `types` are BSON type codes (-1 MinKey, 127 MaxKey); `all_numbers` is
  // the "number" alias.
  TypeExpression(std::string path, std::vector<int> types, bool all_numbers)
      : PathMatchExpression(MatchKind::kType, std::move(path), bson::LeafArrays::kTraverse),
        types_(std::move(types)),
        all_numbers_(all_numbers) {}

  // Parses the operand of $type: a type code, an alias ("string",
  // "number", ...) or an array of them. Errors as MongoDB.
  static StatusWith<std::unique_ptr<TypeExpression>> Parse(std::string path,
                                                          const bson_iter_t* operand);

  bool MatchesValue(const bson_iter_t* value) const override;

 private:
  std::vector<int> types_;
  bool all_numbers_;
};


}  // namespace tigerdoc::query
