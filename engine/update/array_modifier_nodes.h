#pragma once
// The array modifier nodes: $push (with $each, $position, $sort, $slice),
// $addToSet, $pop, and the array-culling $pull / $pullAll. Argument checks
// live in the modifier table's parsers; the messages and codes of the
// checks made here, on the document, are MongoDB's
// (src/mongo/db/update/{push,addtoset,pop,pull,pullall}_node.cpp):
//
//   $push on a non-array      BadValue 2     "The field 'a' must be an array but is of type
//                                            int in document {_id: 1}"
//   $addToSet on a non-array  BadValue 2     "Cannot apply $addToSet to non-array field.
//                                            Field named 'a' has non-array type int"
//   $pop on a non-array       TypeMismatch 14 "Path 'a' contains an element of non-array
//                                            type 'int'"
//   $pull/$pullAll, non-array BadValue 2     "Cannot apply $pull to a non-array value"
//
// A missing field is created by $push / $addToSet, and left alone by $pop,
// $pull and $pullAll. Values compare in BSON order across numeric types
// (1, 1.0 and NumberLong(1) are equal). Contracts as update_node.h.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/bson/field_path.h"
#include "engine/query/matcher/matcher.h"
#include "engine/update/update_node.h"

namespace tigerdoc::update {

// How $push's $sort orders the array (MongoDB's PatternElementCmp).
struct PushSort {
  // $sort: 1 / -1: whole elements in BSON order.
  bool whole_value = true;
  int direction = 1;
  // $sort: {field: 1/-1, ...}: by the values at these dotted paths, field
  // after field (a missing value, or an element that is no document,
  // sorts as null).
  std::vector<std::pair<bson::FieldPath, int>> fields;
};

class PushNode : public ModifierNode {
 public:
  PushNode(std::vector<MutableValue> values, std::optional<int64_t> position,
           std::optional<PushSort> sort, std::optional<int64_t> slice)
      : values_(std::move(values)), position_(position), sort_(std::move(sort)), slice_(slice) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;

 private:
  std::vector<MutableValue> values_;
  std::optional<int64_t> position_;
  std::optional<PushSort> sort_;
  std::optional<int64_t> slice_;
};

class AddToSetNode : public ModifierNode {
 public:
  // Duplicates among `values` are dropped (the first is kept).
  explicit AddToSetNode(std::vector<MutableValue> values);
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;

 private:
  std::vector<MutableValue> values_;
};

class PopNode : public ModifierNode {
 public:
  explicit PopNode(bool from_front) : from_front_(from_front) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;
  MissingPathPolicy OnMissingPath(const ApplyContext&) const override {
    return MissingPathPolicy::kCheckViable;
  }

 private:
  bool from_front_;
};

// $pull and $pullAll: removes every element the condition selects.
class PullNode : public ModifierNode {
 public:
  // $pull: {a: {b: 1, c: {$gt: 2}}}: a query on each document element;
  // other elements never match.
  static std::unique_ptr<PullNode> DocumentQuery(std::shared_ptr<const query::Matcher> matcher);
  // $pull: {a: {$gte: 6}} or {a: /re/}: the condition tested on each
  // element itself. REQUIRES: `matcher` parsed from {"": <condition>}.
  static std::unique_ptr<PullNode> ElementQuery(std::shared_ptr<const query::Matcher> matcher);
  // $pull: {a: 5}, $pullAll: {a: [5, 6]}: elements equal to any value.
  static std::unique_ptr<PullNode> AnyOf(std::vector<MutableValue> values);

  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;
  MissingPathPolicy OnMissingPath(const ApplyContext&) const override {
    return MissingPathPolicy::kCheckViable;
  }

 private:
  enum class Mode { kDocumentQuery, kElementQuery, kAnyOf };
  explicit PullNode(Mode mode) : mode_(mode) {}
  bool Selects(const MutableValue& element) const;

  Mode mode_;
  std::shared_ptr<const query::Matcher> matcher_;
  std::vector<MutableValue> values_;
};

}  // namespace tigerdoc::update
