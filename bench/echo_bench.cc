// tigerdoc_echo_bench: the loopback request rate a server can reach at all
// on this machine, the yardstick of issue #18 ("read by _id with 8
// connections >= 50% of an epoll echo server"). One thread runs an epoll
// echo server on a free loopback port; --threads clients (one blocking TCP
// connection and thread each, as tigerdoc_load's) send a --bytes request
// and wait for its echo, for --seconds per thread count.
//
// usage: tigerdoc_echo_bench [--threads 1,8] [--seconds S] [--bytes N] [--json FILE]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <bson/bson.h>

#include "bench/json_report.h"
#include "bench/latency_summary.h"
#include "bench/process_cpu.h"

namespace tigerdoc::bench {
namespace {

// Echoes whatever arrives on any connection until `stop` is set.
void EchoServer(int listener, const std::atomic<bool>& stop) {
  int ep = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = listener;
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  char buf[64 * 1024];
  epoll_event events[64];
  while (!stop.load(std::memory_order_relaxed)) {
    int n = epoll_wait(ep, events, 64, 50);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == listener) {
        int c = accept(listener, nullptr, nullptr);
        if (c < 0) continue;
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        epoll_event cev{};
        cev.events = EPOLLIN;
        cev.data.fd = c;
        epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
        continue;
      }
      ssize_t got = recv(fd, buf, sizeof buf, 0);
      if (got <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        continue;
      }
      for (ssize_t sent = 0; sent < got;) {
        ssize_t w = send(fd, buf + sent, static_cast<size_t>(got - sent), MSG_NOSIGNAL);
        if (w <= 0) break;
        sent += w;
      }
    }
  }
  close(ep);
}

struct Flags {
  std::vector<int> threads = {1, 8};
  double seconds = 3;
  int bytes = 128;
  std::string json;
};

[[noreturn]] void Usage(const char* error) {
  if (error) std::fprintf(stderr, "tigerdoc_echo_bench: %s\n", error);
  std::fprintf(stderr, "usage: tigerdoc_echo_bench [--threads 1,8] [--seconds S] [--bytes N] [--json FILE]\n");
  std::exit(error ? 2 : 0);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--threads") {
      f.threads.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) f.threads.push_back(std::atoi(t.c_str()));
    } else if (a == "--seconds") {
      f.seconds = std::atof(value().c_str());
    } else if (a == "--bytes") {
      f.bytes = std::atoi(value().c_str());
    } else if (a == "--json") {
      f.json = value();
    } else if (a == "--help" || a == "-h") {
      Usage(nullptr);
    } else {
      Usage(("unknown flag " + a).c_str());
    }
  }
  if (f.seconds <= 0 || f.bytes < 1 || f.bytes > 60000 || f.threads.empty()) Usage("bad flags");
  return f;
}

int Connect(uint16_t port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(s);
    return -1;
  }
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return s;
}

// One request/reply round trip; false when the connection failed.
bool RoundTrip(int s, const std::string& request, std::string* reply) {
  if (send(s, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return false;
  }
  for (size_t got = 0; got < request.size();) {
    ssize_t r = recv(s, reply->data() + got, request.size() - got, 0);
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

int Main(int argc, char** argv) {
  Flags f = ParseFlags(argc, argv);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener, 128) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("listen");
    return 1;
  }
  const uint16_t port = ntohs(addr.sin_port);
  std::atomic<bool> stop{false};
  std::thread server(EchoServer, listener, std::cref(stop));

  bson_t report = BSON_INITIALIZER, rows;
  BSON_APPEND_UTF8(&report, "benchmark", "echo");
  BSON_APPEND_INT32(&report, "bytes", f.bytes);
  BSON_APPEND_ARRAY_BEGIN(&report, "results", &rows);
  std::printf("\nepoll echo server (one thread), %d-byte requests, %.1f s per cell\n\n", f.bytes, f.seconds);
  std::printf("| connections | requests/s | p50 us | p99 us | CPU us per request (whole process) |\n|---|---|---|---|---|\n");
  bool failed = false;
  int row = 0;
  for (int threads : f.threads) {
    std::vector<std::vector<uint32_t>> latencies(static_cast<size_t>(threads));
    std::atomic<int> failures{0};
    std::atomic<bool> go{false};
    std::vector<int> sockets;
    for (int t = 0; t < threads; ++t) sockets.push_back(Connect(port));
    using Clock = std::chrono::steady_clock;
    const auto duration = std::chrono::duration<double>(f.seconds);
    Clock::time_point start;
    std::vector<std::thread> clients;
    for (int t = 0; t < threads; ++t) {
      clients.emplace_back([&, t] {
        const std::string request(static_cast<size_t>(f.bytes), 'r');
        std::string reply(request.size(), '\0');
        auto& lat = latencies[static_cast<size_t>(t)];
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        const auto deadline = start + std::chrono::duration_cast<Clock::duration>(duration);
        for (Clock::time_point t0; (t0 = Clock::now()) < deadline;) {
          if (sockets[static_cast<size_t>(t)] < 0 || !RoundTrip(sockets[static_cast<size_t>(t)], request, &reply)) {
            failures.fetch_add(1);
            return;
          }
          lat.push_back(static_cast<uint32_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
        }
      });
    }
    const double cpu0 = SelfCpuSeconds();
    start = Clock::now();
    go.store(true, std::memory_order_release);
    for (auto& c : clients) c.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double cpu1 = SelfCpuSeconds();
    for (int s : sockets) if (s >= 0) close(s);
    std::vector<uint32_t> all;
    for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    LatencySummary s = Summarize(all, elapsed);
    const double cpu_us = s.ops > 0 ? (cpu1 - cpu0) * 1e6 / static_cast<double>(s.ops) : 0;
    failed |= failures.load() > 0;
    std::printf("| %d | %.0f | %.1f | %.1f | %.1f |%s\n", threads, s.ops_per_sec, s.p50_us, s.p99_us, cpu_us,
                failures.load() ? " FAILED" : "");
    bson_t r;
    std::string key = std::to_string(row++);
    bson_append_document_begin(&rows, key.c_str(), -1, &r);
    BSON_APPEND_INT32(&r, "threads", threads);
    BSON_APPEND_DOUBLE(&r, "opsPerSec", s.ops_per_sec);
    BSON_APPEND_DOUBLE(&r, "p50Us", s.p50_us);
    BSON_APPEND_DOUBLE(&r, "p99Us", s.p99_us);
    BSON_APPEND_DOUBLE(&r, "processCpuUsPerOp", cpu_us);
    bson_append_document_end(&rows, &r);
  }
  bson_append_array_end(&report, &rows);
  stop.store(true);
  server.join();
  close(listener);
  if (!f.json.empty()) failed |= !WriteJsonReport(f.json, &report);
  bson_destroy(&report);
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
