// Document metadata as reserved trailing fields; see document_metadata.h.

#include "engine/agg/document_metadata.h"

#include <cstring>

namespace tigerdoc::agg {
namespace {

bool IsMetadataKey(const bson_iter_t* it) {
  const char* key = bson_iter_key(it);
  return key[0] == '$' && key[1] == '\x01';
}

void Scan(bson_iter_t* it, MetadataUse* use) {
  while (bson_iter_next(it)) {
    if (BSON_ITER_HOLDS_UTF8(it) && std::strcmp(bson_iter_key(it), "$meta") == 0) {
      const char* name = bson_iter_utf8(it, nullptr);
      if (std::strcmp(name, "textScore") == 0) use->text_score = true;
      if (std::strcmp(name, "sortKey") == 0) use->sort_key = true;
    } else if (BSON_ITER_HOLDS_DOCUMENT(it) || BSON_ITER_HOLDS_ARRAY(it)) {
      bson_iter_t child;
      if (bson_iter_recurse(it, &child)) Scan(&child, use);
    }
  }
}

bool FindField(const bson_t* doc, std::string_view name, bson_iter_t* out) {
  return bson_iter_init(out, doc) &&
         bson_iter_find_w_len(out, name.data(), static_cast<int>(name.size()));
}

}  // namespace

MetadataUse ScanMetadataUse(const bson_t* pipeline) {
  MetadataUse use;
  bson_iter_t it;
  if (bson_iter_init(&it, pipeline)) Scan(&it, &use);
  return use;
}

std::optional<double> TextScoreOf(const bson_t* doc) {
  bson_iter_t it;
  if (!FindField(doc, kTextScoreField, &it) || !BSON_ITER_HOLDS_DOUBLE(&it)) return std::nullopt;
  return bson_iter_double(&it);
}

bool SortKeyOf(const bson_t* doc, bson_iter_t* out) {
  return FindField(doc, kSortKeyField, out) && BSON_ITER_HOLDS_ARRAY(out);
}

bool HasMetadata(const bson_t* doc) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return false;
  while (bson_iter_next(&it)) {
    if (IsMetadataKey(&it)) return true;
  }
  return false;
}

bson::BsonDoc WithoutMetadata(bson::BsonDoc doc) {
  if (!HasMetadata(doc.get())) return doc;
  bson::BsonDoc out;
  bson_iter_t it;
  bson_iter_init(&it, doc.get());
  while (bson_iter_next(&it)) {
    if (!IsMetadataKey(&it)) bson_append_iter(out.mutable_get(), nullptr, 0, &it);
  }
  return out;
}

void CopyMetadata(const bson_t* from, bson_t* to) {
  bson_iter_t it;
  if (!bson_iter_init(&it, from)) return;
  while (bson_iter_next(&it)) {
    if (!IsMetadataKey(&it)) continue;
    bson_iter_t existing;
    if (bson_iter_init_find(&existing, to, bson_iter_key(&it))) continue;
    bson_append_iter(to, nullptr, 0, &it);
  }
}

bson::BsonDoc WithSortKey(bson::BsonDoc doc, const query::SortSpec& spec) {
  bson::BsonDoc out;
  bson_iter_t it;
  bson_iter_init(&it, doc.get());
  while (bson_iter_next(&it)) {
    if (kSortKeyField != bson_iter_key(&it)) bson_append_iter(out.mutable_get(), nullptr, 0, &it);
  }
  bson_t key;
  bson_append_array_begin(out.mutable_get(), kSortKeyField.data(),
                          static_cast<int>(kSortKeyField.size()), &key);
  spec.AppendSortKey(doc.get(), &key);
  bson_append_array_end(out.mutable_get(), &key);
  return out;
}

}  // namespace tigerdoc::agg
