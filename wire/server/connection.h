#pragma once
// Connection: one client socket and its request loop.
//
//   read 16-byte header -> bounds-check messageLength (close unless
//   16..48,000,000) -> read the body into the same buffer -> on a worker:
//   ParseRequest, RequestHandler::Handle, serialize -> write the reply ->
//   read the next header.
//
// Exactly one request per connection is in flight, so requests are handled
// and answered in the order they arrived. A request with moreToCome gets no
// reply. A parse error that is not connection-fatal (wire/protocol/message.h)
// is answered with {ok: 0, errmsg, code, codeName}; framing errors,
// connection-fatal parse errors, I/O errors and EOF close the socket.
//
// Threading: socket operations run on the socket's strand (the socket must
// be created with a strand executor); parsing and handling run on the
// WorkerPool. io threads never block.
//
// Ownership: always held by std::shared_ptr; pending operations keep it
// alive, so it is destroyed once the socket is closed and the last
// operation has completed. Borrows the handler, the pool and the request-id
// counter, which must outlive it (the Server owns them).

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wire/server/request_handler.h"
#include "wire/server/worker_pool.h"

namespace tigerdoc::wire {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::ip::tcp::socket socket, ConnectionInfo info, RequestHandler* handler,
             WorkerPool* workers, std::atomic<int32_t>* next_request_id);
  ~Connection();

  // Begins the request loop. Call once.
  void Start();

  // Closes the socket from any thread; pending operations complete with
  // errors and the connection winds down.
  void Close();

  // Closes the socket on the calling thread.
  // REQUIRES: no thread is running the socket's io_context.
  void CloseWhileStopped();

  const ConnectionInfo& info() const { return info_; }

 private:
  void ReadHeader();
  void OnHeader(const boost::system::error_code& ec);
  void OnBody(const boost::system::error_code& ec);
  // Runs on a worker thread: parse, handle, serialize.
  void Process(const std::vector<uint8_t>& message);
  void Write(std::string reply);
  // True when the client has closed (or shut down) its side of the socket.
  bool PeerClosed();
  void CloseSocket();
  // Schedules `step` on the socket's strand (from a worker thread).
  template <typename Step>
  void OnStrand(Step step);

  boost::asio::ip::tcp::socket socket_;
  const ConnectionInfo info_;
  RequestHandler* const handler_;
  WorkerPool* const workers_;
  std::atomic<int32_t>* const next_request_id_;
  std::vector<uint8_t> buffer_;  // the message being read; strand only
  std::string out_;              // the reply being written; strand only
};

// "1.2.3.4:5" for IPv4, "[::1]:5" for IPv6 (MongoDB's HostAndPort form).
std::string FormatEndpoint(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace tigerdoc::wire
