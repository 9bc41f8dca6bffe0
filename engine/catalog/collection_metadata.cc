// CollectionMetadata <-> its catalog document (format in catalog.h).

#include <string>

#include "engine/catalog/catalog.h"
#include "engine/collation/collator_factory.h"
#include "engine/storage/shard_router.h"

namespace tigerdoc::catalog {

namespace {

Status Malformed(const std::string& what) {
  return Status(ErrorCode::kFailedToParse, "malformed catalog entry: " + what);
}

bool AsInt64(const bson_iter_t* it, int64_t* out) {
  if (BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it)) {
    *out = bson_iter_as_int64(it);
    return true;
  }
  return false;
}

}  // namespace

bson::BsonDoc CollectionMetadata::ToBson(const bson_t* with_options,
                                         const bson_t* with_patterns) const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "ns", ns.c_str());
  BSON_APPEND_UTF8(doc, "ident", ident.c_str());
  bson_t shard_key;
  BSON_APPEND_DOCUMENT_BEGIN(doc, "shardKey", &shard_key);
  bson_append_int32(&shard_key, shard_key_field.data(), static_cast<int>(shard_key_field.size()),
                    1);
  bson_append_document_end(doc, &shard_key);
  BSON_APPEND_INT32(doc, "shards", num_shards);
  BSON_APPEND_INT32(doc, "hashVersion", hash_version);
  BSON_APPEND_DOCUMENT(doc, "options", with_options);
  BSON_APPEND_INT64(doc, "maxDocumentBytes", max_document_bytes);
  if (collated_id_table) BSON_APPEND_BOOL(doc, "idCollationTable", true);
  if (!bson_empty(with_patterns)) BSON_APPEND_DOCUMENT(doc, "patterns", with_patterns);
  return out;
}

const bson::Collator* DefaultCollatorOf(const bson_t* options) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, options, "collation")) return nullptr;
  // create validated and normalized it; a spec that no longer parses
  // (none should) reads as simple rather than failing every operation.
  StatusWith<const bson::Collator*> collator = collation::CollatorForField(&it, "create");
  return collator.ok() ? collator.value() : nullptr;
}

StatusWith<CollectionMetadata> CollectionMetadata::FromBson(const bson_t* doc) {
  CollectionMetadata md;
  bool has_ns = false, has_ident = false, has_key = false, has_shards = false;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return Malformed("not a BSON document");
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (key == "ns" && BSON_ITER_HOLDS_UTF8(&it)) {
      uint32_t len = 0;
      const char* s = bson_iter_utf8(&it, &len);
      md.ns.assign(s, len);
      has_ns = true;
    } else if (key == "ident" && BSON_ITER_HOLDS_UTF8(&it)) {
      uint32_t len = 0;
      const char* s = bson_iter_utf8(&it, &len);
      md.ident.assign(s, len);
      has_ident = true;
    } else if (key == "shardKey" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_t field;
      if (!bson_iter_recurse(&it, &field) || !bson_iter_next(&field)) {
        return Malformed("empty shardKey");
      }
      md.shard_key_field = bson_iter_key(&field);
      if (bson_iter_next(&field)) return Malformed("compound shardKey");
      has_key = true;
    } else if (key == "shards") {
      int64_t n = 0;
      if (!AsInt64(&it, &n) || n < 1 || n > kMaxShards) return Malformed("bad shards");
      md.num_shards = static_cast<int>(n);
      has_shards = true;
    } else if (key == "hashVersion") {
      int64_t v = 0;
      if (!AsInt64(&it, &v)) return Malformed("bad hashVersion");
      md.hash_version = static_cast<int>(v);
    } else if (key == "options" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      md.options = bson::BsonDoc::CopyOf(data, len);
      md.default_collator = DefaultCollatorOf(md.options.get());
    } else if (key == "patterns" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      md.patterns = bson::BsonDoc::CopyOf(data, len);
    } else if (key == "idCollationTable" && BSON_ITER_HOLDS_BOOL(&it)) {
      md.collated_id_table = bson_iter_bool(&it);
    } else if (key == "maxDocumentBytes") {
      if (!AsInt64(&it, &md.max_document_bytes)) return Malformed("bad maxDocumentBytes");
    }
    // Unknown fields are kept by nobody but tolerated, so that a newer
    // catalog entry can still be read where it is compatible.
  }
  if (!has_ns || !has_ident || !has_key || !has_shards) {
    return Malformed("missing ns, ident, shardKey or shards");
  }
  size_t dot = md.ns.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == md.ns.size()) {
    return Malformed("bad ns '" + md.ns + "'");
  }
  md.db = md.ns.substr(0, dot);
  md.name = md.ns.substr(dot + 1);
  if (md.hash_version != storage::kShardHashVersion) {
    return Status(ErrorCode::kNotImplemented,
                  "collection " + md.ns + " uses shard hashVersion " +
                      std::to_string(md.hash_version) + ", which this build does not support");
  }
  return md;
}

}  // namespace tigerdoc::catalog
