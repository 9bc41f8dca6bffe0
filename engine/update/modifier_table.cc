#include "engine/update/modifier_table.h"

#include <algorithm>
#include <cstring>

#include "engine/bson/shell_string.h"
#include "engine/query/matcher/element.h"
#include "engine/update/modifier_nodes.h"

namespace tigerdoc::update {
namespace {

// "a: 1" -- how MongoDB prints an element inside argument errors.
std::string ElementText(const bson::FieldPath& path, const bson_iter_t* argument) {
  return path.dotted() + ": " + bson::ToShellString(argument);
}

Status ParseSet(std::string_view op, const bson::FieldPath& path, const bson_iter_t* argument,
                UpdateObjectNode* root, std::vector<std::string>*) {
  return root->AddModifier(
      path, std::make_unique<SetNode>(MutableValue::FromIter(argument), op == "$setOnInsert"));
}

Status ParseUnset(std::string_view, const bson::FieldPath& path, const bson_iter_t*,
                  UpdateObjectNode* root, std::vector<std::string>*) {
  return root->AddModifier(path, std::make_unique<UnsetNode>());
}

Status ParseArithmetic(std::string_view op, const bson::FieldPath& path,
                       const bson_iter_t* argument, UpdateObjectNode* root,
                       std::vector<std::string>*) {
  const bool add = op == "$inc";
  if (!IsNumeric(bson_iter_type(argument))) {
    return Status(ErrorCode::kTypeMismatch,
                  std::string(add ? "Cannot increment with non-numeric argument: {"
                                  : "Cannot multiply with non-numeric argument: {") +
                      ElementText(path, argument) + "}");
  }
  return root->AddModifier(path, std::make_unique<ArithmeticNode>(
                                     add ? ArithmeticOp::kAdd : ArithmeticOp::kMultiply,
                                     query::OwnedValue(argument)));
}

Status ParseCompare(std::string_view op, const bson::FieldPath& path, const bson_iter_t* argument,
                    UpdateObjectNode* root, std::vector<std::string>*) {
  return root->AddModifier(
      path, std::make_unique<CompareNode>(op == "$min" ? CompareNode::Mode::kMin
                                                       : CompareNode::Mode::kMax,
                                          MutableValue::FromIter(argument)));
}

Status ParseCurrentDate(std::string_view, const bson::FieldPath& path,
                        const bson_iter_t* argument, UpdateObjectNode* root,
                        std::vector<std::string>*) {
  bool as_timestamp = false;
  if (BSON_ITER_HOLDS_BOOL(argument)) {
    as_timestamp = false;
  } else if (BSON_ITER_HOLDS_DOCUMENT(argument)) {
    bson_t spec;
    bson::OpenSubdocument(argument, &spec);
    bson_iter_t it;
    bson_iter_init(&it, &spec);
    bool found_valid_type = false;
    while (bson_iter_next(&it)) {
      if (std::strcmp(bson_iter_key(&it), "$type") != 0) {
        return Status(ErrorCode::kBadValue,
                      std::string("Unrecognized $currentDate option: ") + bson_iter_key(&it));
      }
      if (BSON_ITER_HOLDS_UTF8(&it)) {
        const char* type = bson_iter_utf8(&it, nullptr);
        if (std::strcmp(type, "date") == 0) {
          as_timestamp = false;
          found_valid_type = true;
        } else if (std::strcmp(type, "timestamp") == 0) {
          as_timestamp = true;
          found_valid_type = true;
        }
      }
    }
    if (!found_valid_type) {
      return Status(ErrorCode::kBadValue,
                    "The '$type' string field is required to be 'date' or 'timestamp': "
                    "{$currentDate: {field : {$type: 'date'}}}");
    }
  } else {
    return Status(ErrorCode::kBadValue,
                  std::string(query::BsonTypeName(bson_iter_type(argument))) +
                      " is not valid type for $currentDate. Please use a boolean ('true') or a "
                      "$type expression ({$type: 'timestamp/date'}).");
  }
  return root->AddModifier(path, std::make_unique<CurrentDateNode>(as_timestamp));
}

Status ParseRename(std::string_view, const bson::FieldPath& path, const bson_iter_t* argument,
                   UpdateObjectNode* root, std::vector<std::string>* rename_sources) {
  if (!BSON_ITER_HOLDS_UTF8(argument)) {
    return Status(ErrorCode::kBadValue, "The 'to' field for $rename must be a string: " +
                                            ElementText(path, argument));
  }
  const std::string to = bson_iter_utf8(argument, nullptr);
  if (to == path.dotted()) {
    return Status(ErrorCode::kBadValue, "The source and target field for $rename must differ: " +
                                            ElementText(path, argument));
  }
  RETURN_IF_ERROR(ValidateUpdatePath(to));
  bson::FieldPath to_path(to);
  if (path.IsPrefixOf(to_path) || to_path.IsPrefixOf(path)) {
    return Status(ErrorCode::kBadValue,
                  "The source and target field for $rename must not be on the same path: " +
                      ElementText(path, argument));
  }
  RETURN_IF_ERROR(root->AddModifier(path, std::make_unique<UnsetNode>()));
  RETURN_IF_ERROR(root->AddModifier(to_path, std::make_unique<RenameDestinationNode>(path.dotted())));
  rename_sources->push_back(path.dotted());
  return Status::OK();
}

Status ParseNotImplemented(std::string_view op, const bson::FieldPath&, const bson_iter_t*,
                           UpdateObjectNode*, std::vector<std::string>*) {
  return Status(ErrorCode::kNotImplemented,
                std::string(op) + " is not supported by tigerdoc yet");
}

// Alphabetical. Binary-searched.
constexpr Modifier kModifiers[] = {
    {"$addToSet", ParseNotImplemented},
    {"$bit", ParseNotImplemented},
    {"$currentDate", ParseCurrentDate},
    {"$inc", ParseArithmetic},
    {"$max", ParseCompare},
    {"$min", ParseCompare},
    {"$mul", ParseArithmetic},
    {"$pop", ParseNotImplemented},
    {"$pull", ParseNotImplemented},
    {"$pullAll", ParseNotImplemented},
    {"$push", ParseNotImplemented},
    {"$rename", ParseRename},
    {"$set", ParseSet},
    {"$setOnInsert", ParseSet},
    {"$unset", ParseUnset},
};

constexpr bool IsSorted() {
  for (size_t i = 1; i < std::size(kModifiers); ++i) {
    if (!(kModifiers[i - 1].name < kModifiers[i].name)) return false;
  }
  return true;
}
static_assert(IsSorted(), "keep kModifiers alphabetical");

}  // namespace

const Modifier* FindModifier(std::string_view name) {
  const Modifier* end = std::end(kModifiers);
  const Modifier* it = std::lower_bound(std::begin(kModifiers), end, name,
                                        [](const Modifier& m, std::string_view n) { return m.name < n; });
  return (it != end && it->name == name) ? it : nullptr;
}

Status ValidateUpdatePath(const std::string& path) {
  if (path.empty()) return Status(ErrorCode::kEmptyFieldName, "An empty update path is not valid.");
  bson::FieldPath fp(path);
  for (const std::string& part : fp.parts()) {
    if (part.empty()) {
      return Status(ErrorCode::kEmptyFieldName,
                    "The update path '" + path +
                        "' contains an empty field name, which is not allowed.");
    }
  }
  for (const std::string& part : fp.parts()) {
    if (part == "$" || part.rfind("$[", 0) == 0) {
      return Status(ErrorCode::kNotImplemented,
                    "positional update operators ('" + path + "') are not supported by tigerdoc yet");
    }
  }
  return Status::OK();
}

}  // namespace tigerdoc::update
