// tigerdoc_outlier_bench: $push onto an outlier (a flagged document whose
// array is routed to the overflow collection) against $push onto a normal
// document of the same collection and onto a document of a plain
// collection, in one run, alternating the cells so that machine noise hits
// all of them (bench/README.md).
//
//   outlier  $push onto one of --outliers flagged books: threshold items
//            embedded, --overflow more in chunks; the new item goes to the
//            last chunk (one parent write + one chunk write)
//   normal   $push onto one of 2,000 unflagged books of the same collection
//            (10 items at the start, far below the threshold)
//   plain    the same $push in a collection without the option
//   plain, threshold items
//            $push onto --outliers documents of the plain collection holding
//            threshold items (the size of an outlier's embedded part): what
//            the document's size costs without any routing
//
// Each cell: one connection, `update_one` with the default write concern,
// for --seconds; ops/s and p50/p99 latency.

#include <mongoc/mongoc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

struct Options {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int threshold = 1000;
  int overflow = 2000;
  int outliers = 4;
  double seconds = 3;
  int rounds = 2;
};

bool Check(bool ok, const bson_error_t& error, const char* what) {
  if (!ok) std::fprintf(stderr, "%s: %s\n", what, error.message);
  return ok;
}

bool RunCommand(mongoc_client_t* client, const char* json) {
  bson_error_t error;
  bson_t* cmd = bson_new_from_json(reinterpret_cast<const uint8_t*>(json), -1, &error);
  if (!Check(cmd != nullptr, error, "json")) return false;
  bson_t reply;
  const bool ok = mongoc_client_command_simple(client, "tigerdoc_outlier_bench", cmd, nullptr,
                                               &reply, &error);
  bson_destroy(cmd);
  bson_destroy(&reply);
  return Check(ok, error, json);
}

void AppendItems(bson_t* doc, const char* key, int from, int count) {
  bson_t array;
  bson_append_array_begin(doc, key, -1, &array);
  for (int i = 0; i < count; ++i) {
    char index[16];
    std::snprintf(index, sizeof(index), "%d", i);
    bson_t item;
    bson_append_document_begin(&array, index, -1, &item);
    BSON_APPEND_INT32(&item, "n", from + i);
    BSON_APPEND_UTF8(&item, "name", "customer-name-0000");
    bson_append_document_end(&array, &item);
  }
  bson_append_array_end(doc, &array);
}

bool Insert(mongoc_collection_t* coll, int id, int items) {
  bson_t doc = BSON_INITIALIZER;
  BSON_APPEND_INT32(&doc, "_id", id);
  BSON_APPEND_UTF8(&doc, "title", "a book");
  AppendItems(&doc, "customers", 0, items);
  bson_error_t error;
  const bool ok = mongoc_collection_insert_one(coll, &doc, nullptr, nullptr, &error);
  bson_destroy(&doc);
  return Check(ok, error, "insert");
}

struct Cell {
  int64_t ops = 0;
  std::vector<double> micros;
};

// $push {customers: {n, name}} onto _id first + (i % count) for `seconds`.
bool Push(mongoc_collection_t* coll, int first, int count, double seconds, Cell* cell) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (int64_t i = 0; std::chrono::steady_clock::now() < end; ++i) {
    bson_t filter = BSON_INITIALIZER, update = BSON_INITIALIZER, push, item;
    BSON_APPEND_INT32(&filter, "_id", first + static_cast<int>(i % count));
    bson_append_document_begin(&update, "$push", -1, &push);
    bson_append_document_begin(&push, "customers", -1, &item);
    BSON_APPEND_INT64(&item, "n", 1000000 + i);
    BSON_APPEND_UTF8(&item, "name", "customer-name-0000");
    bson_append_document_end(&push, &item);
    bson_append_document_end(&update, &push);
    bson_error_t error;
    bson_t reply;
    const auto start = std::chrono::steady_clock::now();
    const bool ok = mongoc_collection_update_one(coll, &filter, &update, nullptr, &reply, &error);
    cell->micros.push_back(std::chrono::duration<double, std::micro>(
                               std::chrono::steady_clock::now() - start).count());
    bson_destroy(&filter);
    bson_destroy(&update);
    bson_destroy(&reply);
    if (!Check(ok, error, "$push")) return false;
    ++cell->ops;
  }
  return true;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

int Main(const Options& o) {
  StatusWith<mongoc_client_t*> connected = ConnectMongo(o.uri);
  if (!connected.ok()) {
    std::fprintf(stderr, "%s\n", connected.status().ToString().c_str());
    return 1;
  }
  mongoc_client_t* client = connected.value();
  RunCommand(client, R"({"dropDatabase": 1})");
  const std::string create =
      R"({"create": "books", "outlier": {"path": "customers", "threshold": )" +
      std::to_string(o.threshold) +
      R"(, "overflow": "books_overflow", "chunk": 1000, "flag": "hasExtras", "countField": "customersCount"}})";
  if (!RunCommand(client, create.c_str()) || !RunCommand(client, R"({"create": "plain"})")) return 1;
  mongoc_collection_t* books = mongoc_client_get_collection(client, "tigerdoc_outlier_bench", "books");
  mongoc_collection_t* plain = mongoc_client_get_collection(client, "tigerdoc_outlier_bench", "plain");
  constexpr int kNormal = 2000;
  for (int i = 0; i < o.outliers; ++i) {
    if (!Insert(books, i, o.threshold + o.overflow) || !Insert(plain, i, o.threshold)) return 1;
  }
  for (int i = 0; i < kNormal; ++i) {
    if (!Insert(books, 1000 + i, 10) || !Insert(plain, 1000 + i, 10)) return 1;
  }
  std::printf("threshold %d, %d outliers with %d items in overflow, chunk 1000, %.1f s per cell\n",
              o.threshold, o.outliers, o.overflow, o.seconds);
  Cell outlier, normal, baseline, big;
  for (int round = 0; round < o.rounds; ++round) {
    if (!Push(books, 0, o.outliers, o.seconds, &outlier) ||
        !Push(books, 1000, kNormal, o.seconds, &normal) ||
        !Push(plain, 1000, kNormal, o.seconds, &baseline) ||
        !Push(plain, 0, o.outliers, o.seconds, &big)) {
      return 1;
    }
  }
  const double total = o.seconds * o.rounds;
  std::printf("%-34s %10s %10s %10s\n", "$push onto", "ops/s", "p50 us", "p99 us");
  auto row = [&](const char* name, const Cell& c) {
    std::printf("%-34s %10.0f %10.0f %10.0f\n", name, static_cast<double>(c.ops) / total,
                Percentile(c.micros, 0.5), Percentile(c.micros, 0.99));
  };
  row("outlier (flagged, routed)", outlier);
  row("normal document, same collection", normal);
  row("plain collection", baseline);
  row("plain collection, threshold items", big);
  mongoc_collection_destroy(books);
  mongoc_collection_destroy(plain);
  mongoc_client_destroy(client);
  return 0;
}

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) {
  tigerdoc::bench::Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--uri") o.uri = value;
    else if (flag == "--threshold") o.threshold = std::atoi(value);
    else if (flag == "--overflow") o.overflow = std::atoi(value);
    else if (flag == "--outliers") o.outliers = std::atoi(value);
    else if (flag == "--seconds") o.seconds = std::atof(value);
    else if (flag == "--rounds") o.rounds = std::atoi(value);
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  return tigerdoc::bench::Main(o);
}
