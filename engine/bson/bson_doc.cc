#include "engine/bson/bson_doc.h"

#include <cstdio>
#include <cstdlib>

namespace tigerdoc::bson {

BsonDoc::BsonDoc(bson_t* adopt) {
  // bson_steal() moves the buffer (inline or heap) into doc_ and destroys
  // `adopt`: a heap bson_t (bson_new*) is freed, so `adopt` must not be
  // touched here or by the caller afterwards.
  bson_steal(&doc_, adopt);
}

// Most documents moved on a request's path are empty (the unset options of
// a find travel through several structs: about 70 moves per find by _id).
// Moving an empty one is initialising an empty one: the source stays the
// empty document a moved-from BsonDoc holds anyway, and bson_steal's copy
// of the 120-byte inline buffer and the re-initialisation are skipped.
BsonDoc::BsonDoc(BsonDoc&& other) noexcept {
  if (other.doc_.len == 5) {
    bson_init(&doc_);
    return;
  }
  bson_steal(&doc_, &other.doc_);
  bson_init(&other.doc_);
}

BsonDoc& BsonDoc::operator=(BsonDoc&& other) noexcept {
  if (this != &other) {
    bson_destroy(&doc_);
    if (other.doc_.len == 5) {
      bson_init(&doc_);
      return *this;
    }
    bson_steal(&doc_, &other.doc_);
    bson_init(&other.doc_);
  }
  return *this;
}

StatusWith<BsonDoc> BsonDoc::FromBytes(const uint8_t* data, size_t len) {
  bson_t view;
  if (len < 5 || !bson_init_static(&view, data, len)) {
    return Status(ErrorCode::kInvalidBSON, "invalid BSON document");
  }
  size_t offset = 0;
  if (!bson_validate(&view, BSON_VALIDATE_NONE, &offset)) {
    return Status(ErrorCode::kInvalidBSON,
                  "invalid BSON document (at byte offset " + std::to_string(offset) + ")");
  }
  return CopyOf(data, len);
}

BsonDoc BsonDoc::CopyOf(const uint8_t* data, size_t len) {
  BsonDoc out;
  if (len == 5) return out;  // the empty document: nothing to copy
  bson_t view;
  INVARIANT(bson_init_static(&view, data, len));
  bson_destroy(&out.doc_);
  bson_copy_to(&view, &out.doc_);
  return out;
}

BsonDoc BsonDoc::FromJson(std::string_view json) {
  bson_error_t error;
  BsonDoc out;
  bson_destroy(&out.doc_);
  if (!bson_init_from_json(&out.doc_, json.data(), static_cast<ssize_t>(json.size()), &error)) {
    std::fprintf(stderr, "BsonDoc::FromJson: %s in %.*s\n", error.message,
                 static_cast<int>(json.size()), json.data());
    std::abort();
  }
  return out;
}

std::string BsonDoc::ToJson() const {
  size_t len = 0;
  char* json = bson_as_relaxed_extended_json(&doc_, &len);
  std::string out(json ? json : "", json ? len : 0);
  bson_free(json);
  return out;
}

bson_t SubDocumentView(const bson_iter_t* it) {
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_iter_array(it, &len, &data);
  } else {
    bson_iter_document(it, &len, &data);
  }
  bson_t view;
  bson_init_static(&view, data, len);
  return view;
}

bool SubDocumentAt(const bson_t* doc, const char* key, bson_t* out) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, key) || !BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&it, &len, &data);
  return bson_init_static(out, data, len);
}

}  // namespace tigerdoc::bson
