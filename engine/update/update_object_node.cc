#include "engine/update/update_object_node.h"

namespace tigerdoc::update {

bool PathComponentLess::operator()(const std::string& a, const std::string& b) const {
  auto ia = bson::ParseArrayIndex(a);
  auto ib = bson::ParseArrayIndex(b);
  if (ia && ib && *ia != *ib) return *ia < *ib;
  return a < b;
}

namespace {

std::string Join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

Status Conflict(const bson::FieldPath& path, const std::string& at) {
  return Status(ErrorCode::kConflictingUpdateOperators,
                "Updating the path '" + path.dotted() + "' would create a conflict at '" + at + "'");
}

Status CannotCreate(const std::string& field, const std::string& element_name,
                    const MutableValue& element) {
  return Status(ErrorCode::kPathNotViable, "Cannot create field '" + field + "' in element " +
                                               ElementToString(element_name, element));
}

// Writes `outcome` for child `name` of `container`.
void Store(MutableValue* container, const std::string& name, ModifyOutcome outcome) {
  if (outcome.action == ModifyOutcome::Action::kNoop) return;
  auto& fields = container->fields();
  if (container->kind() == MutableValue::Kind::kArray) {
    // REQUIRES (checked by the caller): `name` is an index.
    const size_t index = *bson::ParseArrayIndex(name);
    if (outcome.action == ModifyOutcome::Action::kRemove) {
      // $unset of an array element leaves null in its place.
      if (index < fields.size()) fields[index].value = MutableValue::Null();
      return;
    }
    // Writing past the end pads with nulls, as MongoDB does.
    while (fields.size() <= index) fields.push_back(MutableField{"", MutableValue::Null()});
    fields[index].value = std::move(outcome.value);
    return;
  }
  if (outcome.action == ModifyOutcome::Action::kRemove) {
    container->Remove(name);
    return;
  }
  if (MutableValue* existing = container->Find(name)) {
    *existing = std::move(outcome.value);
  } else {
    fields.push_back(MutableField{name, std::move(outcome.value)});
  }
}

}  // namespace

Status UpdateObjectNode::AddModifier(const bson::FieldPath& path,
                                     std::unique_ptr<ModifierNode> modifier) {
  UpdateObjectNode* node = this;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    auto it = node->children_.find(path.part(i));
    if (it == node->children_.end()) {
      it = node->children_.emplace(path.part(i), std::make_unique<UpdateObjectNode>()).first;
    } else if (std::holds_alternative<std::unique_ptr<ModifierNode>>(it->second)) {
      return Conflict(path, path.Prefix(i + 1));
    }
    node = std::get<std::unique_ptr<UpdateObjectNode>>(it->second).get();
  }
  const std::string& last = path.part(path.size() - 1);
  if (node->children_.count(last) != 0) return Conflict(path, path.dotted());
  node->children_.emplace(last, std::move(modifier));
  return Status::OK();
}

bool UpdateObjectNode::CreatesFields() const {
  for (const auto& [name, child] : children_) {
    if (const auto* object = std::get_if<std::unique_ptr<UpdateObjectNode>>(&child)) {
      if ((*object)->CreatesFields()) return true;
    } else if (std::get<std::unique_ptr<ModifierNode>>(child)->CreatesFields()) {
      return true;
    }
  }
  return false;
}

std::string UpdateObjectNode::FirstModifierPath(const std::string& prefix) const {
  for (const auto& [name, child] : children_) {
    if (const auto* object = std::get_if<std::unique_ptr<UpdateObjectNode>>(&child)) {
      return (*object)->FirstModifierPath(Join(prefix, name));
    }
    return Join(prefix, name);
  }
  return prefix;
}

StatusWith<std::optional<MutableValue>> UpdateObjectNode::BuildMissing(
    const std::string& prefix, const ApplyContext& ctx) const {
  MutableValue doc = MutableValue::EmptyDocument();
  for (const auto& [name, child] : children_) {
    const std::string path = Join(prefix, name);
    if (const auto* object = std::get_if<std::unique_ptr<UpdateObjectNode>>(&child)) {
      ASSIGN_OR_RETURN(std::optional<MutableValue> sub, (*object)->BuildMissing(path, ctx));
      if (sub) doc.fields().push_back(MutableField{name, std::move(*sub)});
      continue;
    }
    const auto& modifier = std::get<std::unique_ptr<ModifierNode>>(child);
    ASSIGN_OR_RETURN(ModifyOutcome outcome, modifier->Apply(path, name, nullptr, ctx));
    if (outcome.action == ModifyOutcome::Action::kSet) {
      doc.fields().push_back(MutableField{name, std::move(outcome.value)});
    }
  }
  if (doc.fields().empty()) return std::optional<MutableValue>();
  return std::optional<MutableValue>(std::move(doc));
}

Status UpdateObjectNode::ApplyTo(MutableValue* container, const std::string& prefix,
                                 const std::string& container_name,
                                 const ApplyContext& ctx) const {
  const bool is_array = container->kind() == MutableValue::Kind::kArray;
  for (const auto& [name, child] : children_) {
    const std::string path = Join(prefix, name);
    const auto* object = std::get_if<std::unique_ptr<UpdateObjectNode>>(&child);
    const bool creates = object ? (*object)->CreatesFields()
                                : std::get<std::unique_ptr<ModifierNode>>(child)->CreatesFields();
    if (is_array && !bson::ParseArrayIndex(name)) {
      // A field name on an array: only fine when nothing would be created.
      if (creates) return CannotCreate(name, container_name, *container);
      continue;
    }
    MutableValue* existing = container->Find(name);
    if (object != nullptr) {
      if (existing != nullptr) {
        if (existing->is_container()) {
          RETURN_IF_ERROR((*object)->ApplyTo(existing, path, name, ctx));
        } else if ((*object)->CreatesFields()) {
          return CannotCreate((*object)->children().begin()->first, name, *existing);
        }
        continue;
      }
      ASSIGN_OR_RETURN(std::optional<MutableValue> built, (*object)->BuildMissing(path, ctx));
      if (built) {
        ModifyOutcome outcome;
        outcome.action = ModifyOutcome::Action::kSet;
        outcome.value = std::move(*built);
        Store(container, name, std::move(outcome));
      }
      continue;
    }
    const auto& modifier = std::get<std::unique_ptr<ModifierNode>>(child);
    ASSIGN_OR_RETURN(ModifyOutcome outcome, modifier->Apply(path, name, existing, ctx));
    Store(container, name, std::move(outcome));
  }
  return Status::OK();
}

}  // namespace tigerdoc::update
