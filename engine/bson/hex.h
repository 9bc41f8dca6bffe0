#pragma once
// Lower-case hexadecimal of raw bytes ("0a1b..."), two digits per byte, as
// MongoDB's hexblob::encodeLower writes them (e.g. the hex-encoded
// collation keys of a duplicate key error).
// Thread-safety: pure function.

#include <string>
#include <string_view>

namespace tigerdoc::bson {

inline void AppendLowerHex(std::string_view bytes, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out->reserve(out->size() + 2 * bytes.size());
  for (unsigned char c : bytes) {
    out->push_back(kDigits[c >> 4]);
    out->push_back(kDigits[c & 0xF]);
  }
}

}  // namespace tigerdoc::bson
