#include "engine/bson/type_name.h"
#include "engine/update/update_driver.h"

#include <cstring>
#include <functional>
#include <set>

#include "engine/bson/shell_string.h"
#include "engine/query/matcher/comparison.h"
#include "engine/query/matcher/element.h"
#include "engine/query/matcher/matcher.h"
#include "engine/agg/stage_registry.h"
#include "engine/update/in_place_increment.h"
#include "engine/update/in_place_set.h"
#include "engine/update/modifier_table.h"

namespace tigerdoc::update {
namespace {

constexpr char kIdField[] = "_id";

Status CheckIdValue(const MutableValue* id) {
  if (id != nullptr && id->kind() == MutableValue::Kind::kArray) {
    return Status(ErrorCode::kInvalidIdField, "The '_id' value cannot be of type array");
  }
  return Status::OK();
}

// Moves _id to the front of a document (inserts always have it first).
void MoveIdFirst(MutableValue* doc) {
  auto& fields = doc->fields();
  for (size_t i = 1; i < fields.size(); ++i) {
    if (fields[i].name == kIdField) {
      MutableField id = std::move(fields[i]);
      fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(i));
      fields.insert(fields.begin(), std::move(id));
      return;
    }
  }
}

// The update's bytes, kept for the tree an in-place plan defers: a string
// rather than a BsonDoc, whose 128-byte alignment made each make_shared a
// memalign (about 400 instructions of an update by _id).
std::shared_ptr<const std::string> DeferredCopyOf(const bson_t* update) {
  return std::make_shared<const std::string>(reinterpret_cast<const char*>(bson_get_data(update)),
                                             update->len);
}

bool SameBytes(const bson_t* a, const bson::BsonDoc& b) {
  return a->len == b.size() && std::memcmp(bson_get_data(a), b.data(), b.size()) == 0;
}

// Finds the value at a dotted path through documents only. Sets
// `through_array` when an array is met before the end.
const MutableValue* FindThroughDocuments(const MutableValue& doc, const bson::FieldPath& path,
                                         bool* through_array) {
  const MutableValue* node = &doc;
  for (size_t i = 0; i < path.size(); ++i) {
    if (node->kind() == MutableValue::Kind::kArray) {
      *through_array = true;
      return nullptr;
    }
    if (node->kind() != MutableValue::Kind::kDocument) return nullptr;
    node = node->Find(path.part(i));
    if (node == nullptr) return nullptr;
  }
  return node;
}

// MongoDB 5+ stores '$'-prefixed field names, but an update of an existing
// document may not create or change one at the top level
// (storage_validation.cpp: only an insert, upserts included, may), except
// the DBRef fields $ref, $id and $db. Nested ones are fine.
Status CheckNoNewTopLevelDollarFields(const bson_t* original, const MutableValue& updated) {
  std::optional<MutableValue> before;  // parsed only when a '$' field is there
  for (const MutableField& field : updated.fields()) {
    if (field.name.empty() || field.name[0] != '$') continue;
    if (field.name == "$ref" || field.name == "$id" || field.name == "$db") continue;
    if (!before) before = MutableValue::FromDocument(original);
    const MutableValue* old = before->Find(field.name);
    if (old != nullptr && old->BinaryEquals(field.value)) continue;
    return Status(ErrorCode::kDollarPrefixedFieldName,
                  "The dollar ($) prefixed field '" + field.name + "' in '" + field.name +
                      "' is not allowed in the context of an update's replacement document. "
                      "Consider using an aggregation pipeline with $replaceWith.");
  }
  return Status::OK();
}

}  // namespace

StatusWith<UpdateDriver> UpdateDriver::Parse(const bson_t* update) {
  return Parse(update, nullptr);
}

StatusWith<UpdateDriver> UpdateDriver::Parse(const bson_t* update, const bson_t* array_filters) {
  UpdateDriver driver;
  bson_iter_t it;
  if (!bson_iter_init(&it, update)) return Status(ErrorCode::kInvalidBSON, "invalid update document");
  // MongoDB parses the array filters before it looks at the update. Most
  // updates have none: they share one empty set (no allocation per update).
  if (array_filters == nullptr) {
    static const std::shared_ptr<const ArrayFilters> kNoArrayFilters =
        std::make_shared<const ArrayFilters>();
    driver.array_filters_ = kNoArrayFilters;
  } else {
    ASSIGN_OR_RETURN(ArrayFilters filters, ArrayFilters::Parse(array_filters));
    driver.array_filters_ = std::make_shared<const ArrayFilters>(std::move(filters));
  }
  bson_iter_t first = it;
  const bool is_operator_update = bson_iter_next(&first) && bson_iter_key(&first)[0] == '$';

  if (!is_operator_update) {
    while (bson_iter_next(&it)) {
      const char* key = bson_iter_key(&it);
      if (key[0] == '$') {
        return Status(ErrorCode::kDollarPrefixedFieldName,
                      std::string("The dollar ($) prefixed field '") + key + "' in '" + key +
                          "' is not allowed in the context of an update's replacement document. "
                          "Consider using an aggregation pipeline with $replaceWith.");
      }
    }
    driver.replacement_ = std::make_shared<const bson::BsonDoc>(bson::BsonDoc::CopyOf(update));
    return driver;
  }

  // A $set of plain top-level names (in_place_set.h) cannot fail to parse:
  // no path is empty, dotted, positional or repeated, and $set takes any
  // value. Its update tree is built only if a document declines the
  // in-place path (ApplyModifiers): building and destroying it was about
  // 3,000 instructions of each YCSB update.
  // The same holds for an $inc of distinct plain top-level names with
  // int32, int64 or double increments (in_place_increment.h): 2,400
  // instructions of each $inc by _id.
  if (driver.array_filters_->identifiers().empty()) {
    if (std::optional<InPlaceSet> set = InPlaceSet::Plan(update)) {
      driver.in_place_set_ = std::make_shared<const InPlaceSet>(std::move(*set));
      driver.deferred_update_ = DeferredCopyOf(update);
      return driver;
    }
    if (std::optional<InPlaceIncrement> plan = InPlaceIncrement::Plan(update)) {
      driver.in_place_ = std::make_shared<const InPlaceIncrement>(std::move(*plan));
      driver.deferred_update_ = DeferredCopyOf(update);
      return driver;
    }
  }
  // With array filters a plain $inc leaves them unused: the parse fails.
  RETURN_IF_ERROR(driver.ParseOperators(update));
  return driver;
}

Status UpdateDriver::ParseOperators(const bson_t* update) {
  bson_iter_t it;
  if (!bson_iter_init(&it, update)) return Status(ErrorCode::kInvalidBSON, "invalid update document");
  auto root = std::make_shared<UpdateInternalNode>(UpdateInternalNode::Kind::kObject);
  std::set<std::string> used_identifiers;
  ModifierParseContext ctx;
  ctx.root = root.get();
  ctx.array_filters = array_filters_.get();
  ctx.used_identifiers = &used_identifiers;
  ctx.rename_sources = &rename_sources_;
  while (bson_iter_next(&it)) {
    const char* op = bson_iter_key(&it);
    const Modifier* modifier = FindModifier(op);
    if (modifier == nullptr) {
      return Status(ErrorCode::kFailedToParse,
                    std::string("Unknown modifier: ") + op +
                        ". Expected a valid update modifier or pipeline-style update specified as "
                        "an array");
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kFailedToParse,
                    std::string("Modifiers operate on fields but we found type ") +
                        bson::TypeName(bson_iter_type(&it)) +
                        " instead. For example: {$mod: {<field>: ...}} not {" + op + ": " +
                        bson::ToShellString(&it) + "}");
    }
    bson_t fields;
    bson::OpenSubdocument(&it, &fields);
    if (bson_empty(&fields)) {
      return Status(ErrorCode::kFailedToParse,
                    std::string("'") + op + "' is empty. You must specify a field like so: {" + op +
                        ": {<field_name>: ...}}");
    }
    bson_iter_t field;
    bson_iter_init(&field, &fields);
    while (bson_iter_next(&field)) {
      const std::string path = bson_iter_key(&field);
      RETURN_IF_ERROR(ValidateUpdatePath(path));
      bson::FieldPath field_path(path);
      positional_ = positional_ || IsPositionalPath(field_path);
      RETURN_IF_ERROR(modifier->parse(op, field_path, &field, ctx));
    }
  }
  for (const std::string& identifier : array_filters_->identifiers()) {
    if (used_identifiers.count(identifier) == 0) {
      return Status(ErrorCode::kFailedToParse, "The array filter for identifier '" + identifier +
                                                   "' was not used in the update " +
                                                   bson::ToShellString(update));
    }
  }
  root_ = std::move(root);
  return Status::OK();
}

namespace {

// The stages MongoDB allows in an update pipeline (isAllowedWithinUpdatePipeline).
bool AllowedInUpdatePipeline(std::string_view stage) {
  return stage == "$addFields" || stage == "$set" || stage == "$project" || stage == "$unset" ||
         stage == "$replaceRoot" || stage == "$replaceWith";
}

}  // namespace

StatusWith<UpdateDriver> UpdateDriver::ParsePipeline(const bson_t* pipeline,
                                                     const bson_t* array_filters,
                                                     const agg::ExpressionContext& ctx) {
  if (array_filters != nullptr && !bson_empty(array_filters)) {
    return Status(ErrorCode::kFailedToParse,
                  "arrayFilters may not be specified for pipeline-style updates");
  }
  // Stages that exist but may not run here are refused before parsing:
  // some ($lookup, ...) need a collection resolver an update does not have.
  bson_iter_t it;
  bson_iter_init(&it, pipeline);
  while (bson_iter_next(&it)) {
    bson_iter_t stage;
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &stage) || !bson_iter_next(&stage)) {
      continue;  // Pipeline::Parse reports it
    }
    std::string_view name = bson_iter_key(&stage);
    if (agg::FindStage(name) != nullptr && !AllowedInUpdatePipeline(name)) {
      return Status(ErrorCode::kInvalidOptions,
                    std::string(name) + " is not allowed to be used within an update");
    }
  }
  ASSIGN_OR_RETURN(agg::Pipeline parsed, agg::Pipeline::Parse(pipeline, ctx));
  UpdateDriver driver;
  driver.pipeline_ = std::make_shared<const agg::Pipeline>(std::move(parsed));
  return driver;
}

StatusWith<ApplyResult> UpdateDriver::Apply(const bson_t* doc, bool is_upsert_insert) const {
  return Apply(doc, is_upsert_insert, std::nullopt);
}

StatusWith<ApplyResult> UpdateDriver::Apply(const bson_t* doc, bool is_upsert_insert,
                                            std::optional<size_t> positional_index) const {
  if (is_pipeline()) return ApplyPipeline(doc);
  return is_replacement() ? ApplyReplacement(doc, replacement_->get())
                          : ApplyModifiers(doc, is_upsert_insert, positional_index);
}

StatusWith<ApplyResult> UpdateDriver::ApplyPipeline(const bson_t* doc) const {
  std::vector<bson::BsonDoc> input;
  input.push_back(bson::BsonDoc::CopyOf(doc));
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> output,
                   agg::RunToVector(*pipeline_, std::make_unique<agg::VectorDocumentSource>(
                                                    std::move(input))));
  // Every allowed stage maps one document to one document.
  INVARIANT(output.size() == 1);
  return ApplyReplacement(doc, output[0].get());
}

StatusWith<ApplyResult> UpdateDriver::ApplyReplacement(const bson_t* doc, const bson_t* replacement) {
  MutableValue original = MutableValue::FromDocument(doc);
  MutableValue result = MutableValue::FromDocument(replacement);
  const MutableValue* old_id = original.Find(kIdField);
  const MutableValue* new_id = result.Find(kIdField);
  RETURN_IF_ERROR(CheckIdValue(new_id));
  if (old_id != nullptr) {
    if (new_id == nullptr) {
      result.fields().insert(result.fields().begin(), MutableField{kIdField, *old_id});
    } else if (!new_id->BinaryEquals(*old_id)) {
      return Status(ErrorCode::kImmutableField,
                    "After applying the update, the (immutable) field '_id' was found to have "
                    "been altered to _id: " +
                        new_id->ToShellString());
    }
  }
  ApplyResult out;
  out.doc = result.ToDocument();
  out.modified = !SameBytes(doc, out.doc);
  return out;
}

StatusWith<ApplyResult> UpdateDriver::ApplyModifiers(
    const bson_t* doc, bool is_upsert_insert, std::optional<size_t> positional_index) const {
  if (in_place_ != nullptr && !is_upsert_insert) {
    ApplyResult out;
    if (in_place_->Apply(doc, &out.doc, &out.modified)) return out;
  }
  if (in_place_set_ != nullptr && !is_upsert_insert) {
    ApplyResult out;
    if (in_place_set_->Apply(doc, &out.doc, &out.modified)) return out;
  }
  if (root_ == nullptr) {
    // Declined (or an upsert's insert): the update tree Parse deferred.
    UpdateDriver full;
    full.array_filters_ = array_filters_;
    bson_t update;
    INVARIANT(bson_init_static(&update, reinterpret_cast<const uint8_t*>(deferred_update_->data()),
                               deferred_update_->size()));
    RETURN_IF_ERROR(full.ParseOperators(&update));
    return full.ApplyModifiers(doc, is_upsert_insert, positional_index);
  }
  MutableValue tree = MutableValue::FromDocument(doc);
  ApplyContext ctx;
  ctx.is_upsert_insert = is_upsert_insert;
  ctx.array_filters = array_filters_.get();
  if (positional_index) ctx.matched_field = std::to_string(*positional_index);
  std::optional<MutableValue> old_id;
  if (const MutableValue* id = tree.Find(kIdField)) {
    old_id = *id;
    ctx.id_string = ElementToString(kIdField, *id);
    ctx.id_element = std::string(kIdField) + ": " + id->ToShellString();
  }
  for (const std::string& source : rename_sources_) {
    bool through_array = false;
    bson::FieldPath path(source);
    const MutableValue* value = FindThroughDocuments(tree, path, &through_array);
    if (through_array) {
      return Status(ErrorCode::kBadValue, "The source field cannot be an array element, '" +
                                              source + "' in doc with " + ctx.id_string);
    }
    if (value != nullptr) ctx.rename_sources.emplace(source, *value);
  }

  RETURN_IF_ERROR(root_->ApplyToDocument(&tree, ctx));

  const MutableValue* new_id = tree.Find(kIdField);
  if (old_id && (new_id == nullptr || !new_id->BinaryEquals(*old_id))) {
    std::string path = kIdField;
    auto it = root_->children().find(kIdField);
    if (it != root_->children().end()) {
      if (const auto* object = std::get_if<std::unique_ptr<UpdateInternalNode>>(&it->second)) {
        path = (*object)->FirstModifierPath(kIdField);
      }
    }
    return Status(ErrorCode::kImmutableField,
                  "Performing an update on the path '" + path +
                      "' would modify the immutable field '_id'");
  }
  RETURN_IF_ERROR(CheckIdValue(new_id));
  if (is_upsert_insert) {
    MoveIdFirst(&tree);
  } else {
    RETURN_IF_ERROR(CheckNoNewTopLevelDollarFields(doc, tree));
  }

  ApplyResult out;
  out.doc = tree.ToDocument();
  out.modified = !SameBytes(doc, out.doc);
  return out;
}

StatusWith<bson::BsonDoc> BuildUpsertSeed(const bson_t* filter) {
  ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(filter));
  return BuildUpsertSeed(*matcher);
}

StatusWith<bson::BsonDoc> BuildUpsertSeed(const query::Matcher& matcher) {

  // Equalities in filter order: top level and (recursively) under $and.
  std::vector<std::pair<std::string, const query::OwnedValue*>> equalities;
  // Depth-first, preserving child order.
  std::function<void(const query::MatchExpression*)> collect = [&](const query::MatchExpression* node) {
    switch (node->kind()) {
      case query::MatchKind::kAnd:
        for (size_t i = 0; i < node->num_children(); ++i) collect(node->child(i));
        break;
      case query::MatchKind::kOr:
        // A one-clause $or is that clause (MongoDB simplifies it first).
        if (node->num_children() == 1) collect(node->child(0));
        break;
      case query::MatchKind::kEq: {
        const auto* eq = static_cast<const query::ComparisonExpression*>(node);
        equalities.emplace_back(eq->path().dotted(), &eq->rhs());
        break;
      }
      case query::MatchKind::kIn: {
        const auto* in = static_cast<const query::InExpression*>(node);
        if (!in->has_regexes() && in->equalities().size() == 1) {
          equalities.emplace_back(in->path().dotted(), &in->equalities()[0]);
        }
        break;
      }
      default:
        break;
    }
  };
  collect(matcher.root());

  MutableValue seed = MutableValue::EmptyDocument();
  std::vector<std::string> set_paths;
  for (const auto& [dotted, value] : equalities) {
    if (dotted.empty() || dotted[0] == '$') continue;  // DBRef parts, not fields
    bson::FieldPath path(dotted);
    for (const std::string& other : set_paths) {
      bson::FieldPath other_path(other);
      if (other == dotted) {
        return Status(ErrorCode::kNotSingleValueField,
                      "cannot infer query fields to set, path '" + dotted + "' is matched twice");
      }
      if (path.IsPrefixOf(other_path) || other_path.IsPrefixOf(path)) {
        return Status(ErrorCode::kNotSingleValueField,
                      "cannot infer query fields to set, both paths '" + dotted + "' and '" +
                          other + "' are matched");
      }
    }
    set_paths.push_back(dotted);
    MutableValue* node = &seed;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      MutableValue* child = node->Find(path.part(i));
      if (child == nullptr) {
        node->fields().push_back(MutableField{path.part(i), MutableValue::EmptyDocument()});
        child = &node->fields().back().value;
      }
      node = child;
    }
    node->fields().push_back(
        MutableField{path.part(path.size() - 1), MutableValue::FromValue(value->get())});
  }
  MoveIdFirst(&seed);
  return seed.ToDocument();
}

}  // namespace tigerdoc::update
