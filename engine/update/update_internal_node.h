#pragma once
// UpdateInternalNode: an interior node of the update tree (see
// update_node.h), MongoDB's UpdateObjectNode and UpdateArrayNode in one
// class with a kind:
//
//  * kObject: one path component; children keyed by the next component in
//    MongoDB's order (numeric names numerically, others bytewise), plus
//    the positional child '$' (kept under the key "$"), which applies to
//    the field the query matched (ApplyContext::matched_field);
//  * kArray: the component before '$[]' / '$[<identifier>]'; children
//    keyed by identifier ("" for '$[]'), each applied to every element of
//    the array that its identifier's filter matches (all of them for
//    '$[]').
//
//   "a.$[i].b" and "a.$[].c" and "x.$"
//
//   root (object) ─┬─ a (array) ─┬─ ""  (object) ── c  leaf
//                  │             └─ "i" (object) ── b  leaf
//                  └─ x (object) ── "$" leaf
//
// When several children land on the same field (the positional child and
// the child named after the matched position; two identifiers matching one
// element), they are applied together, as MongoDB merges them: their
// children are united, and two leaves, or a leaf and anything else, or an
// object node and an array node, on one path are ConflictingUpdateOperators
// 40 "Update created a conflict at 'a.0'".
//
// Thread-safety: immutable after parsing; Apply may run concurrently.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>

#include "engine/base/status.h"
#include "engine/bson/field_path.h"
#include "engine/update/array_filters.h"
#include "engine/update/update_node.h"

namespace tigerdoc::update {

// MongoDB's ordering of sibling path components (cmpPathsAndArrayIndexes):
// two all-digit names compare as numbers, anything else bytewise.
struct PathComponentLess {
  bool operator()(const std::string& a, const std::string& b) const;
};

class UpdateInternalNode {
 public:
  enum class Kind { kObject, kArray };
  using Child = std::variant<std::unique_ptr<UpdateInternalNode>, std::unique_ptr<ModifierNode>>;

  explicit UpdateInternalNode(Kind kind) : kind_(kind) {}

  Kind kind() const { return kind_; }

  // Adds `modifier` at `path` (already checked by ValidateUpdatePath),
  // creating the internal nodes along it. Errors, as MongoDB's
  // parseAndMerge: ConflictingUpdateOperators 40 "Updating the path 'a.b'
  // would create a conflict at 'a'" when another modifier already targets
  // the path, a prefix of it, or a path below it, or when a component is
  // used both before '$[...]' and before a field name; BadValue 2 for
  // '$[...]' first in the path, or an identifier `array_filters` lacks
  // ("No array filter found for identifier 'x' in path 'a.$[x]'").
  // Identifiers used are added to `used_identifiers`.
  // REQUIRES: kind() == kObject (called on the root).
  Status AddModifier(const bson::FieldPath& path, std::unique_ptr<ModifierNode> modifier,
                     const ArrayFilters& array_filters, std::set<std::string>* used_identifiers);

  // Applies the tree rooted here to `doc`, a document.
  // REQUIRES: kind() == kObject (the root).
  Status ApplyToDocument(MutableValue* doc, const ApplyContext& ctx) const;

  // The full path of the first modifier below (for _id messages).
  std::string FirstModifierPath(const std::string& prefix) const;

  const std::map<std::string, Child, PathComponentLess>& children() const { return children_; }

 private:
  Kind kind_;
  std::map<std::string, Child, PathComponentLess> children_;
};

}  // namespace tigerdoc::update
