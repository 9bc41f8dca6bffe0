#pragma once
// UpdateNode: one node of a parsed update (MongoDB's update tree,
// src/mongo/db/update/update_node.h). Interior nodes are UpdateObjectNode
// (one per path component, children in field-name order); leaves are
// ModifierNodes, one class per operator family ($set/$setOnInsert,
// $unset, $inc/$mul, $min/$max, $currentDate, $rename's two halves).
//
//   {$set: {"a.b": 1, c: 2}, $inc: {"a.d": 1}}
//
//   root (object) ─┬─ a (object) ─┬─ b  SetNode(1)
//                  │              └─ d  ArithmeticNode(+1)
//                  └─ c  SetNode(2)
//
// Applying walks the tree and the document together, in the tree's order,
// so fields an update creates are appended in field-name order, as MongoDB
// does.
//
// Thread-safety: immutable after parsing; Apply may run concurrently with
// distinct contexts.

#include <bson/bson.h>

#include <map>
#include <optional>
#include <string>

#include "engine/base/status.h"
#include "engine/update/mutable_document.h"

namespace tigerdoc::update {

// Per-Apply state shared by every node.
struct ApplyContext {
  bool is_upsert_insert = false;
  // "{_id: 1}" of the document being updated, for messages ("{}" if none).
  std::string id_string = "{}";
  // $rename sources, read from the original document before any change,
  // keyed by the source path. A missing source has no entry.
  std::map<std::string, MutableValue> rename_sources;
};

// What a modifier does to the field it targets.
struct ModifyOutcome {
  enum class Action { kNoop, kSet, kRemove };
  Action action = Action::kNoop;
  MutableValue value;  // for kSet
};

class ModifierNode {
 public:
  virtual ~ModifierNode() = default;

  // Applies to the field named `field_name` (full dotted path `path`),
  // whose current value is `existing` (nullptr when missing).
  virtual StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                          const MutableValue* existing,
                                          const ApplyContext& ctx) const = 0;

  // Whether the modifier can create the field when it is missing (false
  // for $unset and $rename's source): decides whether a path that cannot
  // be created (through a scalar, or a name on an array) is an error.
  virtual bool CreatesFields() const { return true; }
};

}  // namespace tigerdoc::update
