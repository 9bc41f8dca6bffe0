#pragma once
// BsonDoc: an owning, move-only BSON document over libbson's bson_t.
//
// Read documents with libbson directly (bson_iter_*) through get(); build
// them with bson_append_* on mutable_get() or with a fresh BsonDoc.
// A BsonDoc always holds a valid (possibly empty) document.
//
// Thread-safety: a value; concurrent const access is safe.

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::bson {

class BsonDoc {
 public:
  BsonDoc() { bson_init(&doc_); }
  // Takes ownership of `*adopt` (initialised with bson_init*, BSON_INITIALIZER
  // or bson_new*) as bson_steal does: `*adopt` is destroyed (a heap one is
  // freed), so the caller must neither use nor bson_destroy it afterwards.
  explicit BsonDoc(bson_t* adopt);
  ~BsonDoc() { bson_destroy(&doc_); }
  BsonDoc(BsonDoc&& other) noexcept;
  BsonDoc& operator=(BsonDoc&& other) noexcept;
  BsonDoc(const BsonDoc&) = delete;
  BsonDoc& operator=(const BsonDoc&) = delete;

  // A copy of raw bytes; fails with InvalidBSON when they are not one
  // well-formed document (bson_validate with BSON_VALIDATE_NONE).
  static StatusWith<BsonDoc> FromBytes(const uint8_t* data, size_t len);
  // Unchecked copy of bytes known to be valid (e.g. read back from storage).
  static BsonDoc CopyOf(const uint8_t* data, size_t len);
  static BsonDoc CopyOf(const bson_t* doc) { return CopyOf(bson_get_data(doc), doc->len); }
  // Parses (relaxed or canonical) extended JSON; aborts on bad input.
  // For tests and literals only.
  static BsonDoc FromJson(std::string_view json);

  BsonDoc Copy() const { return CopyOf(&doc_); }
  const bson_t* get() const { return &doc_; }
  bson_t* mutable_get() { return &doc_; }
  const uint8_t* data() const { return bson_get_data(&doc_); }
  size_t size() const { return doc_.len; }
  bool empty() const { return bson_empty(&doc_); }
  std::string_view bytes() const {
    return {reinterpret_cast<const char*>(data()), size()};
  }
  // Relaxed extended JSON, for logs and test failure messages.
  std::string ToJson() const;

 private:
  bson_t doc_;
};

// A non-owning view of the document or array `it` points at, valid while
// the iterated bytes live. REQUIRES: `it` holds a document or an array.
bson_t SubDocumentView(const bson_iter_t* it);

// Initialises *out in place as a view of the sub-document `key` of `doc`
// (valid while `doc`'s bytes live); false when `key` is missing or not a
// document. In place because a copied static bson_t points into the struct
// it was copied from.
bool SubDocumentAt(const bson_t* doc, const char* key, bson_t* out);

}  // namespace tigerdoc::bson
