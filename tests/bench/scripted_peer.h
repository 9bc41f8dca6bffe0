#pragma once
// ScriptedPeer: a stand-in server for the bench clients' tests
// (tests/bench): it answers each request with whatever the test scripts,
// so a test can send the replies a real server never would (broken
// framing, wrong counts, another document) and check that the client
// notices. Every request is parsed with the server's own OP_MSG parser and
// kept for the test to inspect.
//
// Thread-safety: the peer serves on a thread of its own; Finish() joins it.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testutil/mongo_client.h"
#include "wire/protocol/msg_header.h"
#include "wire/protocol/op_msg.h"

namespace tigerdoc::bench {

using testutil::BsonDoc;

// Accepts one connection on a loopback port and answers each request with
// the chunks `answer` returns for it (sent apart, 20 ms between them); no
// chunks: close the connection. Every request is parsed with the server's
// OP_MSG parser and kept for the test to check.
class ScriptedPeer {
 public:
  struct Request {
    wire::MsgHeader header;
    wire::OpMsg msg;  // its document sequences are views into `bytes`
    std::vector<uint8_t> bytes;
  };
  using Answer = std::function<std::vector<std::string>(size_t index, const Request&)>;

  explicit ScriptedPeer(Answer answer) : answer_(std::move(answer)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(listen_fd_, 1), 0);
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedPeer() {
    shutdown(listen_fd_, SHUT_RDWR);  // unblocks an accept still waiting
    if (thread_.joinable()) thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }
  // Waits for the peer to finish (the client closed, or the script did).
  std::vector<Request> Finish() {
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(requests_);
  }

 private:
  bool ReadFull(int fd, uint8_t* out, size_t n) {
    size_t have = 0;
    while (have < n) {
      ssize_t r = recv(fd, out + have, n - have, 0);
      if (r <= 0) return false;
      have += static_cast<size_t>(r);
    }
    return true;
  }

  void Serve() {
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    for (size_t index = 0;; ++index) {
      std::vector<uint8_t> message(wire::kHeaderBytes);
      if (!ReadFull(fd, message.data(), message.size())) break;
      auto header = wire::ParseHeader(message.data(), message.size());
      if (!header.ok()) {
        ADD_FAILURE() << "bad request header: " << header.status().ToString();
        break;
      }
      message.resize(static_cast<size_t>(header.value().message_length));
      if (!ReadFull(fd, message.data() + wire::kHeaderBytes, message.size() - wire::kHeaderBytes)) break;
      auto msg = wire::ParseOpMsg(message.data(), message.size());
      if (!msg.ok()) {
        ADD_FAILURE() << "bad request: " << msg.status().ToString();
        break;
      }
      // Moving the vector keeps its buffer, so the sequences' views stay valid.
      Request request{header.value(), std::move(msg).value(), std::move(message)};
      std::vector<std::string> chunks = answer_(index, request);
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(std::move(request));
      }
      if (chunks.empty()) break;
      for (size_t i = 0; i < chunks.size(); ++i) {
        if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        send(fd, chunks[i].data(), chunks[i].size(), MSG_NOSIGNAL);
      }
    }
    close(fd);
  }

  Answer answer_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Request> requests_;
};

// A hello reply; maxWriteBatchSize is MongoDB's unless given.
inline BsonDoc HelloBody(int max_wire_version = 21, int max_write_batch_size = 100000) {
  return BsonDoc::FromJson(R"({"isWritablePrimary": true, "maxBsonObjectSize": 16777216,
      "maxMessageSizeBytes": 48000000, "maxWriteBatchSize": )" +
                           std::to_string(max_write_batch_size) +
                           R"(, "minWireVersion": 0, "maxWireVersion": )" +
                           std::to_string(max_wire_version) + R"(, "ok": 1.0})");
}

inline std::string Reply(const ScriptedPeer::Request& request, const BsonDoc& body, uint32_t flags = 0,
                  const std::vector<wire::DocumentSequence>& sequences = {}) {
  // requestIDs of the peer's own, far from the client's.
  return wire::SerializeOpMsg(7000 + request.header.request_id, request.header.request_id, flags,
                              body, sequences);
}

// A peer that answers the handshake, then answers request 1 with `second`.
inline ScriptedPeer::Answer AfterHello(std::function<std::vector<std::string>(const ScriptedPeer::Request&)> second) {
  return [second](size_t index, const ScriptedPeer::Request& request) -> std::vector<std::string> {
    if (index == 0) return {Reply(request, HelloBody())};
    if (index == 1) return second(request);
    return {Reply(request, BsonDoc::FromJson(R"({"ok": 1.0})"))};
  };
}


}  // namespace tigerdoc::bench
