#include "wire/server/connection.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <iostream>

#include "engine/bson/first_key.h"
#include "wire/protocol/msg_header.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

namespace asio = boost::asio;

// After an unusually large message, give the memory back rather than keep
// up to 48 MB per idle connection.
constexpr size_t kKeepBufferBytes = 1 << 20;
// Read-ahead of a connection: a typical request (find by _id, an insert of
// one document) fits whole. Reads larger than this go straight to the
// message buffer.
constexpr size_t kInboxBytes = 8 * 1024;

// A TLS record header of a handshake (0x16), TLS 1.0-1.3 or SSL 3 record
// version (0x03 0x00..0x04), carrying a ClientHello (handshake type 1).
bool LooksLikeTlsClientHello(const uint8_t* bytes) {
  return bytes[0] == 0x16 && bytes[1] == 0x03 && bytes[2] <= 0x04 && bytes[5] == 0x01;
}

// A MongoDB header a client may send first: a length in range and an
// opcode of a request (the 16 bytes of a ClientHello match both only by a
// coincidence in its random bytes).
bool LooksLikeMongoHeader(const uint8_t* bytes) {
  const int32_t length = LoadInt32(bytes);
  const int32_t op_code = LoadInt32(bytes + 12);
  return length >= kMinMessageBytes && length <= kMaxMessageBytes &&
         (op_code == kOpMsg || op_code == kOpQuery || op_code == kOpCompressed);
}

}  // namespace

std::string FormatEndpoint(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  // Appended piece by piece: GCC 12 misreads `"[" + std::string` as an
  // overlapping memcpy (-Wrestrict) and warned on every build.
  std::string out;
  if (address.is_v6()) out += '[';
  out += address.to_string();
  if (address.is_v6()) out += ']';
  out += ':';
  out += std::to_string(endpoint.port());
  return out;
}

Connection::Connection(asio::ip::tcp::socket socket, ConnectionInfo info, RequestHandler* handler,
                       std::atomic<int32_t>* next_request_id,
                       std::shared_ptr<const TlsContext> tls)
    : fd_(-1),
      info_(std::move(info)),
      handler_(handler),
      next_request_id_(next_request_id),
      tls_(std::move(tls)) {
  boost::system::error_code ec;
  // Blocking reads and writes from here on, outside the io_context.
  fd_ = socket.release(ec);
  if (ec) {
    fd_ = -1;  // Serve() returns at once
    socket.close(ec);
  } else {
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK)) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  }
  handler_->OnConnectionOpened(info_);
}

Connection::~Connection() { handler_->OnConnectionClosed(info_); }

void Connection::Serve() {
  if (fd_ >= 0 && StartTls()) {
    while (!shutting_down_.load() && ReadMessage() && Process()) {
    }
  }
  std::lock_guard<std::mutex> lock(close_mu_);
  if (ssl_ != nullptr) SSL_free(ssl_);
  ssl_ = nullptr;
  if (fd_ >= 0) {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
  }
  closed_ = true;
}

void Connection::Shutdown() {
  shutting_down_.store(true);
  std::lock_guard<std::mutex> lock(close_mu_);
  // shutdown(2) wakes a recv/send blocked in Serve(); the close is left
  // to Serve()'s thread.
  if (!closed_ && fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

bool Connection::StartTls() {
  if (!tls_) return true;
  uint8_t first = 0;
  ssize_t got;
  do {
    got = ::recv(fd_, &first, 1, MSG_PEEK);
  } while (got < 0 && errno == EINTR);
  if (got != 1) return false;
  // A TLS ClientHello starts with a handshake record (content type 22). A
  // MongoDB message starts with its little-endian length, whose low byte is
  // 22 for every length of 22 mod 256 (278, 534, ...): only then are the
  // first 16 bytes (a whole MongoDB header) read to decide.
  constexpr uint8_t kTlsHandshakeRecord = 0x16;
  bool tls = first == kTlsHandshakeRecord;
  if (tls) {
    uint8_t header[16];
    do {
      got = ::recv(fd_, header, sizeof header, MSG_PEEK | MSG_WAITALL);
    } while (got < 0 && errno == EINTR);
    if (got != static_cast<ssize_t>(sizeof header)) return false;
    tls = LooksLikeTlsClientHello(header) && !LooksLikeMongoHeader(header);
  }
  if (!tls) {
    if (tls_->mode() != TlsMode::kRequire) return true;
    std::cerr << "tigerdoc: refused a plain connection from " << info_.remote_address
              << " (tlsMode requireTLS)" << std::endl;
    return false;
  }
  ssl_ = SSL_new(tls_->get());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1 || SSL_accept(ssl_) != 1) {
    std::cerr << "tigerdoc: TLS handshake with " << info_.remote_address
              << " failed: " << TlsErrors() << std::endl;
    return false;
  }
  return true;
}

bool Connection::ReadExactly(uint8_t* out, size_t n) {
  if (ssl_ != nullptr) {
    while (n > 0) {
      const int got = SSL_read(ssl_, out, static_cast<int>(std::min<size_t>(n, 1 << 30)));
      if (got <= 0) {
        ERR_clear_error();
        return false;  // close_notify, EOF, Shutdown() or an error
      }
      out += got;
      n -= static_cast<size_t>(got);
    }
    return true;
  }
  while (n > 0) {
    if (inbox_begin_ < inbox_end_) {
      const size_t take = std::min(n, inbox_end_ - inbox_begin_);
      std::memcpy(out, inbox_.data() + inbox_begin_, take);
      inbox_begin_ += take;
      out += take;
      n -= take;
      continue;
    }
    // Large remainders are read in place; small ones through the inbox,
    // which takes whatever else has arrived too.
    const bool direct = n >= kInboxBytes;
    if (!direct && inbox_.empty()) inbox_.resize(kInboxBytes);
    const ssize_t got = direct ? ::recv(fd_, out, n, 0) : ::recv(fd_, inbox_.data(), kInboxBytes, 0);
    if (got > 0 && direct) {
      out += got;
      n -= static_cast<size_t>(got);
    } else if (got > 0) {
      inbox_begin_ = 0;
      inbox_end_ = static_cast<size_t>(got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      return false;  // 0: EOF (or Shutdown()); < 0: reset or another error
    }
  }
  return true;
}

bool Connection::ReadMessage() {
  if (buffer_.capacity() > kKeepBufferBytes) std::vector<uint8_t>().swap(buffer_);
  buffer_.resize(kHeaderBytes);
  if (fd_ < 0 || !ReadExactly(buffer_.data(), kHeaderBytes)) return false;
  auto header = ParseHeader(buffer_.data(), buffer_.size());
  if (!header.ok()) return false;  // messageLength outside 16..48,000,000
  const size_t length = static_cast<size_t>(header.value().message_length);
  buffer_.resize(length);
  return ReadExactly(buffer_.data() + kHeaderBytes, length - kHeaderBytes);
}

bool Connection::Process() {
  auto parsed = ParseRequest(buffer_.data(), buffer_.size());
  const int32_t reply_id = next_request_id_->fetch_add(1, std::memory_order_relaxed);
  if (!parsed.ok()) {
    if (IsConnectionFatal(parsed.status())) return false;
    // The header parsed when the message was framed, so this cannot fail.
    auto header = ParseHeader(buffer_.data(), buffer_.size());
    INVARIANT(header.ok());
    // The client of a moreToCome message reads no reply; an unsolicited one
    // would be taken as the answer to its next request.
    const bool more_to_come = header.value().op_code == kOpMsg &&
                              (PeekOpMsgFlags(buffer_.data(), buffer_.size()) & kMoreToCome);
    if (more_to_come) return true;
    return Write(SerializeReply(header.value(), reply_id, ErrorReply(parsed.status())));
  }

  const ParsedRequest& request = parsed.value();
  auto error_handled = [this](const Status& status) {
    RequestHandler::HandledRequest out{ErrorReply(status)};
    out.holds_state = handler_->ReplyHoldsState(out.reply);
    return out;
  };
  // Built in place (the lambda's returns are prvalues): the reply is not
  // moved on its way here.
  RequestHandler::HandledRequest handled = [&]() -> RequestHandler::HandledRequest {
    try {
      ExecutionGate::Ticket ticket;  // execution_gate.h: document commands wait their turn
      std::string_view name;  // a BSON key: NUL-terminated in the body
      if (bson::FirstKey(request.request.body.get(), &name) &&
          ExecutionGate::TakesTicket(name.data())) {
        ticket = ExecutionGate::Global().Enter(&gate_usage_);
      }
      return handler_->HandleRequest(info_, request.request);
    } catch (const std::exception& e) {
      return error_handled(Status(ErrorCode::kInternalError,
                                 std::string("unhandled exception in command: ") + e.what()));
    } catch (...) {
      return error_handled(Status(ErrorCode::kInternalError, "unhandled exception in command"));
    }
  }();
  const bson::BsonDoc& body = handled.reply;
  const bool holds_state = handled.holds_state;
  if (request.request.more_to_come) return true;
  if (shutting_down_.load() || (holds_state && PeerClosed())) {
    // The client left mid-command (no one reads while a command runs, so
    // this is the first chance to notice), or the server is stopping: what
    // the reply would have handed over, such as an open cursor, must not
    // outlive it.
    handler_->OnReplyUndelivered(info_, body);
    return false;
  }
  std::string reply = SerializeReply(request.header, reply_id, body);
  // A compressed request gets its reply compressed the same way, except
  // the handshake and authentication replies (the handler says which).
  if (request.compressor) {
    bson_iter_t it;
    if (bson_iter_init(&it, request.request.body.get()) && bson_iter_next(&it) &&
        handler_->MayCompressReplyTo(bson_iter_key(&it))) {
      reply = CompressMessage(reply, *request.compressor);
    }
  }
  return Write(reply);
}

bool Connection::PeerClosed() {
  // poll(2) with a zero timeout: nothing else reads this socket.
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

bool Connection::Write(const std::string& bytes) {
  const char* data = bytes.data();
  size_t left = bytes.size();
  if (ssl_ != nullptr) {
    while (left > 0) {
      const int sent = SSL_write(ssl_, data, static_cast<int>(std::min<size_t>(left, 1 << 30)));
      if (sent <= 0) {
        ERR_clear_error();
        return false;
      }
      data += sent;
      left -= static_cast<size_t>(sent);
    }
    return true;
  }
  while (left > 0) {
    // MSG_NOSIGNAL: a client gone mid-reply is an error here, not SIGPIPE.
    const ssize_t sent = ::send(fd_, data, left, MSG_NOSIGNAL);
    if (sent > 0) {
      data += sent;
      left -= static_cast<size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace tigerdoc::wire
