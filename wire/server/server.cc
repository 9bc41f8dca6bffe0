#include "wire/server/server.h"

#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <csignal>
#include <iostream>
#include <system_error>
#include <thread>

namespace tigerdoc::wire {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

std::vector<std::string> SplitBindIps(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(start, comma - start);
    const size_t first = item.find_first_not_of(" \t");
    const size_t last = item.find_last_not_of(" \t");
    out.push_back(first == std::string::npos ? "" : item.substr(first, last - first + 1));
    start = comma + 1;
  }
  return out;
}

}  // namespace

Server::Server(ServerOptions options, RequestHandler* handler)
    : options_(std::move(options)),
      handler_(handler),
      port_(options_.port),
      work_guard_(asio::make_work_guard(io_context_)) {
  INVARIANT(handler_ != nullptr);
}

Server::~Server() {
  Stop();
  // If Run() never ran, nothing else has released the listening sockets.
  acceptors_.clear();
  EndConnections();
}

Status Server::Start() {
  INVARIANT(!started_);
  started_ = true;
  for (const std::string& ip : SplitBindIps(options_.bind_ip)) {
    boost::system::error_code ec;
    const asio::ip::address address = asio::ip::make_address(ip, ec);
    if (ec) return Status(ErrorCode::kBadValue, "Invalid bind_ip address: '" + ip + "'");
    const tcp::endpoint endpoint(address, static_cast<uint16_t>(port_));
    auto acceptor = std::make_unique<tcp::acceptor>(io_context_);
    const std::string where = FormatEndpoint(endpoint);
    auto fail = [&](const char* step) {
      return Status(ErrorCode::kSocketException,
                    std::string(step) + " failed for " + where + ": " + ec.message());
    };
    if (acceptor->open(endpoint.protocol(), ec)) return fail("socket");
    acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    // Without v6_only, "::" would also claim IPv4 and collide with an
    // explicit IPv4 address in the same list.
    if (address.is_v6()) acceptor->set_option(asio::ip::v6_only(true), ec);
    if (acceptor->bind(endpoint, ec)) return fail("bind");
    if (acceptor->listen(asio::socket_base::max_listen_connections, ec)) return fail("listen");
    // With port 0 the first address picks the port and the rest follow it.
    if (port_ == 0) port_ = acceptor->local_endpoint().port();
    acceptors_.push_back(std::move(acceptor));
  }
  for (auto& acceptor : acceptors_) Accept(acceptor.get());
  if (options_.handle_signals) {
    signals_ = std::make_unique<asio::signal_set>(io_context_, SIGINT, SIGTERM);
    signals_->async_wait([this](const boost::system::error_code& ec, int) {
      if (!ec) Stop();
    });
  }
  return Status::OK();
}

void Server::Accept(tcp::acceptor* acceptor) {
  acceptor->async_accept(
      io_context_,
      [this, acceptor](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;  // acceptor closed
        if (!ec) {
          OnAccepted(std::move(socket));
          Accept(acceptor);
          return;
        }
        // E.g. EMFILE: back off briefly instead of spinning on the error.
        auto timer =
            std::make_shared<asio::steady_timer>(io_context_, std::chrono::milliseconds(100));
        timer->async_wait([this, acceptor, timer](const boost::system::error_code& wait_ec) {
          if (!wait_ec) Accept(acceptor);
        });
      });
}

void Server::OnAccepted(tcp::socket socket) {
  boost::system::error_code ec;
  // Requests and replies are small and strictly alternate: Nagle only adds latency.
  socket.set_option(tcp::no_delay(true), ec);
  ConnectionInfo info;
  info.connection_id = next_connection_id_.fetch_add(1);
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  if (ec) return;  // the peer already left
  info.remote_address = FormatEndpoint(remote);
  info.local_address = FormatEndpoint(socket.local_endpoint(ec));
  if (open_connections_.load() >= options_.max_connections) {
    // As mongod: the socket is closed before anything is read or written.
    std::cerr << "connection refused because too many open connections: "
              << open_connections_.load() << " (from " << info.remote_address << ")" << std::endl;
    socket.close(ec);
    return;
  }
  open_connections_.fetch_add(1);
  // The deleter keeps the count of live connections (the thread serving a
  // connection holds it until its loop ends).
  std::shared_ptr<Connection> connection(
      new Connection(std::move(socket), std::move(info), handler_, &next_request_id_,
                     options_.tls),
      [this](Connection* c) {
        delete c;
        open_connections_.fetch_sub(1);
      });
  {
    std::lock_guard<std::mutex> lock(connections_mu_);
    if (connections_.size() >= prune_at_) {
      std::erase_if(connections_, [](const auto& entry) { return entry.second.expired(); });
      prune_at_ = std::max<size_t>(64, 2 * connections_.size());
    }
    connections_.emplace(connection->info().connection_id, connection);
  }
  {
    std::lock_guard<std::mutex> lock(threads_mu_);
    ++running_threads_;
  }
  try {
    std::thread([this, connection = std::move(connection)]() mutable {
      connection->Serve();
      connection.reset();  // the connection ends before the thread counts as done
      std::lock_guard<std::mutex> lock(threads_mu_);
      if (--running_threads_ == 0) threads_done_.notify_all();
    }).detach();
  } catch (const std::system_error& e) {
    // No thread for it (EAGAIN: out of threads or memory): the socket
    // closes with the connection, as with --maxConns.
    std::cerr << "connection refused: cannot start its thread: " << e.what() << std::endl;
    std::lock_guard<std::mutex> lock(threads_mu_);
    --running_threads_;
  }
}

void Server::EndConnections() {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard<std::mutex> lock(connections_mu_);
    for (auto& [id, weak] : connections_) {
      if (auto connection = weak.lock()) live.push_back(std::move(connection));
    }
    connections_.clear();
  }
  for (auto& connection : live) connection->Shutdown();
  live.clear();
  std::unique_lock<std::mutex> lock(threads_mu_);
  threads_done_.wait(lock, [this] { return running_threads_ == 0; });
}

void Server::Run() {
  INVARIANT(started_);
  io_context_.run();

  // Nothing accepts any more. Shutting the connections down tells clients
  // at once; a request may run for long (a multi-document write, a big
  // sort), so it is asked to stop before the connection threads are
  // waited for (their replies are dropped).
  acceptors_.clear();
  signals_.reset();
  handler_->OnServerStopping();
  EndConnections();
}

void Server::Stop() {
  // io_context::stop() is thread-safe and makes every run() return even
  // though the work guard is still held.
  io_context_.stop();
}

}  // namespace tigerdoc::wire
