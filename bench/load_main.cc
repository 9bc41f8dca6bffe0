// tigerdoc_load: throughput and latency of insert, point read by _id and
// $inc by _id against a running server (one connection per thread, through
// libmongoc and/or the thin wire client: --client), next to the same
// operations done directly on WiredTiger in-process as the ceiling. See
// bench/README.md.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/json_report.h"
#include "bench/load_runner.h"
#include "bench/server_backend.h"
#include "bench/wt_backend.h"

namespace tigerdoc::bench {
namespace {

struct Flags {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int64_t docs = 10000;
  double seconds = 3;
  std::vector<int> threads = {1, 8};
  int wt_cache_mb = 256;
  bool server = true;
  bool wiredtiger = true;
  std::string create_options;  // --create JSON: options of the server's collection
  // --vs-plain R: inserts only, into a plain collection and into one created
  // with --create, alternating R rounds in one run; prints the ratio.
  int vs_plain_rounds = 0;
  pid_t server_pid = 0;  // --server-pid: the server whose CPU per operation is reported
  std::string json;      // --json FILE: the table as JSON too
  bool journaled = false;  // --j: writeConcern {j: true} on the server's writes
  int batch = 1;           // --batch N: inserts are insertMany of N documents
  // --ops insert,read,inc: the operations measured (default all three).
  std::vector<LoadOp> ops = {LoadOp::kInsert, LoadOp::kReadById, LoadOp::kIncrementById};
  // --client libmongoc,wire: the clients the server is measured through,
  // one after the other in this run (server_backend.h).
  std::vector<LoadClient> clients = {LoadClient::kLibmongoc};
};

[[noreturn]] void Usage(const char* error) {
  if (error) std::fprintf(stderr, "tigerdoc_load: %s\n", error);
  std::fprintf(stderr,
               "usage: tigerdoc_load [--uri URI] [--docs N] [--seconds S] [--threads 1,8]\n"
               "                     [--wt-cache-mb MB] [--server-only | --wt-only]\n"
               "                     [--create '{\"maxPartitionBytes\": 1e9}' [--vs-plain ROUNDS]]\n"
               "                     [--server-pid PID] [--json FILE]\n"
               "                     [--j] [--batch N] [--ops insert,read,inc]\n"
               "                     [--client libmongoc,wire]\n");
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
    } else if (a == "--docs") {
      f.docs = std::stoll(value());
    } else if (a == "--seconds") {
      f.seconds = std::stod(value());
    } else if (a == "--threads") {
      f.threads.clear();
      std::stringstream ss(value());
      for (std::string item; std::getline(ss, item, ',');) f.threads.push_back(std::stoi(item));
    } else if (a == "--wt-cache-mb") {
      f.wt_cache_mb = std::stoi(value());
    } else if (a == "--create") {
      f.create_options = value();
    } else if (a == "--vs-plain") {
      f.vs_plain_rounds = std::stoi(value());
    } else if (a == "--server-pid") {
      f.server_pid = std::stoi(value());
    } else if (a == "--json") {
      f.json = value();
    } else if (a == "--j") {
      f.journaled = true;
    } else if (a == "--ops") {
      f.ops.clear();
      std::stringstream ss(value());
      for (std::string item; std::getline(ss, item, ',');) {
        if (item == "insert") {
          f.ops.push_back(LoadOp::kInsert);
        } else if (item == "read") {
          f.ops.push_back(LoadOp::kReadById);
        } else if (item == "inc") {
          f.ops.push_back(LoadOp::kIncrementById);
        } else {
          Usage(("unknown operation " + item).c_str());
        }
      }
    } else if (a == "--client") {
      if (!ParseLoadClients(value(), &f.clients)) Usage("--client takes libmongoc, wire or both");
    } else if (a == "--batch") {
      f.batch = std::stoi(value());
    } else if (a == "--server-only") {
      f.wiredtiger = false;
    } else if (a == "--wt-only") {
      f.server = false;
    } else if (a == "--help" || a == "-h") {
      Usage(nullptr);
    } else {
      Usage(("unknown flag " + a).c_str());
    }
  }
  if (f.docs < 1 || f.seconds <= 0 || f.threads.empty() || f.batch < 1) {
    Usage("bad --docs/--seconds/--threads/--batch");
  }
  if (f.vs_plain_rounds < 0 || (f.vs_plain_rounds > 0 && f.create_options.empty())) {
    Usage("--vs-plain needs a positive round count and --create");
  }
  return f;
}

struct Key {
  LoadOp op;
  int threads;
  bool operator<(const Key& o) const {
    return op != o.op ? op < o.op : threads < o.threads;
  }
};

// Runs every (operation, thread count) on one backend.
std::map<Key, LoadResult> RunAll(Backend& backend, const Flags& f) {
  std::map<Key, LoadResult> out;
  std::fprintf(stderr, "[%s] preloading %lld documents\n", backend.name().c_str(),
               static_cast<long long>(f.docs));
  Status st = backend.Reset(f.docs);
  if (!st.ok()) {
    std::fprintf(stderr, "[%s] %s\n", backend.name().c_str(), st.ToString().c_str());
    return out;
  }
  std::atomic<int64_t> next_id{f.docs};
  auto duration = std::chrono::milliseconds(static_cast<int64_t>(f.seconds * 1000));
  for (int threads : f.threads) {
    for (LoadOp op : f.ops) {
      std::fprintf(stderr, "[%s] %s x%d ...\n", backend.name().c_str(), LoadOpName(op), threads);
      LoadResult r = RunLoad(backend, op, threads, duration, f.docs, &next_id, f.batch);
      if (!r.error.empty()) std::fprintf(stderr, "[%s] %s\n", backend.name().c_str(), r.error.c_str());
      out[{op, threads}] = r;
    }
  }
  return out;
}

// which: 0 op/s, 1 p50, 2 p99, 3 server CPU us per operation, 4 busy share,
// 5 client CPU us per operation.
std::string Cell(const std::map<Key, LoadResult>& m, Key k, int which) {
  auto it = m.find(k);
  if (it == m.end() || !it->second.error.empty()) return "-";
  char buf[32];
  const LoadResult& r = it->second;
  if (which == 3 && r.server_cpu_us_per_op < 0) return "-";
  if (which == 4 && r.server_busy < 0) return "-";
  if (which == 5 && r.client_cpu_us_per_op < 0) return "-";
  double v = which == 0 ? r.ops_per_sec : which == 1 ? r.p50_us : which == 2 ? r.p99_us
             : which == 3 ? r.server_cpu_us_per_op : which == 4 ? r.server_busy * 100
             : r.client_cpu_us_per_op;
  std::snprintf(buf, sizeof(buf), which == 0 ? "%.0f" : which == 4 ? "%.0f%%" : "%.1f", v);
  return buf;
}

// The server's cells through one client.
struct ClientResults {
  LoadClient client;
  std::string backend;  // "tigerdoc" / "tigerdoc-wire" (the JSON's backend)
  std::map<Key, LoadResult> cells;
};

void PrintTable(const Flags& f, const std::vector<ClientResults>& servers,
                const std::map<Key, LoadResult>& wt) {
  // CPU columns: the server process's utime+stime over the cell per
  // operation (per document for batched inserts; with --server-pid), and
  // this process's for WiredTiger. busy: that CPU time over the cell's wall
  // time (100% = one core throughout): well under the cores the server may
  // use means the client, not the server, set the rate. client: this
  // process's CPU per operation, the load's own share of the same cores.
  std::printf("\n%-9s %5s %-9s | %12s %9s %9s %8s %6s %8s %6s | %12s %9s %9s %8s | %9s\n",
              "operation", "conns", "client", "server op/s", "p50 us", "p99 us", "CPU us", "busy",
              "client us", "errors", "WT op/s", "p50 us", "p99 us", "CPU us", "server/WT");
  std::printf("%s\n", std::string(150, '-').c_str());
  const std::vector<ClientResults> wt_only = {{LoadClient::kLibmongoc, "", {}}};
  for (int threads : f.threads) {
    for (LoadOp op : f.ops) {
      Key k{op, threads};
      for (const ClientResults& c : servers.empty() ? wt_only : servers) {
        const std::map<Key, LoadResult>& server = c.cells;
        std::string ratio = "-";
        auto s = server.find(k);
        auto w = wt.find(k);
        if (s != server.end() && w != wt.end() && w->second.ops_per_sec > 0 && s->second.error.empty()) {
          char buf[32];
          std::snprintf(buf, sizeof(buf), "%.1f%%", 100.0 * s->second.ops_per_sec / w->second.ops_per_sec);
          ratio = buf;
        }
        std::string errs = s != server.end() ? std::to_string(s->second.errors) : "-";
        std::printf("%-9s %5d %-9s | %12s %9s %9s %8s %6s %8s %6s | %12s %9s %9s %8s | %9s\n",
                    LoadOpName(op), threads, servers.empty() ? "-" : LoadClientName(c.client),
                    Cell(server, k, 0).c_str(), Cell(server, k, 1).c_str(),
                    Cell(server, k, 2).c_str(), Cell(server, k, 3).c_str(),
                    Cell(server, k, 4).c_str(), Cell(server, k, 5).c_str(), errs.c_str(),
                    Cell(wt, k, 0).c_str(), Cell(wt, k, 1).c_str(), Cell(wt, k, 2).c_str(),
                    Cell(wt, k, 3).c_str(), ratio.c_str());
      }
    }
  }
  std::printf("\n%lld preloaded documents of %d-byte payload, %.1f s per cell; "
              "server: %s\n",
              static_cast<long long>(f.docs), kPayloadBytes, f.seconds, f.uri.c_str());
  if (f.batch > 1) {
    std::printf("inserts: insertMany of %d documents per request (built once, fresh _ids, "
                "libmongoc's validate: false; the wire client splits as libmongoc does); op/s "
                "and CPU us count documents, p50/p99 requests\n", f.batch);
  }
  if (f.journaled) std::printf("server writes: writeConcern {j: true}\n");
}

void AppendResults(bson_t* rows, int* row, const char* backend, const std::map<Key, LoadResult>& m) {
  for (const auto& [k, r] : m) {
    bson_t doc;
    std::string key = std::to_string((*row)++);
    bson_append_document_begin(rows, key.c_str(), -1, &doc);
    BSON_APPEND_UTF8(&doc, "operation", LoadOpName(k.op));
    BSON_APPEND_INT32(&doc, "threads", k.threads);
    BSON_APPEND_UTF8(&doc, "backend", backend);
    if (!r.error.empty()) BSON_APPEND_UTF8(&doc, "error", r.error.c_str());
    BSON_APPEND_INT64(&doc, "errors", r.errors);
    BSON_APPEND_DOUBLE(&doc, "opsPerSec", r.ops_per_sec);
    BSON_APPEND_DOUBLE(&doc, "p50Us", r.p50_us);
    BSON_APPEND_DOUBLE(&doc, "p99Us", r.p99_us);
    if (r.server_cpu_us_per_op >= 0) BSON_APPEND_DOUBLE(&doc, "serverCpuUsPerOp", r.server_cpu_us_per_op);
    if (r.server_busy >= 0) BSON_APPEND_DOUBLE(&doc, "serverBusy", r.server_busy);
    if (r.client_cpu_us_per_op >= 0) BSON_APPEND_DOUBLE(&doc, "clientCpuUsPerOp", r.client_cpu_us_per_op);
    bson_append_document_end(rows, &doc);
  }
}

bool WriteJson(const Flags& f, const std::vector<ClientResults>& servers,
               const std::map<Key, LoadResult>& wt) {
  bson_t doc = BSON_INITIALIZER, rows;
  BSON_APPEND_UTF8(&doc, "benchmark", "load");
  BSON_APPEND_INT64(&doc, "docs", f.docs);
  BSON_APPEND_DOUBLE(&doc, "secondsPerCell", f.seconds);
  BSON_APPEND_ARRAY_BEGIN(&doc, "results", &rows);
  int row = 0;
  for (const ClientResults& c : servers) AppendResults(&rows, &row, c.backend.c_str(), c.cells);
  AppendResults(&rows, &row, "wiredtiger", wt);
  bson_append_array_end(&doc, &rows);
  bool ok = WriteJsonReport(f.json, &doc);
  bson_destroy(&doc);
  return ok;
}

// --vs-plain: insert throughput into a collection with the --create options
// as a share of a plain one, alternating rounds so that both see the same
// machine (the development machines are shared and noisy).
int ComparePatternsWithPlain(const Flags& f) {
  auto duration = std::chrono::milliseconds(static_cast<int64_t>(f.seconds * 1000));
  std::printf("\ninserts into a plain collection vs one created with %s\n", f.create_options.c_str());
  std::printf("%5s %5s | %12s %9s | %12s %9s %6s | %7s\n", "round", "conns", "plain op/s", "p99 us",
              "options op/s", "p99 us", "errors", "ratio");
  bool failed = false;
  for (int round = 1; round <= f.vs_plain_rounds; ++round) {
    for (int threads : f.threads) {
      LoadResult results[2];
      for (int with_options = 0; with_options < 2; ++with_options) {
        ServerBackend backend(f.uri, "tigerdoc_load", "load", with_options ? f.create_options : "",
                              f.server_pid, f.clients.front());
        Status st = backend.Reset(0);
        if (!st.ok()) {
          std::fprintf(stderr, "[%s] %s\n", backend.name().c_str(), st.ToString().c_str());
          return 1;
        }
        std::atomic<int64_t> next_id{0};
        results[with_options] = RunLoad(backend, LoadOp::kInsert, threads, duration, 0, &next_id);
        if (!results[with_options].error.empty()) {
          std::fprintf(stderr, "%s\n", results[with_options].error.c_str());
          failed = true;
        }
      }
      std::printf("%5d %5d | %12.0f %9.1f | %12.0f %9.1f %6lld | %6.1f%%\n", round, threads,
                  results[0].ops_per_sec, results[0].p99_us, results[1].ops_per_sec,
                  results[1].p99_us, static_cast<long long>(results[1].errors),
                  results[0].ops_per_sec > 0 ? 100.0 * results[1].ops_per_sec / results[0].ops_per_sec : 0);
      failed |= results[1].errors > 0;
    }
  }
  return failed ? 1 : 0;
}

int Main(int argc, char** argv) {
  Flags f = ParseFlags(argc, argv);
  if (f.vs_plain_rounds > 0) return ComparePatternsWithPlain(f);
  std::vector<ClientResults> servers;
  std::map<Key, LoadResult> wt;
  bool failed = false;
  for (LoadClient client : f.server ? f.clients : std::vector<LoadClient>{}) {
    ServerBackend backend(f.uri, "tigerdoc_load", "load", f.create_options, f.server_pid, client);
    backend.SetJournaled(f.journaled);
    servers.push_back({client, backend.name(), RunAll(backend, f)});
    failed |= servers.back().cells.empty();
  }
  if (f.wiredtiger) {
    std::string home_template =
        (std::filesystem::temp_directory_path() / "tigerdoc-load-wt-XXXXXX").string();
    if (mkdtemp(home_template.data()) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    {
      auto backend = WtBackend::Open(home_template, f.wt_cache_mb);
      if (!backend.ok()) {
        std::fprintf(stderr, "%s\n", backend.status().ToString().c_str());
        failed = true;
      } else {
        wt = RunAll(*backend.value(), f);
        failed |= wt.empty();
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(home_template, ec);
  }
  PrintTable(f, servers, wt);
  if (!f.json.empty()) failed |= !WriteJson(f, servers, wt);
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
