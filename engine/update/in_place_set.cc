#include "engine/update/in_place_set.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "engine/update/top_level_fields.h"

namespace tigerdoc::update {

std::optional<InPlaceSet> InPlaceSet::Plan(const bson_t* update) {
  bson_iter_t it;
  if (!bson_iter_init(&it, update) || !bson_iter_next(&it) ||
      std::strcmp(bson_iter_key(&it), "$set") != 0 || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return std::nullopt;
  }
  uint32_t len;
  const uint8_t* data;
  bson_iter_document(&it, &len, &data);
  if (bson_iter_next(&it)) return std::nullopt;  // another modifier too
  bson_t set;
  if (!bson_init_static(&set, data, len)) return std::nullopt;
  // Elements the general path would render as they are (top_level_fields.h)
  // are spliced as the client sent them.
  std::string_view names[kMaxInPlaceFields];
  FieldSpan spans[kMaxInPlaceFields];
  size_t count = 0;
  if (!ListTopLevelFields(&set, kMaxInPlaceFields, names, spans, &count) || count == 0) {
    return std::nullopt;
  }
  InPlaceSet plan;
  plan.fields_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string_view name = names[i];
    if (name.empty() || name[0] == '$' || name.find('.') != std::string_view::npos || name == "_id") {
      return std::nullopt;
    }
    for (size_t j = 0; j < i; ++j) {
      if (names[j] == name) return std::nullopt;
    }
    plan.fields_.push_back(Field{std::string(name),
                                 std::string(reinterpret_cast<const char*>(data) + spans[i].begin,
                                             spans[i].end - spans[i].begin)});
  }
  return plan;
}

bool InPlaceSet::Apply(const bson_t* doc, bson::BsonDoc* out, bool* modified) const {
  const size_t count = fields_.size();
  std::string_view names[kMaxInPlaceFields];
  for (size_t i = 0; i < count; ++i) names[i] = fields_[i].name;
  FieldSpan spans[kMaxInPlaceFields];
  if (!LocateTopLevelFields(doc, names, count, spans)) return false;
  const uint8_t* old = bson_get_data(doc);
  size_t order[kMaxInPlaceFields];  // fields by their place in the document
  size_t new_len = doc->len;
  bool changed = false;
  for (size_t i = 0; i < count; ++i) {
    if (!spans[i].found()) return false;  // $set appends it: the general path
    order[i] = i;
    const std::string& element = fields_[i].element;
    const size_t old_size = spans[i].end - spans[i].begin;
    new_len = new_len - old_size + element.size();
    changed = changed ||
              element.size() != old_size || std::memcmp(element.data(), old + spans[i].begin, old_size) != 0;
  }
  if (!changed) {
    *out = bson::BsonDoc::CopyOf(old, doc->len);
    *modified = false;
    return true;
  }
  if (new_len > static_cast<size_t>(INT32_MAX)) return false;
  std::sort(order, order + count, [&](size_t a, size_t b) { return spans[a].begin < spans[b].begin; });
  // Written once, straight into *out.
  uint8_t* bytes = ResetToBytes(out, static_cast<uint32_t>(new_len));
  const uint32_t len_le = BSON_UINT32_TO_LE(static_cast<uint32_t>(new_len));
  std::memcpy(bytes, &len_le, 4);
  size_t written = 4;
  uint32_t copied = 4;  // old bytes up to here are written or replaced
  for (size_t k = 0; k < count; ++k) {
    const FieldSpan& span = spans[order[k]];
    std::memcpy(bytes + written, old + copied, span.begin - copied);
    written += span.begin - copied;
    const std::string& element = fields_[order[k]].element;
    std::memcpy(bytes + written, element.data(), element.size());
    written += element.size();
    copied = span.end;
  }
  std::memcpy(bytes + written, old + copied, doc->len - copied);
  *modified = true;
  return true;
}

}  // namespace tigerdoc::update
