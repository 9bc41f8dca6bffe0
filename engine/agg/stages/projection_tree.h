#pragma once
// ProjectionTree: the parsed form of $project, $addFields/$set and $unset,
// and its application to a document.
//
//   {$project: {a: 1, "b.c": 1, d: {$add: ["$x", 1]}}}
//
//     root ──► a   include
//        ├──► b   subtree ──► c include
//        └──► d   expression
//
// Modes:
//   kInclusion  keep only included paths (plus _id unless {_id: 0}); then
//               computed fields, in specification order
//   kExclusion  keep everything but excluded paths
//   kAddFields  keep everything; computed fields replace in place or are
//               appended; a computed $$REMOVE removes the field
// Paths through arrays apply to each element (inclusion drops scalars,
// exclusion keeps them, addFields turns them into documents).
//
// Errors (prefixed "Invalid $project :: caused by :: " for $project):
// 51272 empty projection, 31254 exclusion in an inclusion projection, 31253
// the converse, 31252 an expression in an exclusion projection, 31250 path
// collision, 40352 / 15998 / 16410 bad paths.
//
// Thread-safety: immutable after parsing; Apply takes per-thread Variables.

#include <bson/bson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/agg/expressions/expression.h"
#include "engine/agg/stage.h"

namespace tigerdoc::agg {

class ProjectionTree {
 public:
  enum class Mode { kInclusion, kExclusion, kAddFields };

  static StatusWith<ProjectionTree> ParseProject(const bson_t* spec, ParseContext* ctx);
  static StatusWith<ProjectionTree> ParseAddFields(const bson_t* spec, ParseContext* ctx);
  // $unset: the fields to remove.
  static StatusWith<ProjectionTree> ParseUnset(const std::vector<std::string>& paths);

  ProjectionTree(ProjectionTree&&) noexcept;
  ProjectionTree& operator=(ProjectionTree&&) noexcept;
  ~ProjectionTree();

  // REQUIRES: vars bound to the document (ROOT/CURRENT).
  StatusWith<Value> Apply(const Value& doc, Variables* vars) const;
  Mode mode() const { return mode_; }

  struct Node;

 private:
  ProjectionTree(Mode mode, std::unique_ptr<Node> root);
  Mode mode_;
  std::unique_ptr<Node> root_;
};

// The StageSpec of $project / $addFields / $set / $unset over `tree`.
StageSpecPtr MakeProjectionSpec(std::string name, std::shared_ptr<const ProjectionTree> tree);

}  // namespace tigerdoc::agg
