#pragma once
// Server: accepts MongoDB wire-protocol connections and runs each one's
// request loop (connection.h) on a thread of its own, dispatching commands
// to a RequestHandler.
//
//   Server server(options, &handler);
//   RETURN_IF_ERROR(server.Start());   // bind + listen; port() is now known
//   server.Run();                      // blocks until Stop(), SIGINT or SIGTERM
//
// Threading: the caller of Run() accepts connections and handles signals;
// each connection's thread reads, runs and answers its requests. Stop() may
// be called from any thread, including a RequestHandler.
//
// Lifecycle: Start() once, then Run() once. When Run() returns, every
// socket is closed, every command already received has finished and every
// connection thread has ended.
// Ownership: borrows the handler, which must outlive the Server.

#include <atomic>
#include <condition_variable>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/base/status.h"
#include "wire/server/connection.h"
#include "wire/server/request_handler.h"

namespace tigerdoc::wire {

struct ServerOptions {
  // Comma-separated IPv4 and/or IPv6 addresses ("127.0.0.1,::1"); every
  // one listens on the same port.
  std::string bind_ip = "127.0.0.1";
  int port = 27017;  // 0 = let the OS pick a free port (see port())
  // Whether Run() also returns on SIGINT/SIGTERM. Tests that embed several
  // servers in one process may turn it off.
  bool handle_signals = true;
  // mongod's --maxConns (net.maxIncomingConnections, default 1,000,000):
  // a connection accepted while this many are open is closed at once, and
  // the server logs "connection refused because too many open connections".
  int64_t max_connections = 1000000;
  // TLS for client connections (tls.h); null: disabled.
  std::shared_ptr<const TlsContext> tls;
};

class Server {
 public:
  // REQUIRES: handler != nullptr.
  Server(ServerOptions options, RequestHandler* handler);
  ~Server();  // Stop(), then releases the listening sockets.
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens on every bind_ip. Errors: BadValue for an address
  // that does not parse, SocketException for a socket that cannot bind or
  // listen (e.g. the port is in use).
  Status Start();

  // The port actually bound. REQUIRES: Start() succeeded.
  int port() const { return port_; }

  // Serves until Stop() or (with handle_signals) SIGINT/SIGTERM.
  // REQUIRES: Start() succeeded; called at most once.
  void Run();

  // Makes Run() return. Idempotent; safe from any thread, before or
  // during Run().
  void Stop();

 private:
  void Accept(boost::asio::ip::tcp::acceptor* acceptor);
  void OnAccepted(boost::asio::ip::tcp::socket socket);
  // Shuts every live connection down and waits for their threads to end.
  void EndConnections();

  const ServerOptions options_;
  RequestHandler* const handler_;
  int port_ = 0;
  // Connections accepted and not yet destroyed (refused ones never count).
  // Declared before io_context_ so it outlives every Connection.
  std::atomic<int64_t> open_connections_{0};
  // Connection threads still running; Run() waits for none before it
  // returns, so no thread outlives the io_context its socket belongs to.
  std::mutex threads_mu_;
  std::condition_variable threads_done_;
  int64_t running_threads_ = 0;
  boost::asio::io_context io_context_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
      work_guard_;
  std::vector<std::unique_ptr<boost::asio::ip::tcp::acceptor>> acceptors_;
  std::unique_ptr<boost::asio::signal_set> signals_;
  std::atomic<int64_t> next_connection_id_{1};
  std::atomic<int32_t> next_request_id_{1};
  bool started_ = false;

  std::mutex connections_mu_;
  // Live connections, so Run() can close them on the way out; expired
  // entries are pruned as new connections arrive.
  std::unordered_map<int64_t, std::weak_ptr<Connection>> connections_;
  size_t prune_at_ = 64;
};

}  // namespace tigerdoc::wire
