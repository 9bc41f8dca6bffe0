#include "engine/bson/bson_doc.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tigerdoc::bson {

BsonDoc::BsonDoc(bson_t* adopt) {
  // bson_steal() moves the buffer (inline or heap) into doc_ and destroys
  // `adopt`: a heap bson_t (bson_new*) is freed, so `adopt` must not be
  // touched here or by the caller afterwards.
  bson_steal(&doc_, adopt);
}

namespace {

// A bson_t that bson_init made and that still fits its inline buffer:
// libbson keeps such a document in the struct itself, its bytes at
// `padding` (libbson's bson_impl_inline_t: flags, len, data[120]), with the
// flags bson_init sets: BSON_FLAG_INLINE (1) | BSON_FLAG_STATIC (2). The
// names are libbson-private but the values are its ABI (applications keep
// bson_t on their stacks); bson_doc_test checks them. Constants rather
// than values read off a fresh document at start-up, so that a BsonDoc
// moved during another file's static initialisation is handled too.
constexpr uint32_t kInlineFlags = 1 | 2;
static_assert(sizeof(bson_t) == 128 && offsetof(bson_t, padding) == 8,
              "bson_t is libbson's 128-byte inline layout");

bool IsPlainInline(const bson_t& doc) { return doc.flags == kInlineFlags; }

// What bson_init does to an inline bson_t: the empty document, in place.
void ResetInline(bson_t* doc) {
  doc->flags = kInlineFlags;
  doc->len = 5;
  static constexpr uint8_t kEmpty[5] = {5, 0, 0, 0, 0};
  std::memcpy(doc->padding, kEmpty, sizeof kEmpty);
}

// A bson_t that bson_init made and that grew onto the heap: libbson's
// bson_impl_alloc_t, whose `buf` and `buflen` point at its own `alloc` and
// `alloclen`. The layout is libbson's private one, so a document is moved
// by hand only when those two self-pointers are where this mirror says
// (HoldsHeapLayout); anything else goes through bson_steal.
struct HeapLayout {
  uint32_t flags;
  uint32_t len;
  bson_t* parent;
  uint32_t depth;
  uint8_t** buf;
  size_t* buflen;
  size_t offset;
  uint8_t* alloc;
  size_t alloclen;
  void* realloc;
  void* realloc_func_ctx;
};
static_assert(sizeof(HeapLayout) <= sizeof(bson_t));

// What an inline document's flags become once it grows onto the heap
// (BSON_FLAG_STATIC only; bson_copy_to sets the same).
constexpr uint32_t kHeapFlags = 2;

template <typename T>
T FieldAt(const bson_t* doc, size_t offset) {
  T value;
  std::memcpy(&value, reinterpret_cast<const char*>(doc) + offset, sizeof value);
  return value;
}
template <typename T>
void SetFieldAt(bson_t* doc, size_t offset, T value) {
  std::memcpy(reinterpret_cast<char*>(doc) + offset, &value, sizeof value);
}

bool HoldsHeapLayout(const bson_t& doc) {
  const char* base = reinterpret_cast<const char*>(&doc);
  return doc.flags == kHeapFlags &&
         FieldAt<const char*>(&doc, offsetof(HeapLayout, buf)) == base + offsetof(HeapLayout, alloc) &&
         FieldAt<const char*>(&doc, offsetof(HeapLayout, buflen)) == base + offsetof(HeapLayout, alloclen);
}

// Moves `from` into `to` (which holds nothing to free) and leaves `from`
// empty. Documents move several times on a request's path (a command body,
// a reply, a found document): the struct is copied as a fixed block (a few
// vector moves) and a heap one's two self-pointers re-aimed, what
// bson_steal does after its call to bson_init and flag tests, about 65
// instructions per move (issue #18).
void MoveDoc(bson_t* to, bson_t* from) {
  if (IsPlainInline(*from)) {
    to->flags = kInlineFlags;
    to->len = from->len;
    std::memcpy(to->padding, from->padding, sizeof to->padding);
    ResetInline(from);
    return;
  }
  if (HoldsHeapLayout(*from)) {
    std::memcpy(static_cast<void*>(to), from, sizeof *to);
    char* base = reinterpret_cast<char*>(to);
    SetFieldAt(to, offsetof(HeapLayout, buf), base + offsetof(HeapLayout, alloc));
    SetFieldAt(to, offsetof(HeapLayout, buflen), base + offsetof(HeapLayout, alloclen));
    ResetInline(from);  // the buffer is `to`'s now
    return;
  }
  bson_steal(to, from);
  bson_init(from);
}

}  // namespace

// Most documents moved on a request's path are empty (the unset options of
// a find travel through several structs: about 70 moves per find by _id).
// Moving an empty one is initialising an empty one: the source stays the
// empty document a moved-from BsonDoc holds anyway, and bson_steal's copy
// of the 120-byte inline buffer and the re-initialisation are skipped.
BsonDoc::BsonDoc(BsonDoc&& other) noexcept {
  if (other.doc_.len == 5) {
    ResetInline(&doc_);
    return;
  }
  MoveDoc(&doc_, &other.doc_);
}

BsonDoc& BsonDoc::operator=(BsonDoc&& other) noexcept {
  if (this != &other) {
    if (!IsPlainInline(doc_)) bson_destroy(&doc_);  // an inline one owns nothing
    if (other.doc_.len == 5) {
      ResetInline(&doc_);
      return *this;
    }
    MoveDoc(&doc_, &other.doc_);
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
  // A document that fits the inline buffer is copied into it, as libbson
  // would keep a bson_init'd one of that size: bson_copy_to of a static view
  // always allocates (a malloc and a free per command body, issue #18).
  if (len <= sizeof out.doc_.padding) {
    uint32_t declared;
    std::memcpy(&declared, data, sizeof declared);  // bson_init_static's checks
    INVARIANT(len >= 5 && BSON_UINT32_FROM_LE(declared) == len && data[len - 1] == 0);
    out.doc_.len = static_cast<uint32_t>(len);
    std::memcpy(out.doc_.padding, data, len);
    return out;
  }
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
