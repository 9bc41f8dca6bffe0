// DuplicateKeyError (contract in the header).

#include "engine/write/duplicate_key_error.h"

#include <string_view>
#include <vector>

#include "engine/bson/hex.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::engine {
namespace {

std::string_view Utf8Of(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* str = bson_iter_utf8(it, &len);
  return {str, len};
}

// Appends the elements of `in` to `out` with every string, at any depth,
// replaced by its collation key: what a collated index stores.
void AppendCollationKeys(bson_iter_t* in, const bson::Collator& collator, bson_t* out) {
  while (bson_iter_next(in)) {
    const char* key = bson_iter_key(in);
    const int key_len = static_cast<int>(bson_iter_key_len(in));
    switch (bson_iter_type(in)) {
      case BSON_TYPE_UTF8: {
        std::string sort_key;
        collator.AppendSortKey(Utf8Of(in), &sort_key);
        bson_append_utf8(out, key, key_len, sort_key.data(), static_cast<int>(sort_key.size()));
        break;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        const bool is_array = BSON_ITER_HOLDS_ARRAY(in);
        bson_iter_t child;
        bson_iter_recurse(in, &child);
        bson_t nested;
        if (is_array) {
          bson_append_array_begin(out, key, key_len, &nested);
        } else {
          bson_append_document_begin(out, key, key_len, &nested);
        }
        AppendCollationKeys(&child, collator, &nested);
        if (is_array) {
          bson_append_array_end(out, &nested);
        } else {
          bson_append_document_end(out, &nested);
        }
        break;
      }
      default:
        bson_append_iter(out, key, key_len, in);
    }
  }
}

bson::BsonDoc CollationKeysOf(const bson_t* doc, const bson::Collator& collator) {
  bson::BsonDoc out;
  bson_iter_t it;
  if (bson_iter_init(&it, doc)) AppendCollationKeys(&it, collator, out.mutable_get());
  return out;
}

std::string LowerHex(std::string_view bytes) {
  std::string hex;
  bson::AppendLowerHex(bytes, &hex);
  return hex;
}

}  // namespace

Status DuplicateKeyError(const std::string& ns, const std::string& index_name,
                         const bson_t* key_pattern, const bson_t* key_value,
                         const bson::Collator* collation) {
  bson::BsonDoc translated;
  if (collation != nullptr) translated = CollationKeysOf(key_value, *collation);
  const bson_t* stored = collation != nullptr ? translated.get() : key_value;

  // The reason's "dup key" and the extra keyValue differ only in the "0x"
  // of a hex-encoded component.
  bson::BsonDoc shown;
  bson::BsonDoc reported;
  std::vector<bool> hex_encoded;
  bson_iter_t it;
  if (bson_iter_init(&it, stored)) {
    while (bson_iter_next(&it)) {
      const char* key = bson_iter_key(&it);
      const int key_len = static_cast<int>(bson_iter_key_len(&it));
      // mongod's isValidUTF8 accepts NUL (a code point like any other).
      const bool encode =
          BSON_ITER_HOLDS_UTF8(&it) &&
          (collation != nullptr || !bson_utf8_validate(Utf8Of(&it).data(), Utf8Of(&it).size(),
                                                       /*allow_null=*/true));
      hex_encoded.push_back(encode);
      if (!encode) {
        bson_append_iter(shown.mutable_get(), key, key_len, &it);
        bson_append_iter(reported.mutable_get(), key, key_len, &it);
        continue;
      }
      const std::string hex = LowerHex(Utf8Of(&it));
      const std::string with_prefix = "0x" + hex;
      bson_append_utf8(shown.mutable_get(), key, key_len, with_prefix.data(),
                       static_cast<int>(with_prefix.size()));
      bson_append_utf8(reported.mutable_get(), key, key_len, hex.data(),
                       static_cast<int>(hex.size()));
    }
  }

  std::string message = "E11000 duplicate key error collection: " + ns + " index: " + index_name;
  if (collation != nullptr) message += " collation: " + bson::ToShellString(collation->spec());
  message += " dup key: " + bson::ToShellString(shown.get());

  bson::BsonDoc extra;
  BSON_APPEND_DOCUMENT(extra.mutable_get(), "keyPattern", key_pattern);
  BSON_APPEND_DOCUMENT(extra.mutable_get(), "keyValue", reported.get());
  bool any_hex = false;
  for (bool encoded : hex_encoded) any_hex = any_hex || encoded;
  if (any_hex) {
    bson_t array;
    BSON_APPEND_ARRAY_BEGIN(extra.mutable_get(), "hexEncoded", &array);
    for (size_t i = 0; i < hex_encoded.size(); ++i) {
      const std::string index = std::to_string(i);
      bson_append_bool(&array, index.data(), static_cast<int>(index.size()), hex_encoded[i]);
    }
    bson_append_array_end(extra.mutable_get(), &array);
  }
  if (collation != nullptr) BSON_APPEND_DOCUMENT(extra.mutable_get(), "collation", collation->spec());
  return Status(ErrorCode::kDuplicateKey, message, std::string(extra.bytes()));
}

bson::BsonDoc KeyValueOf(const index::IndexSpec& spec, const bson_t* values) {
  bson::BsonDoc out;
  for (const index::IndexField& field : spec.fields) {
    const std::string& name = field.path.dotted();
    bson_iter_t it;
    if (bson_iter_init_find_w_len(&it, values, name.data(), static_cast<int>(name.size()))) {
      bson_append_iter(out.mutable_get(), name.data(), static_cast<int>(name.size()), &it);
    } else {
      bson_append_null(out.mutable_get(), name.data(), static_cast<int>(name.size()));
    }
  }
  return out;
}

}  // namespace tigerdoc::engine
