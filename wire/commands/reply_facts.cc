#include "wire/commands/reply_facts.h"

#include <cstring>
#include <string_view>

#include "engine/bson/raw_fields.h"

namespace tigerdoc::wire {
namespace {

// The walk over either reader: R has Next() (false at the end or when it
// broke), broken(), key(), type(), Number() (the value of an int32, int64
// or double element as bson_iter_as_int64 reads it, else 0), Int64() and
// Into(&storage) (a reader of the current element's document or array).
template <typename Reader>
bool Walk(Reader top, ReplyFacts* facts) {
  while (top.Next()) {
    const std::string_view key = top.key();
    if (key == "ok") {
      facts->ok = top.Number();
    } else if (key == "code") {
      facts->code = top.Number();
    } else if (key == "n") {
      facts->n = top.Number();
    } else if (key == "nModified") {
      facts->n_modified = top.Number();
    } else if (key == "cursor" && top.type() == BSON_TYPE_DOCUMENT) {
      bson_t cursor_doc;
      Reader cursor = top.Into(&cursor_doc);
      while (cursor.Next()) {
        const std::string_view field = cursor.key();
        if (field == "id" && cursor.type() == BSON_TYPE_INT64) {
          facts->cursor_id = cursor.Int64();
        } else if ((field == "firstBatch" || field == "nextBatch") && cursor.type() == BSON_TYPE_ARRAY) {
          bson_t batch_doc;
          Reader batch = cursor.Into(&batch_doc);
          while (batch.Next()) ++facts->batch;
          if (batch.broken()) return false;
        }
      }
      if (cursor.broken()) return false;
    }
  }
  return !top.broken();
}

// bson::RawFields, reading values straight from the bytes it walked.
class RawReader : public bson::RawFields {
 public:
  explicit RawReader(const bson_t* doc) : RawFields(doc), data_(bson_get_data(doc)) {}
  int64_t Number() const {
    switch (type()) {
      case BSON_TYPE_INT32: return Load<int32_t>();
      case BSON_TYPE_INT64: return Load<int64_t>();
      case BSON_TYPE_DOUBLE: return static_cast<int64_t>(Load<double>());
      default: return 0;
    }
  }
  int64_t Int64() const { return Load<int64_t>(); }
  // `storage` holds the nested document's header; it must outlive the reader.
  RawReader Into(bson_t* storage) const {
    const uint32_t len = static_cast<uint32_t>(Load<int32_t>());  // RawFields checked it fits
    if (!bson_init_static(storage, Value(), len)) bson_init(storage);
    return RawReader(storage);
  }

 private:
  const uint8_t* Value() const { return data_ + offset() + 1 + key().size() + 1; }
  template <typename T>
  T Load() const {
    T v;
    std::memcpy(&v, Value(), sizeof v);  // little-endian, as this server's targets
    return v;
  }
  const uint8_t* data_;
};

// libbson's iterator behind the same interface (never "broken": it ends).
class LibbsonReader {
 public:
  explicit LibbsonReader(const bson_t* doc) { valid_ = bson_iter_init(&it_, doc); }
  bool Next() { return valid_ && bson_iter_next(&it_); }
  bool broken() const { return false; }
  std::string_view key() const { return bson_iter_key(&it_); }
  bson_type_t type() const { return bson_iter_type(&it_); }
  int64_t Number() const { return BSON_ITER_HOLDS_NUMBER(&it_) ? bson_iter_as_int64(&it_) : 0; }
  int64_t Int64() const { return bson_iter_int64(&it_); }
  LibbsonReader Into(bson_t*) const {
    LibbsonReader child;
    child.valid_ = bson_iter_recurse(&it_, &child.it_);
    return child;
  }

 private:
  LibbsonReader() = default;
  bson_iter_t it_{};
  bool valid_ = false;
};

}  // namespace

ReplyFacts ReadReplyFacts(const bson_t* reply) {
  ReplyFacts facts;
  if (Walk(RawReader(reply), &facts)) return facts;
  facts = ReplyFacts();
  Walk(LibbsonReader(reply), &facts);
  return facts;
}

}  // namespace tigerdoc::wire
