#include "wire/protocol/byte_reader.h"

#include <cstdio>
#include <cstring>

#include <boost/container/small_vector.hpp>

#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {
namespace {

Status Malformed(size_t offset, const char* what) {
  return Status(ErrorCode::kInvalidBSON,
                std::string("invalid BSON: ") + what + " at byte offset " + std::to_string(offset));
}

// What bson_utf8_validate(p, n, allow_nul) answers, with ASCII (nearly every
// key and most strings) settled eight bytes at a time; anything else is
// left to libbson's own function, so both agree by construction.
bool Utf8Valid(const uint8_t* p, size_t n, bool allow_nul) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, sizeof word);
    if ((word & 0x8080808080808080ULL) != 0) {
      return bson_utf8_validate(reinterpret_cast<const char*>(p), n, allow_nul);
    }
  }
  for (; i < n; ++i) {
    if ((p[i] & 0x80) != 0) {
      return bson_utf8_validate(reinterpret_cast<const char*>(p), n, allow_nul);
    }
  }
  return true;  // ASCII is valid UTF-8, NULs included (keys hold none)
}

}  // namespace

Status ByteReader::Truncated(size_t needed) const {
  // MongoDB's ConstDataRange wording, so the two servers read alike.
  return Status(ErrorCode::kOverflow, "Invalid offset(" + std::to_string(pos_ + needed) +
                                          ") past end of buffer[" + std::to_string(len_) + "]");
}

StatusWith<uint8_t> ByteReader::ReadUint8() {
  if (remaining() < 1) return Truncated(1);
  return data_[pos_++];
}

StatusWith<int32_t> ByteReader::ReadInt32() {
  if (remaining() < 4) return Truncated(4);
  const int32_t v = LoadInt32(data_ + pos_);
  pos_ += 4;
  return v;
}

StatusWith<std::string> ByteReader::ReadCString() {
  const void* nul = std::memchr(data_ + pos_, 0, remaining());
  if (nul == nullptr) {
    return Status(ErrorCode::kOverflow, "string at offset " + std::to_string(pos_) +
                                            " is not NUL-terminated within its buffer");
  }
  const size_t n = static_cast<const uint8_t*>(nul) - (data_ + pos_);
  std::string out(reinterpret_cast<const char*>(data_ + pos_), n);
  pos_ += n + 1;
  return out;
}

StatusWith<ByteReader> ByteReader::ReadSubrange(size_t n) {
  if (remaining() < n) return Truncated(n);
  ByteReader sub(data_ + pos_, n);
  pos_ += n;
  return sub;
}

size_t ByteReader::CountDocuments() const {
  size_t count = 0;
  for (size_t pos = pos_; len_ - pos >= 4; ++count) {
    const int32_t size = LoadInt32(data_ + pos);
    if (size < 5 || static_cast<size_t>(size) > len_ - pos) return count + 1;
    pos += static_cast<size_t>(size);
  }
  return count;
}

StatusWith<std::string_view> ByteReader::ReadDocumentBytes(TopLevelProbe* probe) {
  if (remaining() < 4) return Truncated(4);
  const int32_t size = LoadInt32(data_ + pos_);
  if (size < 5 || size > kMaxBsonObjectBytes) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%X", static_cast<uint32_t>(size));
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "BSONObj size: " + std::to_string(size) + " (0x" + hex +
                      ") is invalid. Size must be between 0 and " +
                      std::to_string(kMaxBsonObjectBytes) + "(16MB)");
  }
  if (static_cast<size_t>(size) > remaining()) {
    return Status(ErrorCode::kInvalidBSON, "invalid BSON: document at byte offset " +
                                               std::to_string(pos_) + " declares " +
                                               std::to_string(size) + " bytes but only " +
                                               std::to_string(remaining()) + " remain");
  }
  bool content_valid = false;
  RETURN_IF_ERROR(CheckBsonNesting(data_ + pos_, static_cast<size_t>(size), kMaxBsonNestingDepth,
                                   &content_valid, probe));
  // Otherwise libbson's verdict (and its error offset) is the reference;
  // the copy FromBytes makes is dropped (only documents the walk leaves to
  // libbson come here).
  if (!content_valid) {
    RETURN_IF_ERROR(bson::BsonDoc::FromBytes(data_ + pos_, static_cast<size_t>(size)).status());
  }
  const std::string_view bytes(reinterpret_cast<const char*>(data_ + pos_), static_cast<size_t>(size));
  pos_ += static_cast<size_t>(size);
  return bytes;
}

StatusWith<bson::BsonDoc> ByteReader::ReadDocument(TopLevelProbe* probe) {
  ASSIGN_OR_RETURN(std::string_view bytes, ReadDocumentBytes(probe));
  return bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// Walks the element headers of a BSON document with an explicit stack of
// open (sub)documents, so hostile nesting costs heap bounded by max_depth
// rather than C++ stack. Only the framing is checked here (types, sizes,
// terminators); bson_validate checks the rest afterwards, unless
// `content_valid` reports that this walk checked it too (byte_reader.h).
Status CheckBsonNesting(const uint8_t* doc, size_t len, int max_depth, bool* content_valid,
                        TopLevelProbe* probe) {
  if (content_valid != nullptr) *content_valid = false;
  if (probe != nullptr) probe->at = 0;
  if (len < 5 || static_cast<size_t>(LoadInt32(doc)) != len || doc[len - 1] != 0) {
    return Malformed(0, "document size or terminator");
  }
  // Stays true while every element passed what bson_validate would check.
  bool content_ok = true;
  // Each entry is the offset of the terminating NUL of an open document;
  // commands and documents rarely nest deeper than the inline room.
  boost::container::small_vector<size_t, 16> open_ends{len - 1};
  size_t pos = 4;
  // Reads a little-endian int32 length at `pos` that must fit before `end`.
  auto read_len = [&](size_t end, int32_t* out) {
    if (end < pos || end - pos < 4) return false;
    *out = LoadInt32(doc + pos);
    return *out >= 0;
  };
  while (!open_ends.empty()) {
    const size_t end = open_ends.back();
    if (pos == end) {  // Terminator of the innermost open document.
      ++pos;
      open_ends.pop_back();
      continue;
    }
    if (pos > end) return Malformed(pos, "element overruns its document");
    const uint8_t type = doc[pos++];
    // The key's NUL and whether it is ASCII, in one pass over its bytes
    // (keys are short: a memchr call and a second pass for UTF-8 cost more,
    // issue #18); a key with other bytes is left to bson_utf8_validate.
    const size_t key_at = pos;
    uint8_t key_bits = 0;
    while (pos != end && doc[pos] != 0) key_bits |= doc[pos++];
    if (pos == end) return Malformed(key_at, "unterminated field name");
    if (content_ok && (key_bits & 0x80) != 0 &&
        !bson_utf8_validate(reinterpret_cast<const char*>(doc + key_at), pos - key_at, false)) {
      content_ok = false;
    }
    if (probe != nullptr && probe->at == 0 && open_ends.size() == 1 &&
        pos - key_at == probe->key.size() &&
        std::memcmp(doc + key_at, probe->key.data(), probe->key.size()) == 0) {
      probe->at = static_cast<uint32_t>(key_at - 1);
    }
    ++pos;  // the key's NUL

    size_t fixed = 0;  // Size of a fixed-width value, 0 when handled below.
    int32_t n = 0;
    switch (static_cast<bson_type_t>(type)) {
      case BSON_TYPE_UNDEFINED:
      case BSON_TYPE_NULL:
      case BSON_TYPE_MINKEY:
      case BSON_TYPE_MAXKEY:
        break;
      case BSON_TYPE_BOOL:
        if (end - pos >= 1 && doc[pos] > 1) content_ok = false;
        fixed = 1;
        break;
      case BSON_TYPE_INT32:
        fixed = 4;
        break;
      case BSON_TYPE_DOUBLE:
      case BSON_TYPE_DATE_TIME:
      case BSON_TYPE_TIMESTAMP:
      case BSON_TYPE_INT64:
        fixed = 8;
        break;
      case BSON_TYPE_OID:
        fixed = 12;
        break;
      case BSON_TYPE_DECIMAL128:
        fixed = 16;
        break;
      case BSON_TYPE_UTF8:
      case BSON_TYPE_CODE:
      case BSON_TYPE_SYMBOL:
      case BSON_TYPE_DBPOINTER:  // a string, then an ObjectId
        if (!read_len(end, &n) || n < 1 || end - pos - 4 < static_cast<size_t>(n)) {
          return Malformed(pos, "string length");
        }
        if (type == BSON_TYPE_DBPOINTER) {
          content_ok = false;  // left to libbson
        } else if (content_ok) {
          // libbson wants the string's last byte NUL and the bytes before it
          // UTF-8 (NULs allowed).
          const uint8_t* chars = doc + pos + 4;
          const size_t count = static_cast<size_t>(n) - 1;
          content_ok = chars[count] == 0 && Utf8Valid(chars, count, /*allow_nul=*/true);
        }
        pos += 4 + static_cast<size_t>(n);
        if (type == BSON_TYPE_DBPOINTER) fixed = 12;
        break;
      case BSON_TYPE_BINARY:  // length, subtype, bytes
        if (!read_len(end, &n) || end - pos - 4 < static_cast<size_t>(n) + 1) {
          return Malformed(pos, "binary length");
        }
        // Subtype 2 repeats its length inside: left to libbson.
        if (doc[pos + 4] == BSON_SUBTYPE_BINARY_DEPRECATED) content_ok = false;
        pos += 5 + static_cast<size_t>(n);
        break;
      case BSON_TYPE_REGEX:  // pattern and options cstrings
        content_ok = false;  // left to libbson
        for (int i = 0; i < 2; ++i) {
          const void* nul = std::memchr(doc + pos, 0, end - pos);
          if (nul == nullptr) return Malformed(pos, "unterminated regex");
          pos = static_cast<const uint8_t*>(nul) - doc + 1;
        }
        break;
      case BSON_TYPE_DOCUMENT:
      case BSON_TYPE_ARRAY:
      case BSON_TYPE_CODEWSCOPE: {  // total size, string, scope document
        size_t sub = pos;
        if (type == BSON_TYPE_CODEWSCOPE) {
          content_ok = false;  // left to libbson
          int32_t total = 0, slen = 0;
          if (!read_len(end, &total) || end - pos < static_cast<size_t>(total)) {
            return Malformed(pos, "code-with-scope length");
          }
          const size_t scope_end = pos + static_cast<size_t>(total);  // one past the scope
          pos += 4;
          if (!read_len(scope_end, &slen) || slen < 1 ||
              scope_end - pos - 4 < static_cast<size_t>(slen)) {
            return Malformed(pos, "code-with-scope string");
          }
          pos += 4 + static_cast<size_t>(slen);
          sub = pos;
          if (scope_end - sub < 5 || static_cast<size_t>(LoadInt32(doc + sub)) != scope_end - sub) {
            return Malformed(sub, "code-with-scope scope size");
          }
        }
        if (!read_len(end, &n) || n < 5 || end - pos < static_cast<size_t>(n) ||
            doc[pos + static_cast<size_t>(n) - 1] != 0) {
          return Malformed(pos, "embedded document size or terminator");
        }
        if (open_ends.size() > static_cast<size_t>(max_depth)) {
          return Status(ErrorCode::kOverflow, "BSONObj exceeded maximum nested object depth: " +
                                                  std::to_string(max_depth));
        }
        open_ends.push_back(sub + static_cast<size_t>(n) - 1);
        pos = sub + 4;
        break;
      }
      default:
        return Malformed(pos, "unknown element type");
    }
    if (fixed != 0) {
      if (end - pos < fixed) return Malformed(pos, "value overruns its document");
      pos += fixed;
    }
  }
  if (pos != len) return Malformed(pos, "trailing bytes");
  if (content_valid != nullptr) *content_valid = content_ok;
  return Status::OK();
}

}  // namespace tigerdoc::wire
