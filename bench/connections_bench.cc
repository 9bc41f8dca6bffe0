// tigerdoc_connections_bench: what open connections cost a running server,
// and whether a crowd of busy ones starves the rest (issue #18):
//   1. server memory (VmRSS from /proc/PID/status) before and after opening
//      --idle connections that each did one ping, per connection;
//   2. --active connections working as fast as they can (closed loop), while
//      --probes connections read by _id every --probe-ms: p50/p99/max of
//      both, with the idle connections still open. --active-work read: the
//      crowd reads by _id too; scan: each of its requests is a find that
//      examines all 1,000 documents (no index on `v`) and returns none.
// Every connection is one of tigerdoc_load's (server_backend.h) through
// --client: libmongoc, or the thin wire client, whose crowd costs the
// shared cores a fraction of the driver's CPU; with both, the whole
// measurement runs once per client, one after the other.
// --crowd threads (the default) gives each busy connection a client thread
// of its own; --crowd events drives all of them from --crowd-threads
// threads (default 1) with epoll and the wire client's framing
// (event_crowd.h), as a crowd on other machines would load the server
// without taking the cores the probes' own threads need. The probes are
// threads of --client either way.
// The server must run on this machine (its pid is read from /proc).
//   tigerdoc_connections_bench --uri URI --server-pid PID
//       [--idle 1000] [--active 200] [--active-work read|scan] [--probes 8]
//       [--probe-ms 10] [--seconds 5] [--client libmongoc,wire]
//       [--crowd threads|events] [--crowd-threads 1]
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/event_crowd.h"
#include "bench/latency_summary.h"
#include "bench/server_backend.h"

namespace tigerdoc::bench {
namespace {

constexpr int64_t kDocs = 1000;
constexpr char kDb[] = "tigerdoc_connections";
constexpr char kColl[] = "c";

struct Flags {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int server_pid = 0;
  int idle = 1000;
  int active = 200;
  int probes = 8;
  int probe_ms = 10;
  double seconds = 5;
  bool active_scans = false;  // --active-work scan
  bool event_crowd = false;   // --crowd events
  int crowd_threads = 1;
  std::vector<LoadClient> clients = {LoadClient::kLibmongoc};
};

[[noreturn]] void Usage(const char* error) {
  if (error) std::fprintf(stderr, "tigerdoc_connections_bench: %s\n", error);
  std::fprintf(stderr,
               "usage: tigerdoc_connections_bench --uri URI --server-pid PID [--idle N]\n"
               "           [--active N] [--active-work read|scan] [--probes N] [--probe-ms MS]\n"
               "           [--seconds S] [--client libmongoc,wire] [--crowd threads|events]\n"
               "           [--crowd-threads N]\n");
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
    if (a == "--uri") {
      f.uri = value();
    } else if (a == "--server-pid") {
      f.server_pid = std::stoi(value());
    } else if (a == "--idle") {
      f.idle = std::stoi(value());
    } else if (a == "--active") {
      f.active = std::stoi(value());
    } else if (a == "--active-work") {
      const std::string work = value();
      if (work != "read" && work != "scan") Usage("--active-work is read or scan");
      f.active_scans = work == "scan";
    } else if (a == "--probes") {
      f.probes = std::stoi(value());
    } else if (a == "--probe-ms") {
      f.probe_ms = std::stoi(value());
    } else if (a == "--seconds") {
      f.seconds = std::stod(value());
    } else if (a == "--client") {
      if (!ParseLoadClients(value(), &f.clients)) Usage("--client takes libmongoc, wire or both");
    } else if (a == "--crowd") {
      const std::string crowd = value();
      if (crowd != "threads" && crowd != "events") Usage("--crowd is threads or events");
      f.event_crowd = crowd == "events";
    } else if (a == "--crowd-threads") {
      f.crowd_threads = std::stoi(value());
    } else if (a == "--help" || a == "-h") {
      Usage(nullptr);
    } else {
      Usage(("unknown flag " + a).c_str());
    }
  }
  if (f.server_pid <= 0) Usage("--server-pid is required");
  if (f.idle < 0 || f.active < 0 || f.probes < 1 || f.probe_ms < 1 || f.seconds <= 0 ||
      f.crowd_threads < 1) {
    Usage("bad counts");
  }
  return f;
}

// VmRSS of `pid` in KiB; 0 when unreadable.
int64_t RssKib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  int64_t value = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> value;
      return value;
    }
    std::getline(in, key);
  }
  return 0;
}

// One client per connection: the bench needs more descriptors than the
// usual soft limit of 1,024.
void RaiseFileLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

std::unique_ptr<ServerConnection> ConnectOrDie(LoadClient client, const std::string& uri) {
  auto conn = ConnectServer(client, uri, kDb, kColl, /*journaled=*/false);
  if (!conn.ok()) {
    std::fprintf(stderr, "%s\n", conn.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(conn).value();
}

struct Group {
  std::vector<std::vector<uint32_t>> latencies_ns;  // per thread
  std::atomic<int64_t> errors{0};
};

void Report(const char* client, const char* name, int connections, Group& group, double seconds) {
  std::vector<uint32_t> all;
  uint32_t max_ns = 0;
  for (const auto& l : group.latencies_ns) {
    all.insert(all.end(), l.begin(), l.end());
    for (uint32_t v : l) max_ns = std::max(max_ns, v);
  }
  LatencySummary s = Summarize(all, seconds);
  std::printf("%-8s %-9s %6d | %10.0f %9.1f %9.1f %9.1f | %6lld\n", name, client,
              connections, s.ops_per_sec,
              s.p50_us, s.p99_us, max_ns / 1000.0, static_cast<long long>(group.errors.load()));
}

// The whole measurement through one client; returns its failed requests.
int64_t Measure(const Flags& f, LoadClient client) {
  // 1,000 documents of tigerdoc_load's shape (a 100-byte `v`), preloaded
  // afresh for each client.
  ServerBackend backend(f.uri, kDb, kColl, "", f.server_pid, client);
  if (Status st = backend.Reset(kDocs); !st.ok()) {
    std::fprintf(stderr, "preload: %s\n", st.ToString().c_str());
    std::exit(1);
  }

  // 1. Memory per idle connection (each has done its handshake and, through
  // libmongoc, one ping: its thread and buffers exist).
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int64_t rss_before = RssKib(f.server_pid);
  std::vector<std::unique_ptr<ServerConnection>> idle;
  for (int i = 0; i < f.idle; ++i) idle.push_back(ConnectOrDie(client, f.uri));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const int64_t rss_after = RssKib(f.server_pid);
  std::printf("server VmRSS (%s): %lld KiB before, %lld KiB with %d idle connections: %.1f KiB each\n",
              LoadClientName(client), static_cast<long long>(rss_before),
              static_cast<long long>(rss_after), f.idle,
              f.idle > 0 ? static_cast<double>(rss_after - rss_before) / f.idle : 0.0);

  // 2. Active crowd and paced probes, at once. With --crowd events the
  // crowd's connections belong to the EventCrowd and conns holds only the
  // probes'.
  const int crowd_conns = f.event_crowd ? 0 : f.active;
  std::unique_ptr<EventCrowd> event_crowd;
  if (f.event_crowd) {
    EventCrowd::Options options;
    options.uri = f.uri;
    options.db = kDb;
    options.coll = kColl;
    options.connections = f.active;
    options.shards = f.crowd_threads;
    options.scans = f.active_scans;
    options.docs = kDocs;
    auto crowd = EventCrowd::Connect(options);
    if (!crowd.ok()) {
      std::fprintf(stderr, "event crowd: %s\n", crowd.status().ToString().c_str());
      std::exit(1);
    }
    event_crowd = std::move(crowd).value();
  }
  std::vector<std::unique_ptr<ServerConnection>> conns;
  for (int i = 0; i < crowd_conns + f.probes; ++i) conns.push_back(ConnectOrDie(client, f.uri));
  Group active, probes;
  active.latencies_ns.resize(f.event_crowd ? f.crowd_threads : f.active);
  probes.latencies_ns.resize(f.probes);
  using Clock = std::chrono::steady_clock;
  std::atomic<bool> go{false};
  Clock::time_point start;
  const auto duration = std::chrono::milliseconds(static_cast<int64_t>(f.seconds * 1000));
  std::vector<std::thread> threads;
  for (int shard = 0; event_crowd && shard < f.crowd_threads; ++shard) {
    threads.emplace_back([&, shard] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      int64_t errors = 0;
      event_crowd->Run(shard, start, start + duration, &active.latencies_ns[shard], &errors);
      active.errors.fetch_add(errors);
    });
  }
  for (int i = 0; i < crowd_conns + f.probes; ++i) {
    const bool is_probe = i >= crowd_conns;
    Group& group = is_probe ? probes : active;
    std::vector<uint32_t>& lat = group.latencies_ns[is_probe ? i - crowd_conns : i];
    threads.emplace_back([&, i, is_probe] {
      ServerConnection& conn = *conns[i];
      std::mt19937_64 rng(i + 1);
      std::uniform_int_distribution<int64_t> pick(0, kDocs - 1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const Clock::time_point deadline = start + duration;
      Clock::time_point next = start + std::chrono::milliseconds(i % f.probe_ms);
      for (;;) {
        if (is_probe) {
          std::this_thread::sleep_until(next);
          next += std::chrono::milliseconds(f.probe_ms);
        }
        const Clock::time_point t0 = Clock::now();
        if (t0 >= deadline) break;
        const bool ok = is_probe || !f.active_scans ? conn.ReadById(pick(rng)) : conn.FindNone();
        if (ok) {
          lat.push_back(static_cast<uint32_t>(std::min<int64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count(),
              UINT32_MAX)));
        } else {
          group.errors.fetch_add(1);
        }
      }
    });
  }
  start = Clock::now() + std::chrono::milliseconds(50);
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  std::printf("\n%-8s %-9s %6s | %10s %9s %9s %9s | %6s\n", "group", "client", "conns", "ops/s",
              "p50 us", "p99 us", "max us", "errors");
  std::printf("%s\n", std::string(80, '-').c_str());
  Report(f.event_crowd ? "wire-ev" : LoadClientName(client), "active", f.active, active, seconds);
  Report(LoadClientName(client), "probes", f.probes, probes, seconds);
  const std::string crowd_driver =
      f.event_crowd ? "event loop on " + std::to_string(f.crowd_threads) + " thread(s)"
                    : "a thread per connection";
  std::printf("\n%d idle connections open throughout; active: closed loop of %s, %s; probes: one "
              "read every %d ms each; %.1f s; client %s\n", f.idle,
              f.active_scans ? "scans of 1,000 documents" : "reads by _id", crowd_driver.c_str(),
              f.probe_ms, f.seconds, LoadClientName(client));
  return active.errors.load() + probes.errors.load();
}

int Main(int argc, char** argv) {
  Flags f = ParseFlags(argc, argv);
  RaiseFileLimit();
  int64_t errors = 0;
  for (LoadClient client : f.clients) errors += Measure(f, client);
  return errors > 0 ? 1 : 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
