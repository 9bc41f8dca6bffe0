// tigerdoc_subset_bench: review inserts with the built-in subset pattern
// against the manual two-request version the reference describes, over the
// same connections in one run (bench/README.md).
//
//   manual:   insert the review into reviews_manual, then updateOne the
//             product {$push: {topReviews: {$each: [r], $sort: {helpful: -1},
//             $slice: 3}}, $inc: {totalCount: 1, ratingSum: r,
//             "ratingDistribution.<r>": 1}}                    (2 requests)
//   built-in: insert the review into reviews, whose subset option keeps the
//             product's top 3, count, average and distribution (1 request)
//
// Each thread owns one libmongoc client; products are picked uniformly from
// --products. The two modes alternate (--rounds of --seconds each) so that
// machine noise hits both alike; every write must succeed.

#include <mongoc/mongoc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/latency_summary.h"
#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

constexpr char kDb[] = "tigerdoc_subset_bench";

struct Flags {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int threads = 8;
  int products = 100;
  double seconds = 3;
  int rounds = 2;
};

bool Command(mongoc_client_t* client, const std::string& json) {
  bson_error_t error;
  bson_t* cmd = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (cmd == nullptr) {
    std::fprintf(stderr, "bad JSON %s: %s\n", json.c_str(), error.message);
    return false;
  }
  bson_t reply;
  bool ok = mongoc_client_command_simple(client, kDb, cmd, nullptr, &reply, &error);
  if (!ok) std::fprintf(stderr, "%s: %s\n", json.c_str(), error.message);
  bson_destroy(&reply);
  bson_destroy(cmd);
  return ok;
}

bool Setup(mongoc_client_t* client, int products) {
  if (!Command(client, R"({"dropDatabase": 1})")) return false;
  if (!Command(client, R"({"create": "reviews", "subset": {"parent": "products",
        "localField": "productId", "as": "reviewSummary.topReviews", "sort": {"helpful": -1},
        "limit": 3, "project": {"customerName": 1, "rating": 1, "title": 1},
        "counters": {"reviewSummary.totalCount": {"$sum": 1},
                     "reviewSummary.averageRating": {"$avg": "$rating"},
                     "reviewSummary.ratingDistribution": {"$countByValue": "$rating"}}}})")) {
    return false;
  }
  // The manual version keeps the same index (the "all reviews" page reads
  // it), so both modes maintain one.
  if (!Command(client, R"({"createIndexes": "reviews_manual", "indexes": [
        {"key": {"productId": 1, "helpful": -1}, "name": "productId_1_helpful_-1"}]})")) {
    return false;
  }
  for (const char* coll : {"products", "products_manual"}) {
    std::string docs;
    for (int p = 0; p < products; ++p) {
      docs += (p ? "," : "") + std::string(R"({"_id": )") + std::to_string(p) +
              R"(, "name": "Mountain-100 Silver, 44", "price": 3399.99})";
    }
    if (!Command(client, std::string(R"({"insert": ")") + coll + R"(", "documents": [)" + docs + "]}")) {
      return false;
    }
  }
  return true;
}

// One review: {_id, productId, customerName, rating, title, helpful, createdAt}.
void AppendReview(bson_t* doc, int64_t id, int product, int rating, int helpful) {
  BSON_APPEND_INT64(doc, "_id", id);
  BSON_APPEND_INT32(doc, "productId", product);
  BSON_APPEND_UTF8(doc, "customerName", "Moina Potongia");
  BSON_APPEND_INT32(doc, "rating", rating);
  BSON_APPEND_UTF8(doc, "title", "Mountain-100 Silver 44 rack mounts on 72 kilometer ride");
  BSON_APPEND_INT32(doc, "helpful", helpful);
  BSON_APPEND_DATE_TIME(doc, "createdAt", 1775853240000);
}

bool ManualReview(mongoc_collection_t* reviews, mongoc_collection_t* products, int64_t id,
                  int product, int rating, int helpful) {
  bson_t doc = BSON_INITIALIZER;
  AppendReview(&doc, id, product, rating, helpful);
  bson_error_t error;
  bool ok = mongoc_collection_insert_one(reviews, &doc, nullptr, nullptr, &error);
  bson_destroy(&doc);
  if (!ok) return false;
  bson_t filter = BSON_INITIALIZER;
  BSON_APPEND_INT32(&filter, "_id", product);
  bson_t update = BSON_INITIALIZER, push, top, each, entry, sort, inc;
  BSON_APPEND_DOCUMENT_BEGIN(&update, "$push", &push);
  BSON_APPEND_DOCUMENT_BEGIN(&push, "reviewSummary.topReviews", &top);
  BSON_APPEND_ARRAY_BEGIN(&top, "$each", &each);
  BSON_APPEND_DOCUMENT_BEGIN(&each, "0", &entry);
  BSON_APPEND_INT64(&entry, "_id", id);
  BSON_APPEND_UTF8(&entry, "customerName", "Moina Potongia");
  BSON_APPEND_INT32(&entry, "rating", rating);
  BSON_APPEND_UTF8(&entry, "title", "Mountain-100 Silver 44 rack mounts on 72 kilometer ride");
  BSON_APPEND_INT32(&entry, "helpful", helpful);
  bson_append_document_end(&each, &entry);
  bson_append_array_end(&top, &each);
  BSON_APPEND_DOCUMENT_BEGIN(&top, "$sort", &sort);
  BSON_APPEND_INT32(&sort, "helpful", -1);
  bson_append_document_end(&top, &sort);
  BSON_APPEND_INT32(&top, "$slice", 3);
  bson_append_document_end(&push, &top);
  bson_append_document_end(&update, &push);
  BSON_APPEND_DOCUMENT_BEGIN(&update, "$inc", &inc);
  BSON_APPEND_INT32(&inc, "reviewSummary.totalCount", 1);
  BSON_APPEND_INT32(&inc, "reviewSummary.ratingSum", rating);
  const std::string bucket = "reviewSummary.ratingDistribution." + std::to_string(rating);
  BSON_APPEND_INT32(&inc, bucket.c_str(), 1);
  bson_append_document_end(&update, &inc);
  ok = mongoc_collection_update_one(products, &filter, &update, nullptr, nullptr, &error);
  bson_destroy(&filter);
  bson_destroy(&update);
  return ok;
}

bool BuiltInReview(mongoc_collection_t* reviews, int64_t id, int product, int rating,
                   int helpful) {
  bson_t doc = BSON_INITIALIZER;
  AppendReview(&doc, id, product, rating, helpful);
  bson_error_t error;
  bool ok = mongoc_collection_insert_one(reviews, &doc, nullptr, nullptr, &error);
  if (!ok) std::fprintf(stderr, "insert: %s\n", error.message);
  bson_destroy(&doc);
  return ok;
}

// Runs one mode on every thread for `seconds`; returns the summary.
LatencySummary RunMode(const std::vector<mongoc_client_t*>& clients, bool built_in, const Flags& flags,
                       std::atomic<int64_t>& next_id, std::atomic<int>& failures) {
  std::vector<std::vector<uint32_t>> latencies(clients.size());
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(flags.seconds);
  for (size_t t = 0; t < clients.size(); ++t) {
    threads.emplace_back([&, t] {
      mongoc_collection_t* reviews = mongoc_client_get_collection(
          clients[t], kDb, built_in ? "reviews" : "reviews_manual");
      mongoc_collection_t* products = mongoc_client_get_collection(clients[t], kDb, "products_manual");
      std::mt19937 rng(static_cast<uint32_t>(t + 1));
      while (std::chrono::steady_clock::now() < end) {
        const int64_t id = next_id.fetch_add(1);
        const int product = static_cast<int>(rng() % static_cast<uint32_t>(flags.products));
        const int rating = 1 + static_cast<int>(rng() % 5);
        const int helpful = static_cast<int>(rng() % 1000);
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = built_in ? BuiltInReview(reviews, id, product, rating, helpful)
                                 : ManualReview(reviews, products, id, product, rating, helpful);
        const auto t1 = std::chrono::steady_clock::now();
        if (!ok) {
          failures++;
          continue;
        }
        latencies[t].push_back(static_cast<uint32_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
      }
      mongoc_collection_destroy(products);
      mongoc_collection_destroy(reviews);
    });
  }
  for (auto& thread : threads) thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<uint32_t> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  return Summarize(all, seconds);
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--uri") flags.uri = next();
    else if (arg == "--threads") flags.threads = std::atoi(next().c_str());
    else if (arg == "--products") flags.products = std::atoi(next().c_str());
    else if (arg == "--seconds") flags.seconds = std::atof(next().c_str());
    else if (arg == "--rounds") flags.rounds = std::atoi(next().c_str());
    else {
      std::fprintf(stderr,
                   "usage: tigerdoc_subset_bench [--uri URI] [--threads 8] [--products 100] "
                   "[--seconds 3] [--rounds 2]\n");
      return 2;
    }
  }
  if (flags.threads < 1 || flags.products < 1 || flags.seconds <= 0 || flags.rounds < 1) {
    std::fprintf(stderr, "threads, products, rounds must be >= 1 and seconds > 0\n");
    return 2;
  }
  StatusWith<mongoc_client_t*> admin = ConnectMongo(flags.uri);
  if (!admin.ok()) {
    std::fprintf(stderr, "cannot connect: %s\n", admin.status().ToString().c_str());
    return 1;
  }
  if (!Setup(admin.value(), flags.products)) return 1;
  std::vector<mongoc_client_t*> clients;
  for (int t = 0; t < flags.threads; ++t) {
    StatusWith<mongoc_client_t*> c = ConnectMongo(flags.uri);
    if (!c.ok()) return 1;
    clients.push_back(c.value());
  }
  std::atomic<int64_t> next_id{0};
  std::atomic<int> failures{0};
  double manual_total = 0, built_in_total = 0;
  std::printf("%-10s %6s %12s %10s %10s\n", "mode", "round", "reviews/s", "p50 us", "p99 us");
  for (int round = 0; round < flags.rounds; ++round) {
    for (bool built_in : {false, true}) {
      LatencySummary s = RunMode(clients, built_in, flags, next_id, failures);
      std::printf("%-10s %6d %12.0f %10.0f %10.0f\n", built_in ? "built-in" : "manual", round + 1,
                  s.ops_per_sec, s.p50_us, s.p99_us);
      (built_in ? built_in_total : manual_total) += s.ops_per_sec;
    }
  }
  std::printf("built-in / manual: %.2fx (%d threads, %d products, %d rounds of %.1f s)\n",
              manual_total > 0 ? built_in_total / manual_total : 0.0, flags.threads,
              flags.products, flags.rounds, flags.seconds);
  for (mongoc_client_t* c : clients) mongoc_client_destroy(c);
  mongoc_client_destroy(admin.value());
  if (failures.load() != 0) {
    std::fprintf(stderr, "%d writes failed\n", failures.load());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) { return tigerdoc::bench::Main(argc, argv); }
