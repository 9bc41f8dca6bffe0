#include "engine/update/update_internal_node.h"

#include <vector>

namespace tigerdoc::update {

bool PathComponentLess::operator()(const std::string& a, const std::string& b) const {
  auto ia = bson::ParseArrayIndex(a);
  auto ib = bson::ParseArrayIndex(b);
  if (ia && ib && *ia != *ib) return *ia < *ib;
  return a < b;
}

namespace {

using Child = UpdateInternalNode::Child;
using Kind = UpdateInternalNode::Kind;
// Nodes that apply to the same field together (see the header on merging).
using NodeSet = std::vector<const Child*>;
using InternalSet = std::vector<const UpdateInternalNode*>;
using ChildrenByName = std::map<std::string, NodeSet, PathComponentLess>;

constexpr char kPositional[] = "$";

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

const UpdateInternalNode* AsInternal(const Child* child) {
  const auto* internal = std::get_if<std::unique_ptr<UpdateInternalNode>>(child);
  return internal ? internal->get() : nullptr;
}

const ModifierNode* AsModifier(const Child* child) {
  const auto* modifier = std::get_if<std::unique_ptr<ModifierNode>>(child);
  return modifier ? modifier->get() : nullptr;
}

Status ParseConflict(const bson::FieldPath& path, const std::string& at) {
  return Status(ErrorCode::kConflictingUpdateOperators,
                "Updating the path '" + path.dotted() + "' would create a conflict at '" + at + "'");
}

Status ApplyConflict(const std::string& path) {
  return Status(ErrorCode::kConflictingUpdateOperators,
                "Update created a conflict at '" + path + "'");
}

Status MustExist(const std::string& path) {
  return Status(ErrorCode::kBadValue, "The path '" + path +
                                          "' must exist in the document in order to apply array "
                                          "updates.");
}

// MongoDB's createUpdateNodeByMerging, as a check: `nodes` (two or more)
// can be applied together unless two leaves, a leaf and an internal node,
// or an object and an array node meet on one path.
Status CheckMergeable(const NodeSet& nodes, const std::string& path) {
  if (nodes.size() < 2) return Status::OK();
  const UpdateInternalNode* first = AsInternal(nodes[0]);
  for (const Child* node : nodes) {
    const UpdateInternalNode* internal = AsInternal(node);
    if (first == nullptr || internal == nullptr || internal->kind() != first->kind()) {
      return ApplyConflict(path);
    }
  }
  ChildrenByName by_name;
  for (const Child* node : nodes) {
    for (const auto& [name, child] : AsInternal(node)->children()) by_name[name].push_back(&child);
  }
  for (const auto& [name, set] : by_name) {
    const std::string component = first->kind() == Kind::kArray ? "$[" + name + "]" : name;
    RETURN_IF_ERROR(CheckMergeable(set, Join(path, component)));
  }
  return Status::OK();
}

// The children of object nodes applied together, the positional child
// under the field the query matched.
StatusWith<ChildrenByName> MergeObjectChildren(const InternalSet& nodes, const ApplyContext& ctx) {
  ChildrenByName out;
  for (const UpdateInternalNode* node : nodes) {
    for (const auto& [name, child] : node->children()) {
      if (name == kPositional) {
        if (!ctx.matched_field) {
          return Status(ErrorCode::kBadValue,
                        "The positional operator did not find the match needed from the query.");
        }
        out[*ctx.matched_field].push_back(&child);
      } else {
        out[name].push_back(&child);
      }
    }
  }
  return out;
}

InternalSet Internals(const NodeSet& nodes) {
  InternalSet out;
  for (const Child* node : nodes) out.push_back(AsInternal(node));
  return out;
}

// MongoDB's limit on the nulls one write may add to an array
// (path_support.cpp kMaxPaddingAllowed).
constexpr size_t kMaxArrayPadding = 1500000;

// Writes `outcome` for child `name` of `container`. Fails with
// CannotBackfillArray (34) when it would pad an array with more than
// kMaxArrayPadding nulls.
Status Store(MutableValue* container, const std::string& name, ModifyOutcome outcome) {
  if (outcome.action == ModifyOutcome::Action::kNoop) return Status::OK();
  auto& fields = container->fields();
  if (container->kind() == MutableValue::Kind::kArray) {
    // REQUIRES (checked by the caller): `name` is an index.
    const size_t index = *bson::ParseArrayIndex(name);
    if (outcome.action == ModifyOutcome::Action::kRemove) {
      // $unset of an array element leaves null in its place.
      if (index < fields.size()) fields[index].value = MutableValue::Null();
      return Status::OK();
    }
    // Writing past the end pads with nulls, as MongoDB does, within its
    // limit: the nulls before the element written (maybePadTo pads to
    // `index` elements), so {a: []} takes "a.1500000" but not "a.1500001".
    if (index > fields.size() && index - fields.size() > kMaxArrayPadding) {
      return Status(ErrorCode::kCannotBackfillArray,
                    "can't backfill more than " + std::to_string(kMaxArrayPadding) + " elements");
    }
    while (fields.size() <= index) fields.push_back(MutableField{"", MutableValue::Null()});
    fields[index].value = std::move(outcome.value);
    return Status::OK();
  }
  if (outcome.action == ModifyOutcome::Action::kRemove) {
    container->Remove(name);
    return Status::OK();
  }
  if (MutableValue* existing = container->Find(name)) {
    *existing = std::move(outcome.value);
  } else {
    fields.push_back(MutableField{name, std::move(outcome.value)});
  }
  return Status::OK();
}

// `nodes` target `missing_path` (dotted, from `first_missing`) below
// `container`, which cannot hold it (a scalar, or an array and a field
// name). The error of the first node, in tree order, that would act there;
// OK when none would.
Status NonViable(const NodeSet& nodes, const std::string& first_missing,
                 const std::string& missing_path, const MutableValue& container,
                 const std::string& container_name, const std::string& container_path,
                 const ApplyContext& ctx) {
  const std::string full_path = Join(container_path, missing_path);
  RETURN_IF_ERROR(CheckMergeable(nodes, full_path));
  if (const ModifierNode* modifier = AsModifier(nodes[0])) {
    switch (modifier->OnMissingPath(ctx)) {
      case MissingPathPolicy::kCreate:
        return Status(ErrorCode::kPathNotViable, "Cannot create field '" + first_missing +
                                                     "' in element " +
                                                     ElementToString(container_name, container));
      case MissingPathPolicy::kCheckViable:
        return Status(ErrorCode::kPathNotViable,
                      "Cannot use the part (" + first_missing + " of " + full_path +
                          ") to traverse the element (" +
                          ElementToString(container_name, container) + ")");
      case MissingPathPolicy::kIgnore:
        return Status::OK();
    }
  }
  if (AsInternal(nodes[0])->kind() == Kind::kArray) return MustExist(full_path);
  ASSIGN_OR_RETURN(ChildrenByName children, MergeObjectChildren(Internals(nodes), ctx));
  for (const auto& [name, set] : children) {
    RETURN_IF_ERROR(NonViable(set, first_missing, Join(missing_path, name), container,
                              container_name, container_path, ctx));
  }
  return Status::OK();
}

// What object nodes create where their field is missing; nullopt when
// they create nothing.
StatusWith<std::optional<MutableValue>> BuildMissing(const InternalSet& nodes,
                                                     const std::string& path,
                                                     const ApplyContext& ctx) {
  ASSIGN_OR_RETURN(ChildrenByName children, MergeObjectChildren(nodes, ctx));
  MutableValue doc = MutableValue::EmptyDocument();
  for (const auto& [name, set] : children) {
    const std::string child_path = Join(path, name);
    RETURN_IF_ERROR(CheckMergeable(set, child_path));
    if (const ModifierNode* modifier = AsModifier(set[0])) {
      ASSIGN_OR_RETURN(ModifyOutcome outcome, modifier->Apply(child_path, name, nullptr, ctx));
      if (outcome.action == ModifyOutcome::Action::kSet) {
        doc.fields().push_back(MutableField{name, std::move(outcome.value)});
      }
      continue;
    }
    if (AsInternal(set[0])->kind() == Kind::kArray) return MustExist(child_path);
    ASSIGN_OR_RETURN(std::optional<MutableValue> sub, BuildMissing(Internals(set), child_path, ctx));
    if (sub) doc.fields().push_back(MutableField{name, std::move(*sub)});
  }
  if (doc.fields().empty()) return std::optional<MutableValue>();
  return std::optional<MutableValue>(std::move(doc));
}

Status ApplyAt(const NodeSet& nodes, MutableValue* container, const std::string& name,
               const std::string& container_path, const std::string& container_name,
               const ApplyContext& ctx);

// Applies object nodes to `target` (a document or an array) at `path`.
Status ApplyObjectNodes(const InternalSet& nodes, MutableValue* target, const std::string& path,
                        const std::string& name, const ApplyContext& ctx) {
  ASSIGN_OR_RETURN(ChildrenByName children, MergeObjectChildren(nodes, ctx));
  for (const auto& [child_name, set] : children) {
    RETURN_IF_ERROR(ApplyAt(set, target, child_name, path, name, ctx));
  }
  return Status::OK();
}

// Applies array nodes to each element of `array` their identifiers select.
// Which elements match is decided before any is updated, as in MongoDB.
Status ApplyArrayNodes(const InternalSet& nodes, MutableValue* array, const std::string& path,
                       const std::string& name, const ApplyContext& ctx) {
  std::vector<NodeSet> per_element(array->fields().size());
  for (size_t i = 0; i < per_element.size(); ++i) {
    for (const UpdateInternalNode* node : nodes) {
      for (const auto& [identifier, child] : node->children()) {
        if (identifier.empty() ||
            ctx.array_filters->Matches(identifier, array->fields()[i].value)) {
          per_element[i].push_back(&child);
        }
      }
    }
  }
  for (size_t i = 0; i < per_element.size(); ++i) {
    if (per_element[i].empty()) continue;
    RETURN_IF_ERROR(ApplyAt(per_element[i], array, std::to_string(i), path, name, ctx));
  }
  return Status::OK();
}

// Applies `nodes` to the child `name` of `container` (a document or an
// array) whose own path is `container_path`.
Status ApplyAt(const NodeSet& nodes, MutableValue* container, const std::string& name,
               const std::string& container_path, const std::string& container_name,
               const ApplyContext& ctx) {
  const std::string path = Join(container_path, name);
  RETURN_IF_ERROR(CheckMergeable(nodes, path));
  if (container->kind() == MutableValue::Kind::kArray && !bson::ParseArrayIndex(name)) {
    return NonViable(nodes, name, name, *container, container_name, container_path, ctx);
  }
  MutableValue* existing = container->Find(name);
  if (const ModifierNode* modifier = AsModifier(nodes[0])) {
    ASSIGN_OR_RETURN(ModifyOutcome outcome, modifier->Apply(path, name, existing, ctx));
    return Store(container, name, std::move(outcome));
  }
  const InternalSet internals = Internals(nodes);
  if (internals[0]->kind() == Kind::kArray) {
    if (existing == nullptr) return MustExist(path);
    if (existing->kind() != MutableValue::Kind::kArray) {
      return Status(ErrorCode::kBadValue, "Cannot apply array updates to non-array element " +
                                              name + ": " + existing->ToShellString());
    }
    return ApplyArrayNodes(internals, existing, path, name, ctx);
  }
  if (existing != nullptr) {
    if (existing->is_container()) return ApplyObjectNodes(internals, existing, path, name, ctx);
    // A scalar where the path goes on: fine only if nothing below acts.
    ASSIGN_OR_RETURN(ChildrenByName children, MergeObjectChildren(internals, ctx));
    for (const auto& [child_name, set] : children) {
      RETURN_IF_ERROR(NonViable(set, child_name, child_name, *existing, name, path, ctx));
    }
    return Status::OK();
  }
  ASSIGN_OR_RETURN(std::optional<MutableValue> built, BuildMissing(internals, path, ctx));
  if (built) {
    ModifyOutcome outcome;
    outcome.action = ModifyOutcome::Action::kSet;
    outcome.value = std::move(*built);
    RETURN_IF_ERROR(Store(container, name, std::move(outcome)));
  }
  return Status::OK();
}

// The name of component `i` of `path` in its parent node: the identifier
// for '$[<identifier>]' ("" for '$[]'), the component itself otherwise.
StatusWith<std::string> ChildName(const bson::FieldPath& path, size_t i,
                                  const ArrayFilters& array_filters,
                                  std::set<std::string>* used_identifiers) {
  const std::string& part = path.part(i);
  if (!IsArrayFilterComponent(part)) return part;
  if (i == 0) {
    return Status(ErrorCode::kBadValue,
                  "Cannot have array filter identifier (i.e. '$[<id>]') element in the first "
                  "position in path '" +
                      path.dotted() + "'");
  }
  std::string identifier = part.substr(2, part.size() - 3);
  if (!identifier.empty()) {
    if (!array_filters.Contains(identifier)) {
      return Status(ErrorCode::kBadValue, "No array filter found for identifier '" + identifier +
                                              "' in path '" + path.dotted() + "'");
    }
    used_identifiers->insert(identifier);
  }
  return identifier;
}

}  // namespace

Status UpdateInternalNode::AddModifier(const bson::FieldPath& path,
                                       std::unique_ptr<ModifierNode> modifier,
                                       const ArrayFilters& array_filters,
                                       std::set<std::string>* used_identifiers) {
  UpdateInternalNode* node = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    ASSIGN_OR_RETURN(std::string name, ChildName(path, i, array_filters, used_identifiers));
    const Kind wanted = IsArrayFilterComponent(path.part(i + 1)) ? Kind::kArray : Kind::kObject;
    auto it = node->children_.find(name);
    if (it == node->children_.end()) {
      it = node->children_.emplace(name, std::make_unique<UpdateInternalNode>(wanted)).first;
    } else {
      const UpdateInternalNode* existing = AsInternal(&it->second);
      if (existing == nullptr || existing->kind() != wanted) {
        return ParseConflict(path, path.Prefix(i + 1));
      }
    }
    node = std::get<std::unique_ptr<UpdateInternalNode>>(it->second).get();
  }
  ASSIGN_OR_RETURN(std::string last,
                   ChildName(path, path.size() - 1, array_filters, used_identifiers));
  if (node->children_.count(last) != 0) return ParseConflict(path, path.dotted());
  node->children_.emplace(std::move(last), std::move(modifier));
  return Status::OK();
}

Status UpdateInternalNode::ApplyToDocument(MutableValue* doc, const ApplyContext& ctx) const {
  return ApplyObjectNodes({this}, doc, "", "", ctx);
}

std::string UpdateInternalNode::FirstModifierPath(const std::string& prefix) const {
  for (const auto& [name, child] : children_) {
    const std::string component = kind_ == Kind::kArray ? "$[" + name + "]" : name;
    if (const UpdateInternalNode* internal = AsInternal(&child)) {
      return internal->FirstModifierPath(Join(prefix, component));
    }
    return Join(prefix, component);
  }
  return prefix;
}

}  // namespace tigerdoc::update
