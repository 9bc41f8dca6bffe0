#pragma once
// RawClient: a blocking POSIX-socket client for server tests. Speaks bytes,
// not a driver protocol, so tests can send malformed messages. Every read
// times out (5 s) so a server bug fails the test instead of hanging it.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire::testing {

class RawClient {
 public:
  // Connects to `ip` (IPv4 or IPv6 literal) at `port`; check connected().
  RawClient(const std::string& ip, int port) {
    sockaddr_storage addr{};
    socklen_t addr_len = 0;
    auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
    if (inet_pton(AF_INET, ip.c_str(), &v4->sin_addr) == 1) {
      v4->sin_family = AF_INET;
      v4->sin_port = htons(static_cast<uint16_t>(port));
      addr_len = sizeof(sockaddr_in);
    } else if (inet_pton(AF_INET6, ip.c_str(), &v6->sin6_addr) == 1) {
      v6->sin6_family = AF_INET6;
      v6->sin6_port = htons(static_cast<uint16_t>(port));
      addr_len = sizeof(sockaddr_in6);
    } else {
      return;
    }
    fd_ = ::socket(addr.ss_family, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), addr_len) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }

  bool Send(const std::string& bytes) { return Send(bytes.data(), bytes.size()); }
  bool Send(const std::vector<uint8_t>& bytes) { return Send(bytes.data(), bytes.size()); }
  bool Send(const void* data, size_t len) {
    const char* p = static_cast<const char*>(data);
    while (len > 0) {
      const ssize_t n = ::send(fd_, p, len, MSG_NOSIGNAL);
      if (n <= 0) return false;
      p += n;
      len -= static_cast<size_t>(n);
    }
    return true;
  }

  // One whole message (header included), or nullopt on EOF, error or timeout.
  std::optional<std::vector<uint8_t>> ReadMessage() {
    std::vector<uint8_t> message(kHeaderBytes);
    if (!ReadExactly(message.data(), kHeaderBytes)) return std::nullopt;
    const int32_t length = LoadInt32(message.data());
    if (length < 16 || length > kMaxMessageBytes) return std::nullopt;
    message.resize(static_cast<size_t>(length));
    if (!ReadExactly(message.data() + kHeaderBytes, message.size() - kHeaderBytes)) {
      return std::nullopt;
    }
    return message;
  }

  // True when the server closed the connection (EOF or reset) within the
  // read timeout, without sending anything first.
  bool ClosedByPeer() {
    char byte;
    const ssize_t n = ::recv(fd_, &byte, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

 private:
  bool ReadExactly(uint8_t* out, size_t len) {
    while (len > 0) {
      const ssize_t n = ::recv(fd_, out, len, 0);
      if (n <= 0) return false;
      out += n;
      len -= static_cast<size_t>(n);
    }
    return true;
  }

  int fd_ = -1;
};

}  // namespace tigerdoc::wire::testing
