#pragma once
// RawFields: the top-level elements of a BSON document read straight from
// its bytes, for the request path's many small lookups (a find by _id looked
// its command over about fifteen times: $db, maxTimeMS, each option, the
// field checks). libbson's bson_iter_next costs about 100 instructions per
// element; this walk about 20.
//
// Contract: element by element, the walk accepts only what libbson's
// bson_iter_next accepts, with the same value boundaries. Whatever it is
// not sure of (a framing libbson may treat differently, and the rare types
// regex, DBPointer, code with scope and binary subtype 2) makes it stop with
// broken() set; callers then answer with libbson instead (FindTopLevel does),
// so their answers are libbson's for every input, valid or not.
//
// Lifetime: views into the document's bytes, which must outlive the walk.
// Thread-safety: a value on one stack.

#include <bson/bson.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tigerdoc::bson {

class RawFields {
 public:
  explicit RawFields(const bson_t* doc) : data_(bson_get_data(doc)), len_(doc->len) {
    if (len_ < 5) len_ = 0;  // bson_iter_init refuses it: no elements
  }

  // Moves to the next element: false at the end of the document, or when
  // the element cannot be walked (then broken() is true).
  bool Next() {
    if (len_ == 0 || next_ + 1 >= len_) return false;  // the terminator: the end
    const size_t at = next_;
    const uint8_t type = data_[at];
    const void* nul = std::memchr(data_ + at + 1, 0, len_ - at - 1);
    if (nul == nullptr) return Broken();
    const size_t value = static_cast<const uint8_t*>(nul) - data_ + 1;
    size_t size = 0;
    switch (type) {
      case BSON_TYPE_DOUBLE:
      case BSON_TYPE_DATE_TIME:
      case BSON_TYPE_TIMESTAMP:
      case BSON_TYPE_INT64:
        size = 8;
        break;
      case BSON_TYPE_INT32:
        size = 4;
        break;
      case BSON_TYPE_OID:
        size = 12;
        break;
      case BSON_TYPE_DECIMAL128:
        size = 16;
        break;
      case BSON_TYPE_BOOL:
        if (value >= len_ || data_[value] > 1) return Broken();
        size = 1;
        break;
      case BSON_TYPE_NULL:
      case BSON_TYPE_UNDEFINED:
      case BSON_TYPE_MINKEY:
      case BSON_TYPE_MAXKEY:
        break;
      case BSON_TYPE_UTF8:
      case BSON_TYPE_CODE:
      case BSON_TYPE_SYMBOL: {  // int32 length (with the NUL), bytes, NUL
        const int64_t n = Length(value);
        if (n < 1 || value + 4 + static_cast<size_t>(n) >= len_ ||
            data_[value + 4 + static_cast<size_t>(n) - 1] != 0) {
          return Broken();
        }
        size = 4 + static_cast<size_t>(n);
        break;
      }
      case BSON_TYPE_BINARY: {  // int32 length, subtype, bytes
        const int64_t n = Length(value);
        if (n < 0 || value + 5 + static_cast<size_t>(n) >= len_ ||
            data_[value + 4] == BSON_SUBTYPE_BINARY_DEPRECATED) {
          return Broken();
        }
        size = 5 + static_cast<size_t>(n);
        break;
      }
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY: {
        const int64_t n = Length(value);
        if (n < 5 || value + static_cast<size_t>(n) >= len_) return Broken();
        size = static_cast<size_t>(n);
        break;
      }
      default:  // regex, DBPointer, code with scope, unknown, EOD inside
        return Broken();
    }
    if (value + size >= len_) return Broken();  // libbson: next_off < len
    at_ = at;
    key_ = std::string_view(reinterpret_cast<const char*>(data_ + at + 1), value - at - 2);
    type_ = static_cast<bson_type_t>(type);
    next_ = value + size;
    return true;
  }

  bool broken() const { return broken_; }
  std::string_view key() const { return key_; }
  bson_type_t type() const { return type_; }
  // Offset of the current element's type byte in the document.
  uint32_t offset() const { return static_cast<uint32_t>(at_); }
  // Offset just past the current element's value.
  uint32_t end() const { return static_cast<uint32_t>(next_); }
  // A libbson iterator on the current element, as bson_iter_find leaves it
  // (its next bson_iter_next moves to the following element).
  void Iter(bson_iter_t* it) const {
    bson_iter_init_from_data_at_offset(it, data_, len_, static_cast<uint32_t>(at_),
                                       static_cast<uint32_t>(key_.size()));
  }

 private:
  // The int32 at `at`, or -1 when it does not fit before the terminator.
  int64_t Length(size_t at) const {
    if (at + 4 >= len_) return -1;
    int32_t n;
    std::memcpy(&n, data_ + at, sizeof n);
    return BSON_UINT32_FROM_LE(n);
  }
  bool Broken() {
    broken_ = true;
    len_ = 0;
    return false;
  }

  const uint8_t* data_;
  size_t len_;
  size_t next_ = 4;
  size_t at_ = 0;
  std::string_view key_;
  bson_type_t type_ = BSON_TYPE_EOD;
  bool broken_ = false;
};

// bson_iter_init_find(it, doc, key), through RawFields: the same answer and
// iterator for any document (a walk that breaks hands over to libbson).
inline bool FindTopLevel(const bson_t* doc, std::string_view key, bson_iter_t* it) {
  RawFields fields(doc);
  while (fields.Next()) {
    if (fields.key() == key) {
      fields.Iter(it);
      return true;
    }
  }
  if (!fields.broken()) return false;
  return bson_iter_init_find(it, doc, std::string(key).c_str());
}

}  // namespace tigerdoc::bson
