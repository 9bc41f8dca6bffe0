#include "engine/update/top_level_fields.h"

#include <charconv>

#include "engine/base/invariant.h"
#include "engine/bson/raw_fields.h"

namespace tigerdoc::update {
namespace {

// Whether MutableValue re-renders the container `it` points into as the
// same bytes (contract in the header).
bool RendersUnchanged(bson_iter_t* it, bool is_array) {
  uint32_t index = 0;
  while (bson_iter_next(it)) {
    if (is_array) {
      char expected[16];
      const auto [end, ec] = std::to_chars(expected, expected + sizeof expected, index++);
      if (std::string_view(bson_iter_key(it), bson_iter_key_len(it)) !=
          std::string_view(expected, static_cast<size_t>(end - expected))) {
        return false;
      }
    }
    switch (bson_iter_type(it)) {
      case BSON_TYPE_REGEX:
      case BSON_TYPE_DBPOINTER:
      case BSON_TYPE_CODEWSCOPE:
        return false;
      case BSON_TYPE_BINARY: {
        bson_subtype_t subtype;
        uint32_t len;
        const uint8_t* data;
        bson_iter_binary(it, &subtype, &len, &data);
        if (subtype == BSON_SUBTYPE_BINARY_DEPRECATED) return false;
        break;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        bson_iter_t child;
        if (!bson_iter_recurse(it, &child) ||
            !RendersUnchanged(&child, bson_iter_type(it) == BSON_TYPE_ARRAY)) {
          return false;
        }
        break;
      }
      default:
        break;
    }
  }
  return true;
}

// The walk both entry points share: calls visit(key, span) for each
// top-level element (its `end` filled in by the time the walk returns);
// visit answers false to stop. False: not vouched for, or stopped.
template <typename Visit>
bool WalkVouched(const bson_t* doc, Visit visit) {
  bson::RawFields walk(doc);
  FieldSpan* previous = nullptr;  // its end is where the next element begins
  while (walk.Next()) {
    if (previous != nullptr) previous->end = walk.offset();
    previous = nullptr;
    const std::string_view key = walk.key();
    const bson_type_t type = walk.type();
    if (type == BSON_TYPE_DOCUMENT || type == BSON_TYPE_ARRAY) {
      if (key == "_id" && type == BSON_TYPE_ARRAY) return false;
      bson_iter_t it, child;
      walk.Iter(&it);
      if (!bson_iter_recurse(&it, &child) || !RendersUnchanged(&child, type == BSON_TYPE_ARRAY)) {
        return false;
      }
    }
    FieldSpan span;
    span.begin = walk.offset();
    span.value = walk.offset() + 1 + static_cast<uint32_t>(key.size()) + 1;
    span.type = type;
    if (!visit(key, span, &previous)) return false;
  }
  if (walk.broken()) return false;
  if (previous != nullptr) previous->end = doc->len - 1;  // the last element
  return true;
}

}  // namespace

bool LocateTopLevelFields(const bson_t* doc, const std::string_view* names, size_t count,
                          FieldSpan* spans) {
  for (size_t i = 0; i < count; ++i) spans[i] = FieldSpan();
  return WalkVouched(doc, [&](std::string_view key, const FieldSpan& span, FieldSpan** stored) {
    for (size_t i = 0; i < count; ++i) {
      if (key != names[i]) continue;
      if (spans[i].found()) return false;  // a repeated name
      spans[i] = span;
      *stored = &spans[i];
    }
    return true;
  });
}

bool ListTopLevelFields(const bson_t* doc, size_t max, std::string_view* keys, FieldSpan* spans,
                        size_t* count) {
  *count = 0;
  return WalkVouched(doc, [&](std::string_view key, const FieldSpan& span, FieldSpan** stored) {
    if (*count == max) return false;
    keys[*count] = key;
    spans[*count] = span;
    *stored = &spans[(*count)++];
    return true;
  });
}

uint8_t* ResetToBytes(bson::BsonDoc* out, uint32_t len) {
  bson_t* doc = out->mutable_get();
  bson_reinit(doc);
  uint8_t* bytes = bson_reserve_buffer(doc, len);
  INVARIANT(bytes != nullptr);
  return bytes;
}

}  // namespace tigerdoc::update
