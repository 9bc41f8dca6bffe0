// tigerdoc_ycsb: YCSB workloads A, B, C and E (and the load phase) with 1
// and 8 threads against the tigerdoc server (libmongoc pool, and/or a thin
// wire-protocol client: --mongo-api), PostgreSQL
// with a JSONB table (libpq) and WiredTiger in-process (the ceiling), in
// one run, with throughput, p50/p99 latency and the server's CPU per
// operation. See bench/README.md; bench/run-ycsb starts the servers.
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

#include <bson/bson.h>

#include "bench/json_report.h"
#include "bench/ycsb/ycsb_mongo.h"
#include "bench/ycsb/ycsb_mongo_wire.h"
#include "bench/ycsb/ycsb_postgres.h"
#include "bench/ycsb/ycsb_runner.h"
#include "bench/ycsb/ycsb_wiredtiger.h"

namespace tigerdoc::bench::ycsb {
namespace {

struct Flags {
  std::string uri;        // tigerdoc (empty: not measured)
  pid_t server_pid = 0;
  std::string pg;         // PostgreSQL conninfo (empty: not measured)
  pid_t pg_pid = 0;
  bool wiredtiger = true;
  int wt_cache_mb = 256;
  int64_t records = 100000;
  double seconds = 5;
  std::vector<int> threads = {1, 8};
  std::vector<std::string> workloads = {"a", "b", "c", "e"};
  std::string json;
  std::vector<MongoApi> mongo_apis = {MongoApi::kCommand};
};

[[noreturn]] void Usage(const char* error) {
  if (error) std::fprintf(stderr, "tigerdoc_ycsb: %s\n", error);
  std::fprintf(stderr,
               "usage: tigerdoc_ycsb [--uri MONGODB_URI [--server-pid PID]]\n"
               "                     [--pg CONNINFO [--pg-pid POSTMASTER_PID]] [--no-wiredtiger]\n"
               "                     [--records N] [--seconds S] [--threads 1,8]\n"
               "                     [--workloads a,b,c,e] [--wt-cache-mb MB] [--json FILE]\n"
               "                     [--mongo-api command|crud|wire|command,crud,wire]\n");
  std::exit(error ? 2 : 0);
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--uri") f.uri = value();
    else if (a == "--server-pid") f.server_pid = std::atoi(value().c_str());
    else if (a == "--pg") f.pg = value();
    else if (a == "--pg-pid") f.pg_pid = std::atoi(value().c_str());
    else if (a == "--no-wiredtiger") f.wiredtiger = false;
    else if (a == "--wt-cache-mb") f.wt_cache_mb = std::atoi(value().c_str());
    else if (a == "--records") f.records = std::atoll(value().c_str());
    else if (a == "--seconds") f.seconds = std::atof(value().c_str());
    else if (a == "--json") f.json = value();
    else if (a == "--threads") {
      f.threads.clear();
      for (const std::string& t : SplitComma(value())) f.threads.push_back(std::atoi(t.c_str()));
    } else if (a == "--mongo-api") {
      f.mongo_apis.clear();
      for (const std::string& name : SplitComma(value())) {
        MongoApi api;
        if (!MongoApiByName(name, &api)) Usage(("unknown --mongo-api " + name).c_str());
        f.mongo_apis.push_back(api);
      }
    } else if (a == "--workloads") {
      f.workloads = SplitComma(value());
    } else if (a == "--help" || a == "-h") {
      Usage(nullptr);
    } else {
      Usage(("unknown flag " + a).c_str());
    }
  }
  if (f.records < 1 || f.seconds <= 0 || f.threads.empty()) Usage("bad --records/--seconds/--threads");
  for (int t : f.threads) if (t < 1) Usage("bad --threads");
  Workload w;
  for (const std::string& name : f.workloads) {
    if (name == "load" || !WorkloadByName(name, &w)) Usage(("unknown workload " + name).c_str());
  }
  if (f.uri.empty() && f.pg.empty() && !f.wiredtiger) Usage("nothing to measure");
  return f;
}

struct Cell {
  std::string workload;  // "load", "A", ...
  int threads;
  size_t backend;
  RunResult result;
};

std::string Format(const RunResult& r) {
  if (!r.error.empty()) return "error: " + r.error;
  char buf[160];
  int n = std::snprintf(buf, sizeof buf, "%.0f (%.0f / %.0f us", r.ops_per_sec, r.p50_us, r.p99_us);
  if (r.server_cpu_us_per_op >= 0) {
    n += std::snprintf(buf + n, sizeof buf - n, ", %.1f us CPU", r.server_cpu_us_per_op);
  }
  std::snprintf(buf + n, sizeof buf - n, ")%s", r.errors ? " ERRORS" : "");
  return buf;
}

const RunResult* Find(const std::vector<Cell>& cells, const std::string& workload, int threads,
                      size_t backend) {
  for (const Cell& c : cells) {
    if (c.workload == workload && c.threads == threads && c.backend == backend) return &c.result;
  }
  return nullptr;
}

std::string Ratio(const RunResult* a, const RunResult* b) {
  if (a == nullptr || b == nullptr || !a->error.empty() || !b->error.empty() || b->ops_per_sec <= 0) {
    return "";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", a->ops_per_sec / b->ops_per_sec);
  return buf;
}

void PrintTable(const Flags& f, const std::vector<std::unique_ptr<Backend>>& backends,
                const std::vector<Cell>& cells, const std::vector<std::string>& workload_names) {
  std::printf("\nYCSB, %lld records of %d x %d-byte fields, zipfian requests, %.1f s per cell;\n"
              "each cell: ops/s (p50 / p99 latency, server CPU per operation)\n\n",
              static_cast<long long>(f.records), kFieldCount, kFieldLength, f.seconds);
  size_t tigerdoc = backends.size(), postgres = backends.size(), wiredtiger = backends.size();
  // Every tigerdoc client style ("tigerdoc", "tigerdoc-crud", "tigerdoc-wire")
  // gets a column against PostgreSQL; "tigerdoc" also one against WiredTiger.
  std::vector<size_t> tigerdocs;
  std::printf("| workload | threads |");
  for (size_t b = 0; b < backends.size(); ++b) {
    const std::string name = backends[b]->name();
    std::printf(" %s |", name.c_str());
    if (name == "tigerdoc") tigerdoc = b;
    if (name.rfind("tigerdoc", 0) == 0) tigerdocs.push_back(b);
    if (name == "postgres") postgres = b;
    if (name == "wiredtiger") wiredtiger = b;
  }
  const bool vs_pg = !tigerdocs.empty() && postgres < backends.size();
  const bool vs_wt = tigerdoc < backends.size() && wiredtiger < backends.size();
  if (vs_pg) {
    for (size_t b : tigerdocs) std::printf(" %s / postgres |", backends[b]->name().c_str());
  }
  if (vs_wt) std::printf(" tigerdoc / WT |");
  std::printf("\n|---|---|");
  const size_t ratio_columns = (vs_pg ? tigerdocs.size() : 0) + vs_wt;
  for (size_t b = 0; b < backends.size() + ratio_columns; ++b) std::printf("---|");
  std::printf("\n");
  for (int threads : f.threads) {
    for (const std::string& w : workload_names) {
      std::printf("| %s | %d |", w.c_str(), threads);
      for (size_t b = 0; b < backends.size(); ++b) {
        const RunResult* r = Find(cells, w, threads, b);
        std::printf(" %s |", r ? Format(*r).c_str() : "-");
      }
      if (vs_pg) {
        for (size_t b : tigerdocs) {
          std::printf(" %s |", Ratio(Find(cells, w, threads, b), Find(cells, w, threads, postgres)).c_str());
        }
      }
      if (vs_wt) {
        std::printf(" %s |", Ratio(Find(cells, w, threads, tigerdoc), Find(cells, w, threads, wiredtiger)).c_str());
      }
      std::printf("\n");
    }
  }
  // The client's share of the machine (both run on the same cores): the
  // server's CPU plus this is what an operation costs the two cores.
  std::printf("\nclient CPU per operation (this process's threads), us\n\n| workload | threads |");
  for (size_t b = 0; b < backends.size(); ++b) {
    if (b != wiredtiger) std::printf(" %s |", backends[b]->name().c_str());
  }
  std::printf("\n|---|---|");
  for (size_t b = 0; b < backends.size(); ++b) {
    if (b != wiredtiger) std::printf("---|");
  }
  std::printf("\n");
  for (int threads : f.threads) {
    for (const std::string& w : workload_names) {
      std::printf("| %s | %d |", w.c_str(), threads);
      for (size_t b = 0; b < backends.size(); ++b) {
        if (b == wiredtiger) continue;
        const RunResult* r = Find(cells, w, threads, b);
        if (r != nullptr && r->error.empty()) {
          std::printf(" %.1f |", r->client_cpu_us_per_op);
        } else {
          std::printf(" - |");
        }
      }
      std::printf("\n");
    }
  }
  // Scans read what they find: equal average lengths mean the backends hold
  // the same keys and answer the same scans.
  for (const Cell& c : cells) {
    if (c.result.scans > 0) {
      std::printf("%s E x%d: %.1f records per scan\n", backends[c.backend]->name().c_str(), c.threads,
                  static_cast<double>(c.result.scanned) / static_cast<double>(c.result.scans));
    }
  }
}

bool WriteJson(const Flags& f, const std::vector<std::unique_ptr<Backend>>& backends,
               const std::vector<Cell>& cells) {
  bson_t doc = BSON_INITIALIZER, params, rows;
  BSON_APPEND_UTF8(&doc, "benchmark", "ycsb");
  BSON_APPEND_DOCUMENT_BEGIN(&doc, "parameters", &params);
  BSON_APPEND_INT64(&params, "records", f.records);
  BSON_APPEND_INT32(&params, "fields", kFieldCount);
  BSON_APPEND_INT32(&params, "fieldBytes", kFieldLength);
  BSON_APPEND_DOUBLE(&params, "secondsPerCell", f.seconds);
  BSON_APPEND_UTF8(&params, "distribution", "scrambled zipfian 0.99");
  bson_append_document_end(&doc, &params);
  BSON_APPEND_ARRAY_BEGIN(&doc, "results", &rows);
  int i = 0;
  for (const Cell& c : cells) {
    bson_t row;
    std::string key = std::to_string(i++);
    bson_append_document_begin(&rows, key.c_str(), -1, &row);
    BSON_APPEND_UTF8(&row, "workload", c.workload.c_str());
    BSON_APPEND_INT32(&row, "threads", c.threads);
    BSON_APPEND_UTF8(&row, "backend", backends[c.backend]->name().c_str());
    if (!c.result.error.empty()) BSON_APPEND_UTF8(&row, "error", c.result.error.c_str());
    BSON_APPEND_INT64(&row, "ops", c.result.ops);
    BSON_APPEND_INT64(&row, "errors", c.result.errors);
    BSON_APPEND_DOUBLE(&row, "opsPerSec", c.result.ops_per_sec);
    BSON_APPEND_DOUBLE(&row, "p50Us", c.result.p50_us);
    BSON_APPEND_DOUBLE(&row, "p99Us", c.result.p99_us);
    BSON_APPEND_DOUBLE(&row, "clientCpuUsPerOp", c.result.client_cpu_us_per_op);
    if (c.result.server_cpu_us_per_op >= 0) {
      BSON_APPEND_DOUBLE(&row, "serverCpuUsPerOp", c.result.server_cpu_us_per_op);
    }
    if (c.result.scans > 0) {
      BSON_APPEND_DOUBLE(&row, "recordsPerScan",
                         static_cast<double>(c.result.scanned) / static_cast<double>(c.result.scans));
    }
    bson_append_document_end(&rows, &row);
  }
  bson_append_array_end(&doc, &rows);
  bool ok = WriteJsonReport(f.json, &doc);
  bson_destroy(&doc);
  return ok;
}

int Main(int argc, char** argv) {
  Flags f = ParseFlags(argc, argv);
  std::vector<std::unique_ptr<Backend>> backends;
  for (MongoApi api : f.uri.empty() ? std::vector<MongoApi>{} : f.mongo_apis) {
    if (api == MongoApi::kWire) {
      auto wire = MongoWireYcsb::Connect(f.uri, f.server_pid);
      if (!wire.ok()) {
        std::fprintf(stderr, "%s\n", wire.status().ToString().c_str());
        return 1;
      }
      backends.push_back(std::move(wire).value());
      continue;
    }
    auto mongo = MongoYcsb::Connect(f.uri, f.server_pid, api);
    if (!mongo.ok()) {
      std::fprintf(stderr, "%s\n", mongo.status().ToString().c_str());
      return 1;
    }
    backends.push_back(std::move(mongo).value());
  }
  if (!f.pg.empty()) backends.push_back(std::make_unique<PostgresYcsb>(f.pg, f.pg_pid));
  std::string wt_home;
  if (f.wiredtiger) {
    wt_home = (std::filesystem::temp_directory_path() / "tigerdoc-ycsb-wt-XXXXXX").string();
    if (mkdtemp(wt_home.data()) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    auto wt = WiredTigerYcsb::Open(wt_home, f.wt_cache_mb);
    if (!wt.ok()) {
      std::fprintf(stderr, "%s\n", wt.status().ToString().c_str());
      return 1;
    }
    backends.push_back(std::move(wt).value());
  }

  const auto duration = std::chrono::milliseconds(static_cast<int64_t>(f.seconds * 1000));
  std::vector<Cell> cells;
  std::vector<std::atomic<int64_t>> next_record(backends.size());
  std::vector<std::string> workload_names = {"load"};
  bool failed = false;
  auto run = [&](size_t b, const Workload& w, int threads) {
    std::fprintf(stderr, "[%s] %s x%d ...\n", backends[b]->name().c_str(), w.name.c_str(), threads);
    RunResult r = RunWorkload(*backends[b], w, threads, duration, f.records, &next_record[b]);
    if (!r.error.empty()) std::fprintf(stderr, "[%s] %s\n", backends[b]->name().c_str(), r.error.c_str());
    failed |= !r.error.empty() || r.errors > 0;
    cells.push_back(Cell{w.name, threads, b, r});
  };
  for (int threads : f.threads) {
    // Every backend is loaded afresh with the same thread count, then the
    // workloads run on each backend in turn, so that a change in the
    // machine's load hits all of them alike.
    Workload load;
    WorkloadByName("load", &load);
    for (size_t b = 0; b < backends.size(); ++b) {
      Status st = backends[b]->Reset();
      if (!st.ok()) {
        std::fprintf(stderr, "[%s] reset: %s\n", backends[b]->name().c_str(), st.ToString().c_str());
        return 1;
      }
      next_record[b] = 0;
      run(b, load, threads);
      st = backends[b]->FinishLoad();
      if (!st.ok()) {
        std::fprintf(stderr, "[%s] %s\n", backends[b]->name().c_str(), st.ToString().c_str());
        return 1;
      }
    }
    for (const std::string& name : f.workloads) {
      Workload w;
      WorkloadByName(name, &w);
      if (threads == f.threads.front()) workload_names.push_back(w.name);
      for (size_t b = 0; b < backends.size(); ++b) run(b, w, threads);
    }
  }
  PrintTable(f, backends, cells, workload_names);
  if (!f.json.empty()) failed |= !WriteJson(f, backends, cells);
  backends.clear();  // closes WiredTiger before its home goes
  if (!wt_home.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(wt_home, ec);
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace tigerdoc::bench::ycsb

int main(int argc, char** argv) { return tigerdoc::bench::ycsb::Main(argc, argv); }
