#include "tests/testutil/raw_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tigerdoc::testutil {
namespace {

void PutInt32(std::string* out, int32_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

int32_t GetInt32(std::string_view bytes, size_t offset) {
  uint32_t u = 0;
  for (int i = 0; i < 4; ++i) {
    u |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return static_cast<int32_t>(u);
}

}  // namespace

StatusWith<RawConnection> RawConnection::Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status(ErrorCode::kInternalError, std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    Status st(ErrorCode::kHostUnreachable, std::string("connect: ") + std::strerror(errno));
    close(fd);
    return st;
  }
  return RawConnection(fd);
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

Status RawConnection::Send(std::string_view bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(ErrorCode::kInternalError, std::string("send: ") + std::strerror(errno));
    }
    sent += static_cast<size_t>(n);
  }
  return Status::OK();
}

RawConnection::ReadResult RawConnection::ReadMessage(std::string* message,
                                                     std::chrono::milliseconds timeout) {
  message->clear();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t want = 4;  // the length prefix first, then the whole message
  char buf[65536];
  while (message->size() < want) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ReadResult::kTimeout;
    pollfd p{fd_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ReadResult::kTimeout;
    size_t chunk = std::min(sizeof(buf), want - message->size());
    ssize_t n = recv(fd_, buf, chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadResult::kClosed;  // EOF, ECONNRESET
    message->append(buf, static_cast<size_t>(n));
    if (want == 4 && message->size() >= 4) {
      int32_t len = GetInt32(*message, 0);
      if (len < 16) return ReadResult::kClosed;  // not a message we can read: treat as broken
      want = static_cast<size_t>(len);
    }
  }
  return ReadResult::kMessage;
}

void RawConnection::ShutdownWrite() { shutdown(fd_, SHUT_WR); }

std::string EncodeHeader(int32_t message_length, int32_t request_id, int32_t response_to,
                         int32_t op_code) {
  std::string out;
  PutInt32(&out, message_length);
  PutInt32(&out, request_id);
  PutInt32(&out, response_to);
  PutInt32(&out, op_code);
  return out;
}

// OP_MSG grammar (what this encodes):
//   header(16) flagBits:uint32 section* [checksum:uint32]
//   section := 0x00 document | 0x01 size:int32 identifier:cstring document*
std::string EncodeOpMsg(int32_t request_id, const bson::BsonDoc& body, uint32_t flags) {
  std::string payload;
  PutInt32(&payload, static_cast<int32_t>(flags));
  payload.push_back('\0');  // kind 0
  payload.append(body.bytes());
  return EncodeHeader(static_cast<int32_t>(16 + payload.size()), request_id, 0, kOpMsg) + payload;
}

int32_t ResponseTo(std::string_view message) {
  return message.size() >= 16 ? GetInt32(message, 8) : 0;
}

StatusWith<bson::BsonDoc> DecodeOpMsgBody(std::string_view message) {
  if (message.size() < 21 || GetInt32(message, 12) != kOpMsg) {
    return Status(ErrorCode::kProtocolError, "not an OP_MSG");
  }
  size_t pos = 20;  // header + flagBits
  while (pos < message.size()) {
    uint8_t kind = static_cast<uint8_t>(message[pos++]);
    if (pos + 4 > message.size()) break;
    int32_t len = GetInt32(message, pos);
    if (len < 5 || pos + static_cast<size_t>(len) > message.size()) break;
    if (kind == 0) {
      return bson::BsonDoc::FromBytes(reinterpret_cast<const uint8_t*>(message.data() + pos),
                                      static_cast<size_t>(len));
    }
    pos += static_cast<size_t>(len);
  }
  return Status(ErrorCode::kProtocolError, "OP_MSG without a kind-0 section");
}

}  // namespace tigerdoc::testutil
