#pragma once
// FirstKey: the key of a document's first element (a command's name), as
// bson_iter_init + bson_iter_next + bson_iter_key read it, through RawFields
// (about 20 instructions instead of 150; the request path reads a command's
// name three times, issue #18). libbson answers when the walk cannot tell
// (RawFields' contract), so the answer is libbson's for every input.
//
// Lifetime: the key views `doc`'s bytes. Thread-safety: a pure function.

#include <bson/bson.h>

#include <string_view>

#include "engine/bson/raw_fields.h"

namespace tigerdoc::bson {

// False when `doc` has no element (or libbson cannot read its first).
inline bool FirstKey(const bson_t* doc, std::string_view* key) {
  RawFields fields(doc);
  if (fields.Next()) {
    *key = fields.key();
    return true;
  }
  if (!fields.broken()) return false;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc) || !bson_iter_next(&it)) return false;
  *key = std::string_view(bson_iter_key(&it), bson_iter_key_len(&it));
  return true;
}

}  // namespace tigerdoc::bson
