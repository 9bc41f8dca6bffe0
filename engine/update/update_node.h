#pragma once
// UpdateNode: one node of a parsed update (MongoDB's update tree,
// src/mongo/db/update/update_node.h). Interior nodes are
// UpdateInternalNodes (update_internal_node.h): object nodes, one per path
// component, children in field-name order plus the positional child '$';
// and array nodes, for '$[]' and '$[<identifier>]', children keyed by
// identifier. Leaves are ModifierNodes, one class per operator family
// ($set/$setOnInsert, $unset, $inc/$mul, $min/$max, $currentDate, $bit,
// $rename's two halves, $push, $addToSet, $pop, $pull, $pullAll).
//
//   {$set: {"a.b": 1, c: 2, "d.$[i].e": 3}, $inc: {"a.x": 1}}
//
//   root (object) ─┬─ a (object) ─┬─ b  SetNode(1)
//                  │              └─ x  ArithmeticNode(+1)
//                  ├─ c  SetNode(2)
//                  └─ d (array) ── $[i] (object) ── e  SetNode(3)
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
#include <utility>

#include "engine/base/status.h"
#include "engine/update/mutable_document.h"

namespace tigerdoc::update {

class ArrayFilters;

// Per-Apply state shared by every node.
struct ApplyContext {
  bool is_upsert_insert = false;
  // "{_id: 1}" of the document being updated, for messages ("{}" if none).
  std::string id_string = "{}";
  // "_id: 1", MongoDB's BSONElement::toString() of the _id, or "" when the
  // document has none ($push and $bit messages print it differently).
  std::string id_element;
  // $rename sources, read from the original document before any change,
  // keyed by the source path. A missing source has no entry.
  std::map<std::string, MutableValue> rename_sources;
  // The array position the query matched (MatchDetails' elemMatchKey, as
  // a decimal field name), which the positional operator '$' stands for;
  // nullopt when the query matched through no array (or for upserts).
  std::optional<std::string> matched_field;
  // The parsed arrayFilters, for '$[<identifier>]'; never null while
  // applying an update that has identifiers.
  const ArrayFilters* array_filters = nullptr;
};

// What a modifier does to the field it targets.
struct ModifyOutcome {
  enum class Action { kNoop, kSet, kRemove };
  Action action = Action::kNoop;
  MutableValue value;  // for kSet
};

// The outcomes the modifiers build: leave the field as it is; set it to `v`.
inline ModifyOutcome Noop() { return ModifyOutcome{}; }
inline ModifyOutcome SetTo(MutableValue v) {
  ModifyOutcome out;
  out.action = ModifyOutcome::Action::kSet;
  out.value = std::move(v);
  return out;
}

// What a modifier does when its path cannot be followed in the document
// (MongoDB's allowCreation() / allowNonViablePath()).
enum class MissingPathPolicy {
  // Creates the missing path; a path that cannot be created (through a
  // scalar, or a field name on an array) is PathNotViable 28 "Cannot create
  // field ...": $set, $inc, $push, ...
  kCreate,
  // Nothing to do, but a path that could never exist is still an error:
  // PathNotViable 28 "Cannot use the part (...) to traverse the element
  // (...)": $pop, $pull, $pullAll.
  kCheckViable,
  // Nothing to do, silently: $unset; $setOnInsert outside an upsert
  // insert; $rename's destination when the source is missing.
  kIgnore,
};

class ModifierNode {
 public:
  virtual ~ModifierNode() = default;

  // Applies to the field named `field_name` (full dotted path `path`),
  // whose current value is `existing` (nullptr when missing).
  virtual StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                          const MutableValue* existing,
                                          const ApplyContext& ctx) const = 0;

  // See MissingPathPolicy.
  virtual MissingPathPolicy OnMissingPath(const ApplyContext& ctx) const {
    (void)ctx;
    return MissingPathPolicy::kCreate;
  }
};

}  // namespace tigerdoc::update
