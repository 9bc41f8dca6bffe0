// Resume token encoding (grammar in the header).

#include "engine/changes/resume_token.h"

namespace tigerdoc::engine {
namespace {

constexpr uint8_t kVersion = 1;
constexpr size_t kBytes = 14;

void Put32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

uint32_t Get32(const std::string& in, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(in[at + i]);
  return v;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

Status Malformed(std::string_view what) {
  return Status(ErrorCode::kBadValue, "Invalid resume token: " + std::string(what));
}

}  // namespace

std::string ResumeToken::ToHex() const {
  std::string bytes;
  bytes.push_back(static_cast<char>(kVersion));
  Put32(&bytes, pos.ts.seconds);
  Put32(&bytes, pos.ts.increment);
  Put32(&bytes, pos.seq);
  bytes.push_back(static_cast<char>(kind));
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  return hex;
}

bson::BsonDoc ResumeToken::ToBson() const {
  bson::BsonDoc out;
  const std::string hex = ToHex();
  bson_append_utf8(out.mutable_get(), "_data", 5, hex.data(), static_cast<int>(hex.size()));
  return out;
}

StatusWith<ResumeToken> ResumeToken::FromHex(std::string_view hex) {
  if (hex.size() != 2 * kBytes) return Malformed("wrong length");
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = HexDigit(hex[i]), lo = HexDigit(hex[i + 1]);
    if (hi < 0 || lo < 0) return Malformed("not hexadecimal");
    bytes.push_back(static_cast<char>(hi * 16 + lo));
  }
  if (static_cast<uint8_t>(bytes[0]) != kVersion) return Malformed("unknown version");
  ResumeToken token;
  token.pos.ts.seconds = Get32(bytes, 1);
  token.pos.ts.increment = Get32(bytes, 5);
  token.pos.seq = Get32(bytes, 9);
  const uint8_t kind = static_cast<uint8_t>(bytes[13]);
  if (kind > 2) return Malformed("unknown kind");
  token.kind = static_cast<Kind>(kind);
  return token;
}

StatusWith<ResumeToken> ResumeToken::FromBson(const bson_t* token, const std::string& field) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, token, "_data") || !BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kBadValue,
                  "BSON field '" + field + "' must be a resume token {_data: <string>}");
  }
  uint32_t len = 0;
  const char* data = bson_iter_utf8(&it, &len);
  return FromHex(std::string_view(data, len));
}

}  // namespace tigerdoc::engine
