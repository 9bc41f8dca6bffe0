#pragma once
// WireClient: the thinnest MongoDB client a benchmark can use, the
// counterpart of libpq beside a full driver (libmongoc). One blocking TCP
// connection (TCP_NODELAY), the `hello` handshake once at Connect, then
// each command is one OP_MSG request and one OP_MSG reply:
//
//   request := header(messageLength, requestID, responseTo 0, opCode 2013)
//              flagBits 0, section kind 0 = the command with $db appended,
//              optionally one kind-1 section (a document sequence, as
//              drivers send a write's documents/updates)
//   reply   := checked to answer that request (responseTo == requestID,
//              opCode 2013, messageLength within the handshake's
//              maxMessageSizeBytes, no unknown required flag bit, no
//              moreToCome since no request allows exhaust, a CRC-32C
//              checksum verified when present, exactly one kind-0 section,
//              kind-1 sections skipped) and read in as many recv() calls as
//              it takes.
//
// No server selection, no monitoring, no sessions, no retries, no
// compression, no TLS or authentication: a benchmark's hot loop against one
// known server, nothing more (bench/README.md, "A thin wire client beside
// libmongoc").
//
// After a socket or protocol error the connection is unusable (the stream
// may be mid-message): every later Run fails at once with the same error.
//
// Thread-safety: one thread per WireClient. Owns its socket.

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace tigerdoc::bench {

// A document sequence (OP_MSG section kind 1) sent after the command: the
// documents back to back, each a whole BSON document. Views: the caller
// keeps the bytes alive for the Run.
struct WireSequence {
  std::string_view identifier;  // "documents", "updates", ...
  const uint8_t* documents = nullptr;
  size_t bytes = 0;
};

// The host and port of the first host of a MongoDB connection string
// (mongodb://host:port/...): the server a WireClient talks to.
Status FirstHostOfUri(const std::string& uri, std::string* host, int* port);

// The framing WireClient::Run uses, for a driver that does its own socket
// I/O (bench/event_crowd.h: many non-blocking connections on one thread).
// EncodeWireRequest appends {$db: db} to *command and writes the whole
// OP_MSG request to *out (BSONObjectTooLarge past max_message_bytes).
Status EncodeWireRequest(bson_t* command, std::string_view db, int32_t request_id,
                         const WireSequence* sequence, int32_t max_message_bytes,
                         std::vector<uint8_t>* out);
// The messageLength in a reply's first 4 bytes, which must lie between the
// least a reply can be and max_message_bytes (ProtocolError otherwise).
StatusWith<size_t> WireReplyLength(const uint8_t* first4, int32_t max_message_bytes);
// Checks the framing of the whole reply msg[0, len) to `request_id` (see
// above) and points *body at its kind-0 section; ProtocolError otherwise.
Status ParseWireReply(const uint8_t* msg, size_t len, int32_t request_id, bson_t* body);
// OK when a reply body's `ok` is 1; else the server's error (code, errmsg, codeName).
Status WireReplyStatus(const bson_t* body);

class WireClient {
 public:
  // Connects to host:port (a numeric address or a name), runs
  // {hello: 1, client: {...}} on admin and requires a server that speaks
  // OP_MSG (maxWireVersion >= 6).
  static StatusWith<std::unique_ptr<WireClient>> Connect(const std::string& host, int port);
  ~WireClient();
  WireClient(const WireClient&) = delete;
  WireClient& operator=(const WireClient&) = delete;

  // Appends {$db: db} to *command, sends it and waits for its reply.
  // OK when the reply's `ok` is 1; the server's error (its code, errmsg and
  // codeName) when `ok` is 0 or absent; ProtocolError for a reply that
  // breaks the wire protocol; HostUnreachable for a failed socket.
  // *reply is set (bson_init_static over this client's buffer) whenever a
  // well-formed reply arrived, ok or not, and stays valid until the next
  // Run or the client's destruction; it must not be modified.
  // With `sequence`, its documents follow the command in a kind-1 section.
  Status Run(bson_t* command, std::string_view db, bson_t* reply,
             const WireSequence* sequence = nullptr);

  // Hands the (connected, handshaken) socket to the caller, who then owns
  // it; the client is unusable afterwards. Requests and replies on it keep
  // the framing above (EncodeWireRequest / ParseWireReply).
  int ReleaseSocket();

  // From the handshake.
  int32_t max_message_bytes() const { return max_message_bytes_; }
  int32_t max_bson_object_bytes() const { return max_bson_object_bytes_; }
  int32_t max_write_batch_size() const { return max_write_batch_size_; }
  // Replies read so far that took more than one recv() (for tests: a large
  // reply must be assembled, not truncated).
  int64_t multi_read_replies() const { return multi_read_replies_; }

 private:
  explicit WireClient(int fd) : fd_(fd) {}
  Status Handshake();
  Status Send(const std::vector<uint8_t>& request);
  // Reads one whole message into in_ and returns its length.
  StatusWith<size_t> ReadMessage();
  Status Fail(Status status);

  int fd_;
  int32_t next_request_id_ = 1;
  // Until the handshake says otherwise: MongoDB's defaults.
  int32_t max_message_bytes_ = 48000000;
  int32_t max_bson_object_bytes_ = 16 * 1024 * 1024;
  int32_t max_write_batch_size_ = 100000;
  int64_t multi_read_replies_ = 0;
  Status broken_;                // set by the first socket/protocol error
  std::vector<uint8_t> out_;     // the request being sent
  std::vector<uint8_t> in_;      // the reply last read; grows to the largest
};

}  // namespace tigerdoc::bench
