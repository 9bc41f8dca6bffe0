#pragma once
// LocateTopLevelFields: where named top-level fields sit in a stored
// document, for the in-place update paths (in_place_increment.h,
// in_place_set.h), which rewrite those fields' bytes and keep every other
// byte of the document.
//
// The general path (UpdateDriver::ApplyModifiers) instead re-renders the
// whole document through MutableValue, which renumbers array keys ("0",
// "1", ...) and re-appends every scalar through libbson. So an in-place
// answer equals the general one only when re-rendering would reproduce the
// untouched fields byte for byte; Locate vouches for that or answers false:
// the walk (bson::RawFields) broke, a located name repeats, _id is an array
// (the general path refuses it), or some nested document or array holds an
// array with keys other than "0", "1", ..., a regex (libbson re-sorts its
// flags), a DBPointer, code with scope or old binary (subtype 2).
//
// Thread-safety: a pure function.

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::update {

// At most this many fields per in-place update (fixed arrays, no heap).
inline constexpr size_t kMaxInPlaceFields = 8;

// One located element: [begin, end) are its bytes (type byte, name, NUL,
// value); `value` is where its value starts. begin == 0: not in the document.
struct FieldSpan {
  uint32_t begin = 0;
  uint32_t value = 0;
  uint32_t end = 0;
  bson_type_t type = BSON_TYPE_EOD;
  bool found() const { return begin != 0; }
};

// Fills spans[i] for names[i] (i < count <= kMaxInPlaceFields). False: the
// general path must run (see above).
bool LocateTopLevelFields(const bson_t* doc, const std::string_view* names, size_t count,
                          FieldSpan* spans);

// Every top-level element of `doc` with its span, when there are at most
// `max` of them and Locate's conditions hold for the document (the $set
// document of an update: its elements can then be spliced as they are).
// False otherwise.
bool ListTopLevelFields(const bson_t* doc, size_t max, std::string_view* keys, FieldSpan* spans,
                        size_t* count);

// Makes *out a document of `len` bytes and returns them for the caller to
// fill, all `len` of them (bson_reserve_buffer): the in-place paths write
// the new document there once, instead of into a buffer then a copy (about
// 600 instructions of a YCSB update). REQUIRES: 5 <= len <= INT32_MAX.
uint8_t* ResetToBytes(bson::BsonDoc* out, uint32_t len);

}  // namespace tigerdoc::update
