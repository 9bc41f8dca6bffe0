#pragma once
// UpdateObjectNode: an interior node of the update tree (see update_node.h):
// one path component, with children keyed by the next component in
// MongoDB's order (numeric names numerically, others bytewise), each either
// another UpdateObjectNode or a ModifierNode.
//
// Thread-safety: immutable after parsing.

#include <map>
#include <memory>
#include <string>
#include <variant>

#include "engine/base/status.h"
#include "engine/bson/field_path.h"
#include "engine/update/update_node.h"

namespace tigerdoc::update {

// MongoDB's ordering of sibling path components (cmpPathsAndArrayIndexes):
// two all-digit names compare as numbers, anything else bytewise.
struct PathComponentLess {
  bool operator()(const std::string& a, const std::string& b) const;
};

class UpdateObjectNode {
 public:
  using Child = std::variant<std::unique_ptr<UpdateObjectNode>, std::unique_ptr<ModifierNode>>;

  // Adds `modifier` at `path`. Fails with ConflictingUpdateOperators (40)
  // "Updating the path 'a.b' would create a conflict at 'a'" when another
  // modifier already targets the path, a prefix of it, or a path below it.
  Status AddModifier(const bson::FieldPath& path, std::unique_ptr<ModifierNode> modifier);

  // Applies the subtree to `container` (a document, or an array reached by
  // numeric components). `prefix` is the dotted path of `container` ("" at
  // the root) and `container_name` its field name, for messages.
  Status ApplyTo(MutableValue* container, const std::string& prefix,
                 const std::string& container_name, const ApplyContext& ctx) const;

  // The document the subtree would create where its field is missing, or
  // nullopt when it creates nothing (only no-op modifiers below).
  StatusWith<std::optional<MutableValue>> BuildMissing(const std::string& prefix,
                                                       const ApplyContext& ctx) const;

  // Whether any modifier below can create fields.
  bool CreatesFields() const;
  // The full path of the first modifier below (for _id messages).
  std::string FirstModifierPath(const std::string& prefix) const;

  const std::map<std::string, Child, PathComponentLess>& children() const { return children_; }

 private:
  std::map<std::string, Child, PathComponentLess> children_;
};

}  // namespace tigerdoc::update
