#include "wire/server/connection.h"

#include <poll.h>

#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <exception>

#include "wire/protocol/msg_header.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

namespace asio = boost::asio;

// After an unusually large message, give the memory back rather than keep
// up to 48 MB per idle connection.
constexpr size_t kKeepBufferBytes = 1 << 20;

}  // namespace

std::string FormatEndpoint(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  const std::string port = std::to_string(endpoint.port());
  if (address.is_v6()) return "[" + address.to_string() + "]:" + port;
  return address.to_string() + ":" + port;
}

Connection::Connection(asio::ip::tcp::socket socket, ConnectionInfo info, RequestHandler* handler,
                       WorkerPool* workers, std::atomic<int32_t>* next_request_id)
    : socket_(std::move(socket)),
      info_(std::move(info)),
      handler_(handler),
      workers_(workers),
      next_request_id_(next_request_id) {
  handler_->OnConnectionOpened(info_);
}

Connection::~Connection() { handler_->OnConnectionClosed(info_); }

void Connection::Start() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void Connection::Close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->CloseSocket(); });
}

void Connection::CloseWhileStopped() { CloseSocket(); }

template <typename Step>
void Connection::OnStrand(Step step) {
  asio::post(socket_.get_executor(), std::move(step));
}

void Connection::ReadHeader() {
  if (buffer_.capacity() > kKeepBufferBytes) std::vector<uint8_t>().swap(buffer_);
  buffer_.resize(kHeaderBytes);
  asio::async_read(socket_, asio::buffer(buffer_.data(), kHeaderBytes),
                   [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                     self->OnHeader(ec);
                   });
}

void Connection::OnHeader(const boost::system::error_code& ec) {
  if (ec) return CloseSocket();  // EOF, reset, or Close()
  auto header = ParseHeader(buffer_.data(), buffer_.size());
  if (!header.ok()) return CloseSocket();  // messageLength outside 16..48,000,000
  const size_t length = static_cast<size_t>(header.value().message_length);
  buffer_.resize(length);
  if (length == kHeaderBytes) return OnBody({});
  asio::async_read(socket_, asio::buffer(buffer_.data() + kHeaderBytes, length - kHeaderBytes),
                   [self = shared_from_this()](const boost::system::error_code& read_ec, size_t) {
                     self->OnBody(read_ec);
                   });
}

void Connection::OnBody(const boost::system::error_code& ec) {
  if (ec) return CloseSocket();
  // The worker owns the message bytes from here; the strand's buffer is
  // untouched until the next ReadHeader.
  auto message = std::make_shared<std::vector<uint8_t>>(std::move(buffer_));
  buffer_ = std::vector<uint8_t>();
  const bool posted =
      workers_->Post([self = shared_from_this(), message] { self->Process(*message); });
  if (!posted) CloseSocket();  // shutting down
}

void Connection::Process(const std::vector<uint8_t>& message) {
  auto parsed = ParseRequest(message.data(), message.size());
  const int32_t reply_id = next_request_id_->fetch_add(1, std::memory_order_relaxed);
  auto self = shared_from_this();
  if (!parsed.ok()) {
    if (IsConnectionFatal(parsed.status())) {
      return OnStrand([self] { self->CloseSocket(); });
    }
    // The header parsed when the message was framed, so this cannot fail.
    auto header = ParseHeader(message.data(), message.size());
    INVARIANT(header.ok());
    // The client of a moreToCome message reads no reply; an unsolicited one
    // would be taken as the answer to its next request.
    const bool more_to_come = header.value().op_code == kOpMsg &&
                              (PeekOpMsgFlags(message.data(), message.size()) & kMoreToCome);
    if (more_to_come) return OnStrand([self] { self->ReadHeader(); });
    auto reply = std::make_shared<std::string>(
        SerializeReply(header.value(), reply_id, ErrorReply(parsed.status())));
    return OnStrand([self, reply] { self->Write(std::move(*reply)); });
  }

  const ParsedRequest& request = parsed.value();
  bson::BsonDoc body;
  try {
    body = handler_->Handle(info_, request.request);
  } catch (const std::exception& e) {
    body = ErrorReply(Status(ErrorCode::kInternalError,
                             std::string("unhandled exception in command: ") + e.what()));
  } catch (...) {
    body = ErrorReply(Status(ErrorCode::kInternalError, "unhandled exception in command"));
  }
  if (request.request.more_to_come) return OnStrand([self] { self->ReadHeader(); });
  if (PeerClosed()) {
    // The client left mid-command (no one reads while a command runs, so
    // this is the first chance to notice): what the reply would have handed
    // over, such as an open cursor, must not outlive it.
    handler_->OnReplyUndelivered(info_, body);
    return OnStrand([self] { self->CloseSocket(); });
  }
  auto reply = std::make_shared<std::string>(SerializeReply(request.header, reply_id, body));
  OnStrand([self, reply] { self->Write(std::move(*reply)); });
}

bool Connection::PeerClosed() {
  // poll(2) on the descriptor is safe beside the strand: nothing reads or
  // writes this socket while its command runs.
  pollfd p{socket_.native_handle(), POLLIN | POLLRDHUP, 0};
  if (poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void Connection::Write(std::string reply) {
  out_ = std::move(reply);
  asio::async_write(socket_, asio::buffer(out_),
                    [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                      if (ec) return self->CloseSocket();
                      self->out_.clear();
                      self->ReadHeader();
                    });
}

void Connection::CloseSocket() {
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace tigerdoc::wire
