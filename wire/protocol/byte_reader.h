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
// returned as owning copies. Thread-safety: none (a value on one stack).

#include <cstddef>
#include <cstdint>
#include <string>

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
  // One BSON document: size-bounded, depth-bounded, then bson_validate.
  StatusWith<bson::BsonDoc> ReadDocument();
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
Status CheckBsonNesting(const uint8_t* doc, size_t len, int max_depth);

}  // namespace tigerdoc::wire
