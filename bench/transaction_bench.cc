// tigerdoc_transaction_bench: what a multi-document transaction costs, in
// one run on a server started with --replSet. The unit of work is the
// blogging article's stored procedure: insert a comment and $inc its post's
// counter, done two ways over the same connections:
//
//   transaction   session.withTransaction(insert, updateOne $inc)
//                 (libmongoc's with_transaction: 3 round trips, 1 commit)
//   single writes insert_one, then update_one $inc (2 round trips, 2 commits)
//
// with 1 and --threads threads (one client and session each, each thread
// bumping its own post so no two threads conflict), the two modes
// alternating (--rounds of --seconds each) so machine noise hits both.
// Prints units/s (a transaction's commits/s), p50/p99 per unit, and the
// transaction's rate as a share of the single writes'. After each cell the
// counters must equal the comments inserted (else the run fails).
//
//   tigerdoc_transaction_bench [--uri URI] [--threads N] [--seconds S] [--rounds R] [--json FILE]

#include <mongoc/mongoc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/json_report.h"
#include "bench/latency_summary.h"
#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kDb[] = "tigerdoc_transaction_bench";

struct Options {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int threads = 8;
  double seconds = 3;
  int rounds = 2;
  std::string json;
};

struct Unit {
  mongoc_collection_t* comments;
  mongoc_collection_t* posts;
  const bson_t* comment;
  const bson_t* post;
  const bson_t* inc;
};

// Both writes with the session's options; used by the transaction's callback.
bool WriteBoth(Unit* u, const bson_t* opts, bson_error_t* error) {
  bson_t reply;
  bool ok = mongoc_collection_insert_one(u->comments, u->comment, opts, nullptr, error) &&
            mongoc_collection_update_one(u->posts, u->post, u->inc, opts, &reply, error);
  if (ok) {
    bson_iter_t it;
    ok = bson_iter_init_find(&it, &reply, "modifiedCount") && bson_iter_as_int64(&it) == 1;
    if (!ok) bson_set_error(error, MONGOC_ERROR_COMMAND, 47, "the post was not updated");
    bson_destroy(&reply);
  }
  return ok;
}

bool TransactionBody(mongoc_client_session_t* session, void* ctx, bson_t** reply, bson_error_t* error) {
  (void)reply;
  bson_t opts = BSON_INITIALIZER;
  bool ok = mongoc_client_session_append(session, &opts, error) && WriteBoth(static_cast<Unit*>(ctx), &opts, error);
  bson_destroy(&opts);
  return ok;
}

struct CellResult {
  LatencySummary latency;
  int64_t failures = 0;
};

// Runs `threads` workers for `seconds`, each doing units of `mode`.
CellResult RunCell(const Options& options, bool transaction, int threads) {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> failures{0};
  std::vector<std::vector<uint32_t>> latencies(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      auto client = ConnectMongo(options.uri);
      if (!client.ok()) {
        ++failures;
        return;
      }
      mongoc_collection_t* comments = mongoc_client_get_collection(client.value(), kDb, "comments");
      mongoc_collection_t* posts = mongoc_client_get_collection(client.value(), kDb, "posts");
      mongoc_client_session_t* session = mongoc_client_start_session(client.value(), nullptr, nullptr);
      bson_t* post = BCON_NEW("_id", BCON_INT32(t));
      bson_t* inc = BCON_NEW("$inc", "{", "comments", BCON_INT32(1), "}");
      bson_oid_t oid;
      while (!stop.load()) {
        bson_oid_init(&oid, nullptr);
        bson_t* comment = BCON_NEW("_id", BCON_OID(&oid), "postId", BCON_INT32(t), "text",
                                   BCON_UTF8("A comment of a sentence or two."));
        Unit unit{comments, posts, comment, post, inc};
        bson_error_t error;
        const auto start = Clock::now();
        bool ok = transaction ? mongoc_client_session_with_transaction(session, TransactionBody, nullptr, &unit,
                                                                        nullptr, &error)
                              : WriteBoth(&unit, nullptr, &error);
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
        bson_destroy(comment);
        if (!ok) {
          if (failures++ == 0) std::fprintf(stderr, "unit failed: %s\n", error.message);
          continue;
        }
        latencies[t].push_back(static_cast<uint32_t>(std::min<int64_t>(ns, UINT32_MAX)));
      }
      bson_destroy(post);
      bson_destroy(inc);
      mongoc_client_session_destroy(session);
      mongoc_collection_destroy(comments);
      mongoc_collection_destroy(posts);
      mongoc_client_destroy(client.value());
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(options.seconds));
  stop = true;
  for (auto& w : workers) w.join();
  std::vector<uint32_t> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  CellResult r;
  r.latency = Summarize(all, options.seconds);
  r.failures = failures.load();
  return r;
}

bool Command(mongoc_client_t* client, bson_t* cmd, bson_t* reply = nullptr) {
  bson_error_t error;
  bson_t local;
  bool ok = mongoc_client_command_simple(client, kDb, cmd, nullptr, reply ? reply : &local, &error);
  if (!ok) std::fprintf(stderr, "command: %s\n", error.message);
  if (!reply) bson_destroy(&local);
  bson_destroy(cmd);
  return ok;
}

// Empties both collections and creates one post per thread.
bool Reset(mongoc_client_t* client, int threads) {
  if (!Command(client, BCON_NEW("dropDatabase", BCON_INT32(1))) ||
      !Command(client, BCON_NEW("create", BCON_UTF8("comments"))) ||
      !Command(client, BCON_NEW("create", BCON_UTF8("posts")))) {
    return false;
  }
  mongoc_collection_t* posts = mongoc_client_get_collection(client, kDb, "posts");
  bool ok = true;
  for (int t = 0; t < threads && ok; ++t) {
    bson_t* doc = BCON_NEW("_id", BCON_INT32(t), "comments", BCON_INT64(0));
    bson_error_t error;
    ok = mongoc_collection_insert_one(posts, doc, nullptr, nullptr, &error);
    if (!ok) std::fprintf(stderr, "insert post: %s\n", error.message);
    bson_destroy(doc);
  }
  mongoc_collection_destroy(posts);
  return ok;
}

// The sum of the posts' counters equals the comments stored.
bool CountersMatch(mongoc_client_t* client) {
  mongoc_collection_t* comments = mongoc_client_get_collection(client, kDb, "comments");
  mongoc_collection_t* posts = mongoc_client_get_collection(client, kDb, "posts");
  bson_error_t error;
  bson_t empty = BSON_INITIALIZER;
  const int64_t stored = mongoc_collection_count_documents(comments, &empty, nullptr, nullptr, nullptr, &error);
  int64_t counted = 0;
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(posts, &empty, nullptr, nullptr);
  const bson_t* doc;
  while (mongoc_cursor_next(cursor, &doc)) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, doc, "comments")) counted += bson_iter_as_int64(&it);
  }
  mongoc_cursor_destroy(cursor);
  mongoc_collection_destroy(comments);
  mongoc_collection_destroy(posts);
  if (stored != counted) {
    std::fprintf(stderr, "counters %lld != comments %lld\n", static_cast<long long>(counted),
                 static_cast<long long>(stored));
  }
  return stored >= 0 && stored == counted;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--uri")) options.uri = argv[i + 1];
    else if (!std::strcmp(argv[i], "--threads")) options.threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds")) options.seconds = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) options.rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--json")) options.json = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--uri URI] [--threads N] [--seconds S] [--rounds R] [--json FILE]\n",
                   argv[0]);
      return 2;
    }
  }
  auto client = ConnectMongo(options.uri);
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 1;
  }
  int status = 0;
  bson_t report = BSON_INITIALIZER, results;
  BSON_APPEND_ARRAY_BEGIN(&report, "results", &results);
  int index = 0;
  std::printf("%-14s %7s %6s %12s %10s %10s %9s\n", "mode", "threads", "round", "units/s", "p50 ms", "p99 ms",
              "failures");
  for (int threads : {1, options.threads}) {
    std::map<bool, double> total;  // mode -> units/s summed over rounds
    std::map<bool, std::vector<double>> p50s;  // mode -> p50 per round
    for (int round = 1; round <= options.rounds; ++round) {
      for (bool transaction : {true, false}) {
        if (!Reset(client.value(), threads)) return 1;
        CellResult r = RunCell(options, transaction, threads);
        const char* mode = transaction ? "transaction" : "single writes";
        std::printf("%-14s %7d %6d %12.0f %10.3f %10.3f %9lld\n", mode, threads, round, r.latency.ops_per_sec,
                    r.latency.p50_us / 1000, r.latency.p99_us / 1000, static_cast<long long>(r.failures));
        std::fflush(stdout);
        if (r.failures || !CountersMatch(client.value())) status = 1;
        total[transaction] += r.latency.ops_per_sec;
        p50s[transaction].push_back(r.latency.p50_us);
        bson_t cell;
        const std::string key = std::to_string(index++);
        BSON_APPEND_DOCUMENT_BEGIN(&results, key.c_str(), &cell);
        BSON_APPEND_UTF8(&cell, "mode", mode);
        BSON_APPEND_INT32(&cell, "threads", threads);
        BSON_APPEND_INT32(&cell, "round", round);
        BSON_APPEND_DOUBLE(&cell, "unitsPerSec", r.latency.ops_per_sec);
        BSON_APPEND_DOUBLE(&cell, "p50Us", r.latency.p50_us);
        BSON_APPEND_DOUBLE(&cell, "p99Us", r.latency.p99_us);
        bson_append_document_end(&results, &cell);
      }
    }
    if (total[false] > 0) {
      // Throughput suffers every stall of a shared machine; the median
      // latency of the rounds' medians much less.
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      std::printf("  x%d: transaction / single writes = %.2f units/s, %.2f p50 (median of rounds)\n", threads,
                  total[true] / total[false], median(p50s[true]) / median(p50s[false]));
    }
  }
  bson_append_array_end(&report, &results);
  if (!options.json.empty() && !WriteJsonReport(options.json, &report)) status = 1;
  bson_destroy(&report);
  return status;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
