#pragma once
// ByteReader: a bounds-checked cursor over a byte range, used by the wire
// decoders so that no length read from the network can cause an over-read.
// Every Read* either consumes exactly what it returns or fails and leaves
// the cursor where it was.
//
// Error codes follow MongoDB's readers: running off the end of the range is
// Overflow (15); a document that is malformed is InvalidBSON (22); a
// document whose declared size is outside 5..16 MiB + 16 KiB is
// BSONObjectTooLarge (10334); nesting deeper than kMaxBsonNestingDepth is
// Overflow.
//
// Ownership: borrows the bytes, which must outlive the reader. Documents are
// returned as owning copies (ReadDocument) or views (ReadDocumentBytes).
// Thread-safety: none (a value on one stack).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::wire {

// MongoDB's BSONObjMaxInternalSize: user documents are limited to 16 MiB,
// command bodies may carry 16 KiB of overhead on top.
inline constexpr int32_t kMaxBsonObjectBytes = 16 * 1024 * 1024 + 16 * 1024;
// MongoDB's default maxBSONDepth. Also bounds the recursion of
// bson_validate, which a deeply nested hostile document could otherwise use
// to exhaust the stack.
inline constexpr int kMaxBsonNestingDepth = 200;

// A top-level field a document's checks also look for on their way, so
// that the caller needs no second walk for it (the $db of an OP_MSG body:
// about 500 instructions a command, issue #18). After a successful check,
// `at` is the offset of the type byte of its first occurrence in the
// document, 0 when the document has none.
struct TopLevelProbe {
  std::string_view key;
  uint32_t at = 0;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t len) : data_(data), len_(len) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return len_ - pos_; }
  bool AtEnd() const { return pos_ == len_; }

  StatusWith<uint8_t> ReadUint8();
  StatusWith<int32_t> ReadInt32();
  // A NUL-terminated string; the NUL is consumed but not returned.
  StatusWith<std::string> ReadCString();
  // A reader over the next `n` bytes, which this reader skips.
  StatusWith<ByteReader> ReadSubrange(size_t n);
  // One BSON document: size-bounded, depth-bounded, then bson_validate
  // (skipped when CheckBsonNesting already vouched for the content).
  StatusWith<bson::BsonDoc> ReadDocument(TopLevelProbe* probe = nullptr);
  // The same checks, returning the document's bytes in place (valid while
  // the reader's bytes live) instead of a copy.
  StatusWith<std::string_view> ReadDocumentBytes(TopLevelProbe* probe = nullptr);
  // How many documents the rest of the bytes frame by their length
  // prefixes (without checking them): what ReadDocument would return at
  // most, to reserve room before reading them.
  size_t CountDocuments() const;

 private:
  Status Truncated(size_t needed) const;

  const uint8_t* data_;
  size_t len_;
  size_t pos_ = 0;
};

// Checks that the `len` bytes at `doc` are one structurally well-formed BSON
// document whose sub-documents nest at most `max_depth` levels, without
// recursion. Used before bson_validate; exposed for tests.
//
// When `content_valid` is given and the framing is fine, it is set to true
// if the same walk also found everything else that bson_validate(
// BSON_VALIDATE_NONE) of libbson 1.23 checks to be valid: UTF-8 of keys and
// of string, code and symbol values (ASCII in one word-wide pass, anything
// else by libbson's own bson_utf8_validate), the NUL that ends each string,
// booleans 0 or 1. Then bson_validate would accept the document and the
// caller may skip it (it costs 3,400 instructions for a 130-byte document,
// a quarter of an inserted document's server CPU). It is false when an
// element failed one of these checks or is of a type left to libbson
// (regex, DBPointer, code with scope, binary subtype 2): the caller runs
// bson_validate, whose verdict and error offset stay the reference.
//
// `probe` (optional): the top-level field to find on the way (see above).
Status CheckBsonNesting(const uint8_t* doc, size_t len, int max_depth,
                        bool* content_valid = nullptr, TopLevelProbe* probe = nullptr);

}  // namespace tigerdoc::wire
