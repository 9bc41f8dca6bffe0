#include "engine/bson/type_name.h"
#include "engine/update/array_filters.h"

#include <optional>

#include "engine/bson/field_path.h"
#include "engine/query/matcher/element.h"

namespace tigerdoc::update {
namespace {

constexpr char kContext[] = "Error parsing array filter :: caused by :: ";

bool IsLogical(query::MatchKind kind) {
  return kind == query::MatchKind::kAnd || kind == query::MatchKind::kOr ||
         kind == query::MatchKind::kNor || kind == query::MatchKind::kNot;
}

// The one top-level field name every path of `node` starts with (MongoDB's
// parseTopLevelFieldName): nullopt when `node` has no path at all.
StatusWith<std::optional<std::string>> TopLevelFieldName(const query::MatchExpression* node) {
  if (const auto* path_node = dynamic_cast<const query::PathMatchExpression*>(node)) {
    return std::optional<std::string>(path_node->path().part(0));
  }
  if (!IsLogical(node->kind())) return std::optional<std::string>();
  std::optional<std::string> name;
  for (size_t i = 0; i < node->num_children(); ++i) {
    ASSIGN_OR_RETURN(std::optional<std::string> child, TopLevelFieldName(node->child(i)));
    if (!name) {
      name = std::move(child);
    } else if (child && *child != *name) {
      return Status(ErrorCode::kFailedToParse, "Expected a single top-level field name, found '" +
                                                   *name + "' and '" + *child + "'");
    }
  }
  return name;
}

// ^[a-z][a-zA-Z0-9]*$
bool IsValidIdentifier(const std::string& id) {
  if (id.empty() || id[0] < 'a' || id[0] > 'z') return false;
  for (char c : id) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) return false;
  }
  return true;
}

}  // namespace

bool IsArrayFilterComponent(const std::string& component) {
  return component.size() >= 3 && component[0] == '$' && component[1] == '[' &&
         component.back() == ']';
}

StatusWith<ArrayFilters> ArrayFilters::Parse(const bson_t* filters) {
  ArrayFilters out;
  if (filters == nullptr) return out;
  bson_iter_t it;
  if (!bson_iter_init(&it, filters)) return Status(ErrorCode::kInvalidBSON, "invalid arrayFilters");
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    std::string("Each array filter must be an object, found type ") +
                        bson::TypeName(bson_iter_type(&it)));
    }
    bson_t filter;
    bson::OpenSubdocument(&it, &filter);
    auto matcher = query::Matcher::Parse(&filter);
    if (!matcher.ok()) {
      return Status(matcher.status().code(), kContext + matcher.status().reason());
    }
    auto name = TopLevelFieldName(matcher.value()->root());
    if (!name.ok()) return Status(name.status().code(), kContext + name.status().reason());
    if (name.value() && !IsValidIdentifier(*name.value())) {
      return Status(ErrorCode::kBadValue,
                    std::string(kContext) +
                        "The top-level field name must be an alphanumeric string beginning with a "
                        "lowercase letter, found '" +
                        *name.value() + "'");
    }
    if (!name.value()) {
      return Status(ErrorCode::kFailedToParse,
                    "Cannot use an expression without a top-level field name in arrayFilters");
    }
    const std::string& id = *name.value();
    if (out.filters_.count(id) != 0) {
      return Status(ErrorCode::kFailedToParse,
                    "Found multiple array filters with the same top-level field name " + id);
    }
    out.filters_.emplace(id, std::shared_ptr<const query::Matcher>(std::move(matcher.value())));
  }
  return out;
}

std::vector<std::string> ArrayFilters::identifiers() const {
  std::vector<std::string> out;
  for (const auto& [id, filter] : filters_) out.push_back(id);
  return out;
}

bool ArrayFilters::Matches(const std::string& identifier, const MutableValue& element) const {
  bson::BsonDoc wrapped;
  element.AppendTo(wrapped.mutable_get(), identifier);
  return filters_.at(identifier)->Matches(wrapped.get());
}

}  // namespace tigerdoc::update
