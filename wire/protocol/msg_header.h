#pragma once
// MsgHeader: the 16-byte header that starts every MongoDB wire message.
//
//   header := messageLength:int32 requestID:int32 responseTo:int32 opCode:int32
//
// All integers are little-endian. messageLength counts the whole message,
// header included. tigerdoc accepts kMinMessageBytes <= messageLength <=
// kMaxMessageBytes (MongoDB's MaxMessageSizeBytes); anything else is a
// framing error that closes the connection.
//
// Thread-safety: plain values and pure functions.

#include <cstddef>
#include <cstdint>

#include "engine/base/status.h"

namespace tigerdoc::wire {

inline constexpr int32_t kOpReply = 1;
inline constexpr int32_t kOpQuery = 2004;
inline constexpr int32_t kOpCompressed = 2012;
inline constexpr int32_t kOpMsg = 2013;

inline constexpr size_t kHeaderBytes = 16;
inline constexpr int32_t kMinMessageBytes = 16;
inline constexpr int32_t kMaxMessageBytes = 48000000;

struct MsgHeader {
  int32_t message_length = 0;
  int32_t request_id = 0;
  int32_t response_to = 0;
  int32_t op_code = 0;
};

// Little-endian helpers shared by the codecs.
// REQUIRES: `p` points at 4 readable (or writable) bytes.
inline int32_t LoadInt32(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                              static_cast<uint32_t>(p[2]) << 16 |
                              static_cast<uint32_t>(p[3]) << 24);
}
inline uint32_t LoadUint32(const uint8_t* p) { return static_cast<uint32_t>(LoadInt32(p)); }
inline void StoreInt32(uint8_t* p, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  p[0] = static_cast<uint8_t>(u);
  p[1] = static_cast<uint8_t>(u >> 8);
  p[2] = static_cast<uint8_t>(u >> 16);
  p[3] = static_cast<uint8_t>(u >> 24);
}

// Decodes the first 16 bytes and checks messageLength against the bounds
// above. Fails with ProtocolError when len < 16 or the length is out of
// bounds; does not compare messageLength with `len` (a reader that has only
// the header calls this to learn how much more to read).
StatusWith<MsgHeader> ParseHeader(const uint8_t* data, size_t len);

// Writes `header` as 16 little-endian bytes at `out`.
// REQUIRES: `out` has 16 writable bytes.
void WriteHeader(const MsgHeader& header, uint8_t* out);

}  // namespace tigerdoc::wire
