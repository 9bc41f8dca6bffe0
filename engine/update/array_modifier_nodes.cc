#include "engine/bson/type_name.h"
#include "engine/update/array_modifier_nodes.h"

#include <algorithm>
#include <limits>

#include "engine/query/matcher/element.h"

namespace tigerdoc::update {
namespace {

bool ContainsEqual(const std::vector<MutableField>& elements, const MutableValue& value) {
  for (const MutableField& element : elements) {
    if (CompareValues(element.value, value) == 0) return true;
  }
  return false;
}

// |v| without overflow: |INT64_MIN| is taken as INT64_MAX, as MongoDB does.
uint64_t SafeAbs(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::max();
  return static_cast<uint64_t>(v < 0 ? -v : v);
}

// The value at `path` inside `element` for a $sort pattern field: through
// documents and arrays by name (an array's field names are its indexes),
// null when missing. An element that is no document has no fields.
MutableValue SortKeyPart(const MutableValue& element, const bson::FieldPath& path) {
  if (element.kind() != MutableValue::Kind::kDocument) return MutableValue::Null();
  const MutableValue* node = &element;
  for (const std::string& part : path.parts()) {
    if (!node->is_container()) return MutableValue::Null();
    node = node->Find(part);
    if (node == nullptr) return MutableValue::Null();
  }
  return *node;
}

void SortElements(std::vector<MutableField>* elements, const PushSort& sort) {
  if (sort.whole_value) {
    std::stable_sort(elements->begin(), elements->end(),
                     [&](const MutableField& a, const MutableField& b) {
                       return CompareValues(a.value, b.value) * sort.direction < 0;
                     });
    return;
  }
  // Extract every element's key once, then sort keys and elements together.
  struct Keyed {
    std::vector<MutableValue> key;
    MutableField element;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(elements->size());
  for (MutableField& element : *elements) {
    Keyed k;
    for (const auto& [path, direction] : sort.fields) {
      k.key.push_back(SortKeyPart(element.value, path));
    }
    k.element = std::move(element);
    keyed.push_back(std::move(k));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    for (size_t i = 0; i < sort.fields.size(); ++i) {
      const int c = CompareValues(a.key[i], b.key[i]) * sort.fields[i].second;
      if (c != 0) return c < 0;
    }
    return false;
  });
  elements->clear();
  for (Keyed& k : keyed) elements->push_back(std::move(k.element));
}

}  // namespace

StatusWith<ModifyOutcome> PushNode::Apply(const std::string& path, const std::string&,
                                          const MutableValue* existing,
                                          const ApplyContext& ctx) const {
  if (existing != nullptr && existing->kind() != MutableValue::Kind::kArray) {
    return Status(ErrorCode::kBadValue,
                  "The field '" + path + "' must be an array but is of type " +
                      bson::TypeName(existing->type()) + " in document {" +
                      (ctx.id_element.empty() ? std::string("no id") : ctx.id_element) + "}");
  }
  MutableValue array = existing != nullptr ? *existing : MutableValue::EmptyArray();
  auto& elements = array.fields();

  // $position, MongoDB's insertElementsWithPosition: past the end (or
  // none) appends; negative counts from the end; too negative is the front.
  const int64_t size = static_cast<int64_t>(elements.size());
  int64_t at = size;
  if (size > 0 && position_ && *position_ <= size) {
    if (*position_ > 0) {
      at = *position_;
    } else if (*position_ < 0 && static_cast<int64_t>(SafeAbs(*position_)) < size) {
      at = size - static_cast<int64_t>(SafeAbs(*position_));
    } else {
      at = 0;
    }
  }
  std::vector<MutableField> inserted;
  for (const MutableValue& value : values_) inserted.push_back(MutableField{"", value});
  elements.insert(elements.begin() + at, inserted.begin(), inserted.end());

  if (sort_) SortElements(&elements, *sort_);

  if (slice_) {
    const uint64_t keep = SafeAbs(*slice_);
    if (elements.size() > keep) {
      const size_t drop = elements.size() - static_cast<size_t>(keep);
      if (*slice_ >= 0) {
        elements.erase(elements.end() - static_cast<std::ptrdiff_t>(drop), elements.end());
      } else {
        elements.erase(elements.begin(), elements.begin() + static_cast<std::ptrdiff_t>(drop));
      }
    }
  }
  return SetTo(std::move(array));
}

AddToSetNode::AddToSetNode(std::vector<MutableValue> values) {
  for (MutableValue& value : values) {
    bool duplicate = false;
    for (const MutableValue& kept : values_) duplicate = duplicate || CompareValues(kept, value) == 0;
    if (!duplicate) values_.push_back(std::move(value));
  }
}

StatusWith<ModifyOutcome> AddToSetNode::Apply(const std::string&, const std::string& field_name,
                                              const MutableValue* existing,
                                              const ApplyContext&) const {
  if (existing == nullptr) {
    MutableValue array = MutableValue::EmptyArray();
    for (const MutableValue& value : values_) array.fields().push_back(MutableField{"", value});
    return SetTo(std::move(array));
  }
  if (existing->kind() != MutableValue::Kind::kArray) {
    return Status(ErrorCode::kBadValue,
                  "Cannot apply $addToSet to non-array field. Field named '" + field_name +
                      "' has non-array type " + bson::TypeName(existing->type()));
  }
  MutableValue array = *existing;
  bool added = false;
  for (const MutableValue& value : values_) {
    // Only the original elements count: values_ has no duplicates.
    if (ContainsEqual(existing->fields(), value)) continue;
    array.fields().push_back(MutableField{"", value});
    added = true;
  }
  return added ? SetTo(std::move(array)) : Noop();
}

StatusWith<ModifyOutcome> PopNode::Apply(const std::string& path, const std::string&,
                                         const MutableValue* existing,
                                         const ApplyContext&) const {
  if (existing == nullptr) return Noop();
  if (existing->kind() != MutableValue::Kind::kArray) {
    return Status(ErrorCode::kTypeMismatch, "Path '" + path +
                                                "' contains an element of non-array type '" +
                                                bson::TypeName(existing->type()) + "'");
  }
  if (existing->fields().empty()) return Noop();
  MutableValue array = *existing;
  auto& elements = array.fields();
  elements.erase(from_front_ ? elements.begin() : elements.end() - 1);
  return SetTo(std::move(array));
}

std::unique_ptr<PullNode> PullNode::DocumentQuery(std::shared_ptr<const query::Matcher> matcher) {
  std::unique_ptr<PullNode> node(new PullNode(Mode::kDocumentQuery));
  node->matcher_ = std::move(matcher);
  return node;
}

std::unique_ptr<PullNode> PullNode::ElementQuery(std::shared_ptr<const query::Matcher> matcher) {
  std::unique_ptr<PullNode> node(new PullNode(Mode::kElementQuery));
  node->matcher_ = std::move(matcher);
  return node;
}

std::unique_ptr<PullNode> PullNode::AnyOf(std::vector<MutableValue> values) {
  std::unique_ptr<PullNode> node(new PullNode(Mode::kAnyOf));
  node->values_ = std::move(values);
  return node;
}

bool PullNode::Selects(const MutableValue& element) const {
  switch (mode_) {
    case Mode::kDocumentQuery: {
      if (element.kind() != MutableValue::Kind::kDocument) return false;
      bson::BsonDoc doc = element.ToDocument();
      return matcher_->Matches(doc.get());
    }
    case Mode::kElementQuery: {
      // The element under the same empty name the condition was parsed
      // under, so the condition sees it exactly as a query sees a field.
      bson::BsonDoc wrapped;
      element.AppendTo(wrapped.mutable_get(), "");
      return matcher_->Matches(wrapped.get());
    }
    case Mode::kAnyOf:
      for (const MutableValue& value : values_) {
        if (CompareValues(element, value) == 0) return true;
      }
      return false;
  }
  return false;
}

StatusWith<ModifyOutcome> PullNode::Apply(const std::string&, const std::string&,
                                          const MutableValue* existing,
                                          const ApplyContext&) const {
  if (existing == nullptr) return Noop();
  if (existing->kind() != MutableValue::Kind::kArray) {
    return Status(ErrorCode::kBadValue, "Cannot apply $pull to a non-array value");
  }
  MutableValue array = MutableValue::EmptyArray();
  for (const MutableField& element : existing->fields()) {
    if (!Selects(element.value)) array.fields().push_back(element);
  }
  if (array.fields().size() == existing->fields().size()) return Noop();
  return SetTo(std::move(array));
}

}  // namespace tigerdoc::update
