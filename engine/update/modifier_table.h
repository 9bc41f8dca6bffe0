#pragma once
// THE update modifier table (DESIGN.md §1; MongoDB's modifier_table.h):
// the alphabetical list of update operators, each with the function that
// parses one {path: argument} entry into modifier nodes of the update tree.
// MongoDB operators tigerdoc lacks yet ($addToSet, $push, ...) are listed
// too and answer NotImplemented (238), so they are never "Unknown modifier".
//
// Thread-safety: constant data.

#include <bson/bson.h>

#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/field_path.h"
#include "engine/update/update_object_node.h"

namespace tigerdoc::update {

// Parses `argument` (the value of `path` under operator `op`) and adds the
// resulting modifier(s) to `root`. `rename_sources` collects $rename's
// source paths.
using ModifierParser = Status (*)(std::string_view op, const bson::FieldPath& path,
                                  const bson_iter_t* argument, UpdateObjectNode* root,
                                  std::vector<std::string>* rename_sources);

struct Modifier {
  std::string_view name;  // with '$'
  ModifierParser parse;
};

// nullptr when `name` is not an update operator.
const Modifier* FindModifier(std::string_view name);

// Validates one update path with MongoDB's messages (empty paths and
// components: EmptyFieldName 56; positional operators: NotImplemented).
Status ValidateUpdatePath(const std::string& path);

}  // namespace tigerdoc::update
