#include "wire/commands/reply_facts.h"

#include <string_view>

#include "engine/bson/raw_fields.h"

namespace tigerdoc::wire {
namespace {

// The walk over either reader: R has Next() (false at the end or when it
// broke), key(), type(), Iter(bson_iter_t*) (a libbson iterator on the
// current element) and, for the nested documents, R::Into(it, &child).
template <typename Reader>
bool Walk(const bson_t* reply, ReplyFacts* facts) {
  auto number = [](const bson_iter_t& it) {
    return BSON_ITER_HOLDS_NUMBER(&it) ? bson_iter_as_int64(&it) : int64_t{0};
  };
  Reader top(reply);
  bson_iter_t it;
  while (top.Next()) {
    const std::string_view key = top.key();
    if (key == "ok" || key == "code" || key == "n" || key == "nModified") {
      top.Iter(&it);
      (key == "ok" ? facts->ok : key == "code" ? facts->code : key == "n" ? facts->n : facts->n_modified) =
          number(it);
      continue;
    }
    if (key != "cursor" || top.type() != BSON_TYPE_DOCUMENT) continue;
    top.Iter(&it);
    bson_t cursor_doc;
    Reader cursor = Reader::Into(it, &cursor_doc);
    while (cursor.Next()) {
      const std::string_view field = cursor.key();
      if (field == "id" && cursor.type() == BSON_TYPE_INT64) {
        cursor.Iter(&it);
        facts->cursor_id = bson_iter_int64(&it);
      } else if ((field == "firstBatch" || field == "nextBatch") && cursor.type() == BSON_TYPE_ARRAY) {
        cursor.Iter(&it);
        bson_t batch_doc;
        Reader batch = Reader::Into(it, &batch_doc);
        while (batch.Next()) ++facts->batch;
        if (batch.broken()) return false;
      }
    }
    if (cursor.broken()) return false;
  }
  return !top.broken();
}

// bson::RawFields over a document or a nested one.
class RawReader : public bson::RawFields {
 public:
  explicit RawReader(const bson_t* doc) : RawFields(doc) {}
  // `storage` holds the nested document's header; it must outlive the reader.
  static RawReader Into(const bson_iter_t& it, bson_t* storage) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_array(&it, &len, &data);
    } else {
      bson_iter_document(&it, &len, &data);
    }
    if (data == nullptr || !bson_init_static(storage, data, len)) bson_init(storage);  // empty
    return RawReader(storage);
  }
};

// libbson's iterator behind the same interface (never "broken": it ends).
class LibbsonReader {
 public:
  explicit LibbsonReader(const bson_t* doc) { valid_ = bson_iter_init(&it_, doc); }
  static LibbsonReader Into(const bson_iter_t& it, bson_t*) {
    LibbsonReader child;
    child.valid_ = bson_iter_recurse(&it, &child.it_);
    return child;
  }
  bool Next() { return valid_ && bson_iter_next(&it_); }
  std::string_view key() const { return bson_iter_key(&it_); }
  bson_type_t type() const { return bson_iter_type(&it_); }
  void Iter(bson_iter_t* out) const { *out = it_; }
  bool broken() const { return false; }

 private:
  LibbsonReader() = default;
  bson_iter_t it_{};
  bool valid_ = false;
};

}  // namespace

ReplyFacts ReadReplyFacts(const bson_t* reply) {
  ReplyFacts facts;
  if (Walk<RawReader>(reply, &facts)) return facts;
  facts = ReplyFacts();
  Walk<LibbsonReader>(reply, &facts);
  return facts;
}

}  // namespace tigerdoc::wire
