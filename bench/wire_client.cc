#include "bench/wire_client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include <mongoc/mongoc.h>

#include "wire/protocol/crc32c.h"
#include "wire/protocol/msg_header.h"
#include "wire/protocol/op_msg.h"

namespace tigerdoc::bench {
namespace {

using wire::kHeaderBytes;
using wire::LoadInt32;
using wire::LoadUint32;
using wire::StoreInt32;

constexpr size_t kFlagBytes = 4;
constexpr size_t kChecksumBytes = 4;
constexpr uint8_t kBodySection = 0;
constexpr uint8_t kSequenceSection = 1;
// header, flagBits, the kind byte and an empty document: the least a reply can be.
constexpr size_t kMinReplyBytes = kHeaderBytes + kFlagBytes + 1 + 5;
// Flag bits 0-15 are required: a receiver must refuse one it does not know.
constexpr uint32_t kRequiredFlagMask = 0xFFFF;
// A YCSB reply (a record of ~1.1 KB, a scan of up to 100) mostly fits in
// one read; larger ones grow the buffer once.
constexpr size_t kInitialReadBuffer = 16 * 1024;
// MongoDB's first wire version with OP_MSG (3.6).
constexpr int32_t kOpMsgWireVersion = 6;

Status ProtocolError(std::string message) {
  return Status(ErrorCode::kProtocolError, std::move(message));
}

Status SocketError(const char* what) {
  return Status(ErrorCode::kHostUnreachable, std::string(what) + ": " + std::strerror(errno));
}

int32_t Int32Field(const bson_t* doc, const char* key, int32_t absent) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, key) || !BSON_ITER_HOLDS_NUMBER(&it)) return absent;
  return static_cast<int32_t>(bson_iter_as_int64(&it));
}

// The error a reply without ok: 1 stands for: its code, errmsg and codeName.
Status ServerError(const bson_t* reply) {
  bson_iter_t it;
  int32_t code = static_cast<int32_t>(ErrorCode::kUnknownError);
  std::string errmsg = "reply without ok: 1", code_name;
  if (!bson_iter_init(&it, reply)) return ProtocolError("unreadable reply body");
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (std::strcmp(key, "code") == 0 && BSON_ITER_HOLDS_NUMBER(&it)) {
      code = static_cast<int32_t>(bson_iter_as_int64(&it));
    } else if (std::strcmp(key, "errmsg") == 0 && BSON_ITER_HOLDS_UTF8(&it)) {
      errmsg = bson_iter_utf8(&it, nullptr);
    } else if (std::strcmp(key, "codeName") == 0 && BSON_ITER_HOLDS_UTF8(&it)) {
      code_name = bson_iter_utf8(&it, nullptr);
    }
  }
  if (!code_name.empty()) errmsg += " (" + code_name + ")";
  return Status(static_cast<ErrorCode>(code), errmsg);
}

}  // namespace

Status EncodeWireRequest(bson_t* command, std::string_view db, int32_t request_id,
                         const WireSequence* sequence, int32_t max_message_bytes,
                         std::vector<uint8_t>* out) {
  bson_append_utf8(command, "$db", 3, db.data(), static_cast<int>(db.size()));
  // A kind-1 section: its kind byte, then its size, which counts itself,
  // the identifier and its NUL, and the documents.
  const size_t sequence_size =
      sequence ? 4 + sequence->identifier.size() + 1 + sequence->bytes : 0;
  const size_t total =
      kHeaderBytes + kFlagBytes + 1 + command->len + (sequence ? 1 + sequence_size : 0);
  if (total > static_cast<size_t>(max_message_bytes)) {
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "request of " + std::to_string(total) + " bytes exceeds maxMessageSizeBytes " +
                      std::to_string(max_message_bytes));
  }
  out->resize(total);
  uint8_t* p = out->data();
  StoreInt32(p, static_cast<int32_t>(total));  // messageLength
  StoreInt32(p + 4, request_id);               // requestID
  StoreInt32(p + 8, 0);                        // responseTo: a request answers nothing
  StoreInt32(p + 12, wire::kOpMsg);            // opCode
  StoreInt32(p + 16, 0);                       // flagBits: no checksum, expect a reply
  p[20] = kBodySection;
  std::memcpy(p + 21, bson_get_data(command), command->len);
  if (sequence) {
    uint8_t* q = p + 21 + command->len;
    *q++ = kSequenceSection;
    StoreInt32(q, static_cast<int32_t>(sequence_size));
    q += 4;
    std::memcpy(q, sequence->identifier.data(), sequence->identifier.size());
    q += sequence->identifier.size();
    *q++ = 0;
    if (sequence->bytes > 0) std::memcpy(q, sequence->documents, sequence->bytes);
  }
  return Status::OK();
}

StatusWith<size_t> WireReplyLength(const uint8_t* first4, int32_t max_message_bytes) {
  const int32_t len = LoadInt32(first4);
  if (len < static_cast<int32_t>(kMinReplyBytes) || len > max_message_bytes) {
    return ProtocolError("reply messageLength " + std::to_string(len) + " is outside [" +
                         std::to_string(kMinReplyBytes) + ", " +
                         std::to_string(max_message_bytes) + "]");
  }
  return static_cast<size_t>(len);
}

Status WireReplyStatus(const bson_t* body) {
  // `ok` is a double in mongod's replies; an int or a bool means the same.
  bson_iter_t it;
  if (bson_iter_init_find(&it, body, "ok") &&
      (BSON_ITER_HOLDS_NUMBER(&it) || BSON_ITER_HOLDS_BOOL(&it)) && bson_iter_as_double(&it) == 1.0) {
    return Status::OK();
  }
  return ServerError(body);
}

Status FirstHostOfUri(const std::string& uri, std::string* host, int* port) {
  bson_error_t error;
  mongoc_uri_t* parsed = mongoc_uri_new_with_error(uri.c_str(), &error);
  if (parsed == nullptr) return Status(ErrorCode::kBadValue, std::string("bad --uri: ") + error.message);
  const mongoc_host_list_t* hosts = mongoc_uri_get_hosts(parsed);
  *host = hosts ? hosts->host : "";
  *port = hosts ? hosts->port : 0;
  mongoc_uri_destroy(parsed);
  if (host->empty()) return Status(ErrorCode::kBadValue, "--uri names no host: " + uri);
  return Status::OK();
}

StatusWith<std::unique_ptr<WireClient>> WireClient::Connect(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Status(ErrorCode::kHostUnreachable, host + ": " + gai_strerror(rc));
  }
  int fd = -1;
  Status last(ErrorCode::kHostUnreachable, "no address for " + host);
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = SocketError("socket");
    } else if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      last = SocketError(("connect " + host + ":" + service).c_str());
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return last;
  // Requests are small and strictly one at a time: never wait for Nagle.
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::unique_ptr<WireClient> client(new WireClient(fd));
  client->in_.resize(kInitialReadBuffer);
  RETURN_IF_ERROR(client->Handshake());
  return client;
}

WireClient::~WireClient() {
  if (fd_ >= 0) close(fd_);
}

Status WireClient::Handshake() {
  bson_t hello = BSON_INITIALIZER, client, driver, os;
  BSON_APPEND_INT32(&hello, "hello", 1);
  BSON_APPEND_DOCUMENT_BEGIN(&hello, "client", &client);
  BSON_APPEND_DOCUMENT_BEGIN(&client, "driver", &driver);
  BSON_APPEND_UTF8(&driver, "name", "tigerdoc-bench-wire");
  BSON_APPEND_UTF8(&driver, "version", "1");
  bson_append_document_end(&client, &driver);
  BSON_APPEND_DOCUMENT_BEGIN(&client, "os", &os);
  BSON_APPEND_UTF8(&os, "type", "Linux");
  bson_append_document_end(&client, &os);
  bson_append_document_end(&hello, &client);
  bson_t reply;
  Status status = Run(&hello, "admin", &reply);
  bson_destroy(&hello);
  if (!status.ok()) return status.WithContext("hello: ");
  const int32_t max_wire = Int32Field(&reply, "maxWireVersion", 0);
  if (max_wire < kOpMsgWireVersion) {
    return Fail(ProtocolError("hello: maxWireVersion " + std::to_string(max_wire) +
                              ": the server does not speak OP_MSG"));
  }
  const int32_t max_message = Int32Field(&reply, "maxMessageSizeBytes", max_message_bytes_);
  const int32_t max_object = Int32Field(&reply, "maxBsonObjectSize", max_bson_object_bytes_);
  const int32_t max_batch = Int32Field(&reply, "maxWriteBatchSize", max_write_batch_size_);
  if (max_message < static_cast<int32_t>(kMinReplyBytes) || max_object < 5 || max_batch < 1) {
    return Fail(ProtocolError("hello: maxMessageSizeBytes " + std::to_string(max_message) +
                              ", maxBsonObjectSize " + std::to_string(max_object) +
                              ", maxWriteBatchSize " + std::to_string(max_batch)));
  }
  max_message_bytes_ = max_message;
  max_bson_object_bytes_ = max_object;
  max_write_batch_size_ = max_batch;
  return Status::OK();
}

Status WireClient::Fail(Status status) {
  if (broken_.ok()) broken_ = status;
  return status;
}

Status WireClient::Run(bson_t* command, std::string_view db, bson_t* reply,
                       const WireSequence* sequence) {
  if (!broken_.ok()) return broken_;
  const int32_t request_id = next_request_id_;
  next_request_id_ = next_request_id_ == INT32_MAX ? 1 : next_request_id_ + 1;
  // Too large a request sends nothing: the connection stays usable.
  RETURN_IF_ERROR(EncodeWireRequest(command, db, request_id, sequence, max_message_bytes_, &out_));
  RETURN_IF_ERROR(Send(out_));
  ASSIGN_OR_RETURN(size_t len, ReadMessage());
  if (Status st = ParseWireReply(in_.data(), len, request_id, reply); !st.ok()) return Fail(st);
  return WireReplyStatus(reply);
}

int WireClient::ReleaseSocket() {
  const int fd = fd_;
  fd_ = -1;
  broken_ = Status(ErrorCode::kHostUnreachable, "the socket was handed to another driver");
  return fd;
}

Status WireClient::Send(const std::vector<uint8_t>& request) {
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail(SocketError("send"));
    }
    sent += static_cast<size_t>(n);
  }
  return Status::OK();
}

StatusWith<size_t> WireClient::ReadMessage() {
  size_t have = 0;
  size_t want = 0;  // messageLength, once its 4 bytes are in
  int reads = 0;
  while (want == 0 || have < want) {
    // Until the length is known, take whatever the buffer holds; a server
    // answering one request at a time sends nothing past its reply.
    const size_t room = want == 0 ? in_.size() - have : want - have;
    ssize_t n = recv(fd_, in_.data() + have, room, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail(SocketError("recv"));
    }
    if (n == 0) return Fail(Status(ErrorCode::kHostUnreachable, "the server closed the connection"));
    ++reads;
    have += static_cast<size_t>(n);
    if (want == 0 && have >= 4) {
      StatusWith<size_t> len = WireReplyLength(in_.data(), max_message_bytes_);
      if (!len.ok()) return Fail(len.status());
      want = len.value();
      if (have > want) return Fail(ProtocolError("bytes after the reply to a single request"));
      if (in_.size() < want) in_.resize(want);
    }
  }
  if (reads > 1) ++multi_read_replies_;
  return want;
}

Status ParseWireReply(const uint8_t* msg, size_t len, int32_t request_id, bson_t* body) {
  const int32_t response_to = LoadInt32(msg + 8);
  const int32_t op_code = LoadInt32(msg + 12);
  if (op_code != wire::kOpMsg) {
    return ProtocolError("reply opCode " + std::to_string(op_code) + ", expected " +
                         std::to_string(wire::kOpMsg) + " (OP_MSG)");
  }
  if (response_to != request_id) {
    return ProtocolError("reply responseTo " + std::to_string(response_to) +
                         ", expected requestID " + std::to_string(request_id));
  }
  const uint32_t flags = LoadUint32(msg + kHeaderBytes);
  if (flags & wire::kMoreToCome) {
    // Only exhaust replies may say more follow, and no request here allows exhaust.
    return ProtocolError("reply sets moreToCome, but the request did not allow exhaust");
  }
  if (uint32_t unknown = flags & kRequiredFlagMask & ~wire::kChecksumPresent; unknown != 0) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", unknown);
    return ProtocolError(std::string("reply sets unknown required flag bits ") + hex);
  }
  size_t end = len;
  if (flags & wire::kChecksumPresent) {
    if (end < kMinReplyBytes + kChecksumBytes) return ProtocolError("reply too short for its checksum");
    end -= kChecksumBytes;
    if (wire::Crc32c(msg, end) != LoadUint32(msg + end)) {
      return ProtocolError("reply checksum mismatch");
    }
  }
  bool have_body = false;
  size_t pos = kHeaderBytes + kFlagBytes;
  while (pos < end) {
    const uint8_t kind = msg[pos++];
    if (pos + 4 > end) return ProtocolError("reply section truncated");
    const int32_t size = LoadInt32(msg + pos);
    // A document's length counts itself and its terminating 0 (at least 5);
    // a sequence's size counts itself, its identifier and its documents.
    const int32_t least = kind == kBodySection ? 5 : 4;
    if (size < least || static_cast<size_t>(size) > end - pos) {
      return ProtocolError("reply section of " + std::to_string(size) + " bytes does not fit");
    }
    if (kind == kBodySection) {
      if (have_body) return ProtocolError("reply with two kind-0 sections");
      if (!bson_init_static(body, msg + pos, static_cast<size_t>(size))) {
        return ProtocolError("reply body is not a BSON document");
      }
      have_body = true;
    } else if (kind != kSequenceSection) {
      return ProtocolError("reply section of unknown kind " + std::to_string(kind));
    }
    pos += static_cast<size_t>(size);
  }
  if (!have_body) return ProtocolError("reply without a kind-0 section");
  return Status::OK();
}

}  // namespace tigerdoc::bench
