// tigerdoc_index_bench: what an index buys on 1,000,000 documents of about
// 1 KB: throughput and p50/p99 latency of a point query on a secondary
// field and of a 100-document range query, with and without an index, on
// the tigerdoc server (libmongoc) and on PostgreSQL 15 (libpq, JSONB with
// expression indexes), side by side from one run. See bench/README.md;
// bench/run-index-bench starts both servers and runs this.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <functional>

#include "bench/index_bench_mongo.h"
#include "bench/json_report.h"
#include "bench/process_cpu.h"
#include "bench/index_bench_postgres.h"
#include "bench/latency_summary.h"

namespace tigerdoc::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  std::string pg = "host=/tmp port=5432 dbname=postgres";
  int64_t docs = 1000000;
  double seconds = 3;            // per indexed cell
  double unindexed_seconds = 5;  // per unindexed cell (each query scans everything)
  pid_t server_pid = 0;  // tigerdoc server, for its CPU per query (0: unknown)
  pid_t pg_pid = 0;      // PostgreSQL postmaster: itself and its children
  std::string json;      // --json FILE: the table as JSON too
};

[[noreturn]] void Usage(const char* error) {
  if (error) std::fprintf(stderr, "tigerdoc_index_bench: %s\n", error);
  std::fprintf(stderr,
               "usage: tigerdoc_index_bench [--uri URI] [--pg CONNINFO] [--docs N] [--seconds S]\n"
               "                            [--unindexed-seconds S] [--server-pid PID]\n"
               "                            [--pg-pid POSTMASTER_PID] [--json FILE]\n");
  std::exit(error ? 2 : 0);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--uri") f.uri = value();
    else if (arg == "--pg") f.pg = value();
    else if (arg == "--docs") f.docs = std::atoll(value().c_str());
    else if (arg == "--seconds") f.seconds = std::atof(value().c_str());
    else if (arg == "--unindexed-seconds") f.unindexed_seconds = std::atof(value().c_str());
    else if (arg == "--server-pid") f.server_pid = std::atoi(value().c_str());
    else if (arg == "--pg-pid") f.pg_pid = std::atoi(value().c_str());
    else if (arg == "--json") f.json = value();
    else if (arg == "--help" || arg == "-h") Usage(nullptr);
    else Usage(("unknown flag " + arg).c_str());
  }
  if (f.docs < kRangeWidth) Usage("--docs must be at least 100");
  return f;
}

enum class Query { kPoint, kRange };

struct Cell {
  LatencySummary summary;
  double server_cpu_us_per_op = -1;  // -1: unknown
  int64_t wrong = 0;  // answers with the wrong number of documents
  std::string error;
};

// Runs `query` with random arguments for `seconds` (at least one run) and
// checks every answer's size: 1 document for a point query, 100 for a range.
// `server_cpu` returns the server's CPU seconds so far (-1: unknown).
Cell Measure(IndexBenchBackend& backend, Query query, bool indexed, int64_t docs, double seconds,
             const std::function<double()>& server_cpu) {
  Cell cell;
  const double cpu0 = server_cpu();
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> pick(0, docs - kRangeWidth);
  std::vector<uint32_t> latencies;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  do {
    const int64_t i = pick(rng);
    const std::string sku = SkuOf(i);  // outside the timed region
    const auto t0 = Clock::now();
    StatusWith<int64_t> n = query == Query::kPoint ? backend.PointQuery(indexed, sku)
                                                   : backend.RangeQuery(indexed, i, i + kRangeWidth);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    if (!n.ok()) {
      cell.error = n.status().ToString();
      break;
    }
    if (n.value() != (query == Query::kPoint ? 1 : kRangeWidth)) ++cell.wrong;
    latencies.push_back(static_cast<uint32_t>(std::min<int64_t>(ns, UINT32_MAX)));
  } while (Clock::now() < deadline);
  cell.summary = Summarize(latencies, std::chrono::duration<double>(Clock::now() - start).count());
  const double cpu1 = server_cpu();
  if (cpu0 >= 0 && cpu1 >= 0 && cell.summary.ops > 0) {
    cell.server_cpu_us_per_op = (cpu1 - cpu0) * 1e6 / static_cast<double>(cell.summary.ops);
  }
  return cell;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

std::string CellText(const Cell& c) {
  if (!c.error.empty()) return "error: " + c.error;
  char buf[200];
  int n = std::snprintf(buf, sizeof buf, "%9.1f op/s  p50 %9.1f us  p99 %9.1f us", c.summary.ops_per_sec,
                        c.summary.p50_us, c.summary.p99_us);
  if (c.server_cpu_us_per_op >= 0) {
    n += std::snprintf(buf + n, sizeof buf - n, "  CPU %.1f us", c.server_cpu_us_per_op);
  }
  std::snprintf(buf + n, sizeof buf - n, "%s", c.wrong ? "  WRONG ANSWERS" : "");
  return buf;
}

int Main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  auto mongo = MongoIndexBench::Connect(flags.uri, "tigerdoc_index_bench", "docs");
  if (!mongo.ok()) {
    std::fprintf(stderr, "%s\n", mongo.status().ToString().c_str());
    return 1;
  }
  auto pg = PostgresIndexBench::Connect(flags.pg);
  if (!pg.ok()) {
    std::fprintf(stderr, "%s\n", pg.status().ToString().c_str());
    return 1;
  }
  std::vector<IndexBenchBackend*> backends = {mongo.value().get(), pg.value().get()};
  // Server CPU: tigerdoc is one process; PostgreSQL serves the connection
  // from a child of the postmaster.
  const pid_t server_pid = flags.server_pid, pg_pid = flags.pg_pid;
  const std::vector<std::function<double()>> server_cpu = {
      [server_pid] { return server_pid > 0 ? ProcessCpuSeconds(server_pid) : -1; },
      [pg_pid] { return pg_pid > 0 ? ProcessTreeCpuSeconds(pg_pid) : -1; }};

  struct Row {
    const char* label;
    Query query;
    bool indexed;
  };
  const Row rows[] = {{"point, no index", Query::kPoint, false},
                      {"range 100, no index", Query::kRange, false},
                      {"point, indexed", Query::kPoint, true},
                      {"range 100, indexed", Query::kRange, true}};
  std::vector<std::vector<Cell>> cells(backends.size());
  std::vector<double> load_s(backends.size()), index_s(backends.size());
  int failures = 0;
  for (size_t b = 0; b < backends.size(); ++b) {
    IndexBenchBackend& backend = *backends[b];
    std::fprintf(stderr, "%s: loading %lld documents...\n", backend.name().c_str(),
                 static_cast<long long>(flags.docs));
    auto t0 = Clock::now();
    Status st = backend.Load(flags.docs);
    load_s[b] = Seconds(t0);
    if (!st.ok()) {
      std::fprintf(stderr, "%s load: %s\n", backend.name().c_str(), st.ToString().c_str());
      return 1;
    }
    for (const Row& row : rows) {
      if (row.indexed && index_s[b] == 0) {
        std::fprintf(stderr, "%s: creating indexes...\n", backend.name().c_str());
        t0 = Clock::now();
        st = backend.CreateIndexes();
        index_s[b] = Seconds(t0);
        if (!st.ok()) {
          std::fprintf(stderr, "%s createIndexes: %s\n", backend.name().c_str(), st.ToString().c_str());
          return 1;
        }
      }
      std::fprintf(stderr, "%s: %s\n", backend.name().c_str(), row.label);
      Cell cell = Measure(backend, row.query, row.indexed, flags.docs,
                          row.indexed ? flags.seconds : flags.unindexed_seconds, server_cpu[b]);
      if (!cell.error.empty() || cell.wrong) ++failures;
      cells[b].push_back(cell);
    }
  }

  std::printf("%lld documents of ~1 KB; one connection each; %.0f s per indexed cell\n\n",
              static_cast<long long>(flags.docs), flags.seconds);
  std::printf("| query | tigerdoc | postgres 15 jsonb | tigerdoc / postgres (op/s) |\n|---|---|---|---|\n");
  for (size_t r = 0; r < std::size(rows); ++r) {
    const Cell& t = cells[0][r];
    const Cell& p = cells[1][r];
    double ratio = p.summary.ops_per_sec > 0 ? t.summary.ops_per_sec / p.summary.ops_per_sec : 0;
    std::printf("| %s | %s | %s | %.2f |\n", rows[r].label, CellText(t).c_str(), CellText(p).c_str(),
                ratio);
  }
  std::printf("| load | %.1f s | %.1f s | |\n", load_s[0], load_s[1]);
  std::printf("| build 2 indexes | %.1f s | %.1f s | |\n", index_s[0], index_s[1]);
  if (!flags.json.empty()) {
    bson_t doc = BSON_INITIALIZER, results;
    BSON_APPEND_UTF8(&doc, "benchmark", "index");
    BSON_APPEND_INT64(&doc, "docs", flags.docs);
    BSON_APPEND_ARRAY_BEGIN(&doc, "results", &results);
    int i = 0;
    for (size_t b = 0; b < backends.size(); ++b) {
      for (size_t r = 0; r < std::size(rows); ++r) {
        const Cell& c = cells[b][r];
        bson_t row;
        std::string key = std::to_string(i++);
        bson_append_document_begin(&results, key.c_str(), -1, &row);
        BSON_APPEND_UTF8(&row, "query", rows[r].label);
        BSON_APPEND_UTF8(&row, "backend", backends[b]->name().c_str());
        if (!c.error.empty()) BSON_APPEND_UTF8(&row, "error", c.error.c_str());
        BSON_APPEND_INT64(&row, "wrongAnswers", c.wrong);
        BSON_APPEND_DOUBLE(&row, "opsPerSec", c.summary.ops_per_sec);
        BSON_APPEND_DOUBLE(&row, "p50Us", c.summary.p50_us);
        BSON_APPEND_DOUBLE(&row, "p99Us", c.summary.p99_us);
        if (c.server_cpu_us_per_op >= 0) BSON_APPEND_DOUBLE(&row, "serverCpuUsPerOp", c.server_cpu_us_per_op);
        bson_append_document_end(&results, &row);
      }
      bson_t row;
      std::string key = std::to_string(i++);
      bson_append_document_begin(&results, key.c_str(), -1, &row);
      BSON_APPEND_UTF8(&row, "query", "load and index build");
      BSON_APPEND_UTF8(&row, "backend", backends[b]->name().c_str());
      BSON_APPEND_DOUBLE(&row, "loadSeconds", load_s[b]);
      BSON_APPEND_DOUBLE(&row, "indexBuildSeconds", index_s[b]);
      bson_append_document_end(&results, &row);
    }
    bson_append_array_end(&doc, &results);
    if (!WriteJsonReport(flags.json, &doc)) ++failures;
    bson_destroy(&doc);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
