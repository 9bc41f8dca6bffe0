#pragma once
// Test helper: BSON documents from extended JSON, where a key starting with
// '%' stands for the same key starting with '$' ("%type" is "$type"):
// libbson's JSON reader takes {"$type": 2}, {"$regex": ..., "$options": ...}
// for legacy extended JSON values, so those query operators cannot be
// written directly.

#include <cstring>
#include <string>
#include <string_view>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::testing_json {

inline void CopyRenaming(const bson_t* in, bson_t* out) {
  bson_iter_t it;
  bson_iter_init(&it, in);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    std::string renamed;
    if (key[0] == '%') {
      renamed = std::string("$") + (key + 1);
      key = renamed.c_str();
    }
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      const uint8_t* data;
      uint32_t len;
      bool is_array = BSON_ITER_HOLDS_ARRAY(&it);
      if (is_array) bson_iter_array(&it, &len, &data); else bson_iter_document(&it, &len, &data);
      bson_t sub_in;
      bson_init_static(&sub_in, data, len);
      bson_t sub_out;
      if (is_array) bson_append_array_begin(out, key, -1, &sub_out);
      else bson_append_document_begin(out, key, -1, &sub_out);
      CopyRenaming(&sub_in, &sub_out);
      if (is_array) bson_append_array_end(out, &sub_out);
      else bson_append_document_end(out, &sub_out);
    } else {
      bson_append_iter(out, key, -1, &it);
    }
  }
}

inline bson::BsonDoc Json(std::string_view json) {
  bson::BsonDoc parsed = bson::BsonDoc::FromJson(json);
  bson::BsonDoc out;
  CopyRenaming(parsed.get(), out.mutable_get());
  return out;
}

}  // namespace tigerdoc::testing_json
