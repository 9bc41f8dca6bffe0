#pragma once
// THE update modifier table (DESIGN.md §1; MongoDB's modifier_table.h):
// the alphabetical list of update operators, each with the function that
// parses one {path: argument} entry into modifier nodes of the update tree,
// checking the argument with MongoDB's codes and messages.
//
// Thread-safety: constant data.

#include <bson/bson.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/field_path.h"
#include "engine/update/array_filters.h"
#include "engine/update/update_internal_node.h"

namespace tigerdoc::update {

// Where parsed modifiers go.
struct ModifierParseContext {
  UpdateInternalNode* root = nullptr;
  const ArrayFilters* array_filters = nullptr;
  // Identifiers of '$[<identifier>]' the update used so far.
  std::set<std::string>* used_identifiers = nullptr;
  // $rename's source paths.
  std::vector<std::string>* rename_sources = nullptr;

  Status Add(const bson::FieldPath& path, std::unique_ptr<ModifierNode> modifier) const {
    return root->AddModifier(path, std::move(modifier), *array_filters, used_identifiers);
  }
};

// Parses `argument` (the value of `path` under operator `op`) and adds the
// resulting modifier(s) through `ctx`.
using ModifierParser = Status (*)(std::string_view op, const bson::FieldPath& path,
                                  const bson_iter_t* argument, const ModifierParseContext& ctx);

struct Modifier {
  std::string_view name;  // with '$'
  ModifierParser parse;
};

// nullptr when `name` is not an update operator.
const Modifier* FindModifier(std::string_view name);

// Validates one update path with MongoDB's messages: empty paths and
// components are EmptyFieldName 56; more than one '$', or '$' first, is
// BadValue 2. (Identifiers are checked when the path is added to the tree.)
Status ValidateUpdatePath(const std::string& path);

// Whether `path` has a positional '$' component.
bool IsPositionalPath(const bson::FieldPath& path);

}  // namespace tigerdoc::update
