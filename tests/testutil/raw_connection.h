#pragma once
// RawConnection: a plain TCP socket to the server for tests that must send
// bytes no driver would send (bad lengths, garbage BSON, truncated frames),
// plus a minimal OP_MSG encoder/decoder to talk sense on the same socket.
//
// Thread-safety: one thread per RawConnection. Owns its file descriptor.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::testutil {

class RawConnection {
 public:
  enum class ReadResult {
    kMessage,  // one whole message (header included) was read
    kClosed,   // the server closed (EOF or reset) before a whole message
    kTimeout,  // nothing conclusive within the timeout
  };

  static StatusWith<RawConnection> Connect(int port);
  RawConnection(RawConnection&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RawConnection& operator=(RawConnection&&) = delete;
  RawConnection(const RawConnection&) = delete;
  ~RawConnection();

  // Writes all bytes. A failure usually means the server closed already.
  Status Send(std::string_view bytes);
  // Reads one message (length-prefixed) into *message.
  ReadResult ReadMessage(std::string* message, std::chrono::milliseconds timeout);
  // Half-closes the write side, as a client that stops mid-message does.
  void ShutdownWrite();

 private:
  explicit RawConnection(int fd) : fd_(fd) {}
  int fd_ = -1;
};

constexpr int32_t kOpMsg = 2013;

// A 16-byte message header (little-endian).
std::string EncodeHeader(int32_t message_length, int32_t request_id, int32_t response_to,
                         int32_t op_code);
// OP_MSG with flag bits `flags` and one kind-0 section holding `body`.
std::string EncodeOpMsg(int32_t request_id, const bson::BsonDoc& body, uint32_t flags = 0);
// responseTo of a message.
int32_t ResponseTo(std::string_view message);
// The kind-0 body of an OP_MSG reply; fails when `message` is not one.
StatusWith<bson::BsonDoc> DecodeOpMsgBody(std::string_view message);

}  // namespace tigerdoc::testutil
