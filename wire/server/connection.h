#pragma once
// Connection: one client socket and its request loop, run on a thread of
// its own (as mongod's thread per connection):
//
//   read 16-byte header -> bounds-check messageLength (close unless
//   16..48,000,000) -> read the body into the same buffer (both through
//   an 8 KiB read-ahead: one recv for a short request) -> ParseRequest,
//   RequestHandler::Handle, serialize -> write the reply -> read the next
//   header.
//
// Why a thread per connection: a request costs one kernel wake-up (the
// data arriving wakes the thread blocked in recv) instead of a hand-off
// from an I/O thread to a worker and back, which cost more CPU than the
// command itself for short requests (issue #18's profile). A long command
// blocks only its own client, which waits for that reply anyway.
//
// Exactly one request per connection is in flight, so requests are handled
// and answered in the order they arrived. A request with moreToCome gets no
// reply. A parse error that is not connection-fatal (wire/protocol/message.h)
// is answered with {ok: 0, errmsg, code, codeName}; framing errors,
// connection-fatal parse errors, I/O errors and EOF close the socket.
//
// With TLS (tls.h) the same loop reads and writes through OpenSSL on the
// same blocking socket, after a handshake on the connection's thread.
//
// The connection takes the descriptor out of Boost.Asio (which accepted it):
// left registered with the io_context's epoll, every arriving request would
// also wake the accepting thread for nothing.
//
// Threading: Serve() runs on the connection's thread and is the only user
// of the socket's data path; Shutdown() may be called from any thread.
//
// Ownership: held by std::shared_ptr (the thread running Serve() holds one;
// the Server keeps a weak one to shut it down). Borrows the handler and the
// request-id counter, which must outlive it (the Server owns them).

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "wire/server/execution_gate.h"
#include "wire/server/request_handler.h"
#include "wire/server/tls.h"

namespace tigerdoc::wire {

class Connection {
 public:
  // `tls` (may be null: TLS disabled) decides whether the connection may
  // or must start with a TLS handshake (tls.h).
  Connection(boost::asio::ip::tcp::socket socket, ConnectionInfo info, RequestHandler* handler,
             std::atomic<int32_t>* next_request_id, std::shared_ptr<const TlsContext> tls = nullptr);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs the request loop on the calling thread until the client leaves,
  // an I/O or framing error, or Shutdown(); then closes the socket.
  // Call once.
  void Serve();

  // From any thread: makes Serve() return soon. A blocked read or write
  // fails at once; a command that is running finishes (the server asks
  // long ones to stop) and its reply is dropped. Idempotent.
  void Shutdown();

  const ConnectionInfo& info() const { return info_; }

 private:
  // Reads one framed message into buffer_. False: close the connection.
  bool ReadMessage();
  // Parses, handles and answers the message in buffer_. False: close.
  bool Process();
  // With TLS configured: a first byte that opens a TLS handshake starts
  // TLS (SSL_accept); anything else is a plain connection, refused under
  // requireTLS. False: close.
  bool StartTls();
  // Reads exactly n bytes (through ssl_ under TLS, else first from inbox_).
  // False on EOF, an error or Shutdown().
  bool ReadExactly(uint8_t* out, size_t n);
  bool Write(const std::string& bytes);
  // True when the client has closed (or shut down) its side of the socket.
  bool PeerClosed();

  int fd_;  // the socket's descriptor, closed at the end of Serve()
  const ConnectionInfo info_;
  RequestHandler* const handler_;
  std::atomic<int32_t>* const next_request_id_;
  std::vector<uint8_t> buffer_;  // the message being read and handled
  // Bytes received but not yet consumed: a short request arrives with one
  // recv(2) of up to kInboxBytes (header and body together; issue #18's
  // profile had a recv for each), and a pipelined next message waits here.
  // Allocated at the first read.
  std::vector<uint8_t> inbox_;
  size_t inbox_begin_ = 0;
  size_t inbox_end_ = 0;
  const std::shared_ptr<const TlsContext> tls_;
  SSL* ssl_ = nullptr;  // set once a TLS handshake succeeded; reads and writes go through it

  // Guards the descriptor between Shutdown() (any thread) and the close at
  // the end of Serve(), so a shutdown never reaches a reused descriptor.
  std::mutex close_mu_;
  bool closed_ = false;
  std::atomic<bool> shutting_down_{false};
  ExecutionGate::Usage gate_usage_;  // this connection's recent execution time
};

// "1.2.3.4:5" for IPv4, "[::1]:5" for IPv6 (MongoDB's HostAndPort form).
std::string FormatEndpoint(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace tigerdoc::wire
