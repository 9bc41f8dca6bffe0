// tigerdoc_change_stream_bench: end-to-end change stream lag, from just
// before an insert is sent to the moment a watcher (mongoc_collection_watch)
// has the event, in one run, on a server started with --replSet:
//
//   paced   one writer, one insert every 10 ms (the lag of a quiet server)
//   load    --writers connections inserting flat out (the lag under load,
//           and the write rate the log sustains)
//   txn     --writers connections committing transactions of 2 inserts
//           flat out (events of a transaction appear at its commit)
//
// Each document carries the sender's steady-clock time (same process), so
// the lag needs no clock agreement. Prints p50/p99 lag and writes/s
// (documents inserted per second; a transaction counts its two).

#include <mongoc/mongoc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/latency_summary.h"
#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int writers = 4;
  double seconds = 5;
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// A transaction of two inserts (the writer's documents), for the txn cell.
struct TxnInserts {
  mongoc_collection_t* coll;
  const bson_t* docs[2];
};

bool InsertTwo(mongoc_client_session_t* session, void* ctx, bson_t** reply, bson_error_t* error) {
  (void)reply;
  auto* t = static_cast<TxnInserts*>(ctx);
  bson_t opts = BSON_INITIALIZER;
  bool ok = mongoc_client_session_append(session, &opts, error) &&
            mongoc_collection_insert_one(t->coll, t->docs[0], &opts, nullptr, error) &&
            mongoc_collection_insert_one(t->coll, t->docs[1], &opts, nullptr, error);
  bson_destroy(&opts);
  return ok;
}

struct CellResult {
  LatencySummary lag;
  double writes_per_sec = 0;
  int64_t missing = 0;  // acknowledged writes the watcher did not deliver
};

// Runs writers (paced or flat out) for `seconds` while one watcher measures.
// With `transactions`, each write is a transaction of two inserts.
CellResult RunCell(const Options& options, const char* coll, int writers,
                   std::chrono::microseconds pace, bool transactions) {
  CellResult result;
  auto watcher_client = ConnectMongo(options.uri);
  if (!watcher_client.ok()) {
    std::fprintf(stderr, "%s\n", watcher_client.status().ToString().c_str());
    std::exit(1);
  }
  mongoc_collection_t* watched =
      mongoc_client_get_collection(watcher_client.value(), "cs_bench", coll);
  if (transactions) {
    // Created up front: writers that each created it inside their first
    // transaction would conflict (TransientTransactionError, as on mongod)
    // and the driver's retries would flood stderr with abort warnings.
    mongoc_database_t* db = mongoc_client_get_database(watcher_client.value(), "cs_bench");
    bson_error_t create_error;
    mongoc_collection_t* created = mongoc_database_create_collection(db, coll, nullptr, &create_error);
    if (created != nullptr) mongoc_collection_destroy(created);
    mongoc_database_destroy(db);
  }
  bson_t* pipeline = BCON_NEW("pipeline", "[", "]");
  bson_t* watch_opts = BCON_NEW("maxAwaitTimeMS", BCON_INT32(100));
  mongoc_change_stream_t* stream = mongoc_collection_watch(watched, pipeline, watch_opts);
  // The first getMore establishes the stream's start before writes begin.
  const bson_t* event = nullptr;
  mongoc_change_stream_next(stream, &event);

  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      auto client = ConnectMongo(options.uri);
      if (!client.ok()) return;
      mongoc_collection_t* c = mongoc_client_get_collection(client.value(), "cs_bench", coll);
      mongoc_client_session_t* session =
          transactions ? mongoc_client_start_session(client.value(), nullptr, nullptr) : nullptr;
      int64_t n = 0;
      auto next = Clock::now();
      while (!stop.load()) {
        const int64_t sent = NowNs();
        bson_t* doc = BCON_NEW("w", BCON_INT32(w), "n", BCON_INT64(n++), "sent", BCON_INT64(sent));
        bson_error_t error;
        if (session != nullptr) {
          bson_t* second = BCON_NEW("w", BCON_INT32(w), "n", BCON_INT64(n++), "sent", BCON_INT64(sent));
          TxnInserts txn{c, {doc, second}};
          if (mongoc_client_session_with_transaction(session, InsertTwo, nullptr, &txn, nullptr, &error)) {
            acknowledged += 2;
          }
          bson_destroy(second);
        } else if (mongoc_collection_insert_one(c, doc, nullptr, nullptr, &error)) {
          ++acknowledged;
        }
        bson_destroy(doc);
        if (pace.count() > 0) {
          next += pace;
          std::this_thread::sleep_until(next);
        }
      }
      if (session != nullptr) mongoc_client_session_destroy(session);
      mongoc_collection_destroy(c);
      mongoc_client_destroy(client.value());
    });
  }
  std::vector<uint32_t> lags;
  const auto begin = Clock::now();
  const auto end = begin + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options.seconds));
  // After the writers stop, the watcher drains what is left (up to 10 s).
  auto drain_until = end + std::chrono::seconds(10);
  while (true) {
    if (Clock::now() >= end && !stop.load()) {
      stop.store(true);
      for (auto& t : threads) t.join();
      drain_until = Clock::now() + std::chrono::seconds(10);
    }
    if (stop.load() && (static_cast<int64_t>(lags.size()) >= acknowledged.load() ||
                        Clock::now() >= drain_until)) {
      break;
    }
    if (!mongoc_change_stream_next(stream, &event)) continue;
    const int64_t now = NowNs();
    bson_iter_t it;
    if (bson_iter_init(&it, event) && bson_iter_find_descendant(&it, "fullDocument.sent", &it)) {
      lags.push_back(static_cast<uint32_t>(std::min<int64_t>(now - bson_iter_int64(&it), UINT32_MAX)));
    }
  }
  const double elapsed = options.seconds;
  result.writes_per_sec = static_cast<double>(acknowledged.load()) / elapsed;
  result.missing = acknowledged.load() - static_cast<int64_t>(lags.size());
  result.lag = Summarize(lags, elapsed);
  mongoc_change_stream_destroy(stream);
  bson_destroy(pipeline);
  bson_destroy(watch_opts);
  mongoc_collection_destroy(watched);
  mongoc_client_destroy(watcher_client.value());
  return result;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--uri")) options.uri = argv[i + 1];
    else if (!std::strcmp(argv[i], "--writers")) options.writers = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds")) options.seconds = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--uri URI] [--writers N] [--seconds S]\n", argv[0]);
      return 2;
    }
  }
  std::printf("%-28s %12s %12s %12s %10s\n", "cell", "writes/s", "lag p50 ms", "lag p99 ms",
              "missing");
  struct Cell {
    const char* name;
    const char* coll;
    int writers;
    std::chrono::microseconds pace;
    bool transactions;
  };
  const std::string load_name = "load (" + std::to_string(options.writers) + " writers)";
  const std::string txn_name = "txn of 2 (" + std::to_string(options.writers) + " writers)";
  for (const Cell& cell : {Cell{"paced (1 write / 10 ms)", "paced", 1, std::chrono::milliseconds(10), false},
                           Cell{load_name.c_str(), "load", options.writers, std::chrono::microseconds(0), false},
                           Cell{txn_name.c_str(), "txn", options.writers, std::chrono::microseconds(0), true}}) {
    CellResult r = RunCell(options, cell.coll, cell.writers, cell.pace, cell.transactions);
    std::printf("%-28s %12.0f %12.2f %12.2f %10lld\n", cell.name, r.writes_per_sec,
                r.lag.p50_us / 1000.0, r.lag.p99_us / 1000.0, static_cast<long long>(r.missing));
  }
  return 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
