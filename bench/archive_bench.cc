// tigerdoc_archive_bench: archive throughput (documents moved per second)
// of the server's `archive` command beside the reference's client-side move
// (find + insertMany + deleteMany, five-schema-patterns.txt), on the same
// server in one run. See bench/README.md.
//
// Each cell: drop the database, load --docs orders {_id, status, orderDate
// 100 days ago, customerId, total, items: 3 small sub-documents} with an
// index on orderDate, then time one complete move of all of them into
// `ordersArchive` with archivedAt / archiveReason added, and check the
// counts (every order moved, none left). Cells:
//   reference     the reference as written: one find of every match, one
//                 insertMany of them all, one deleteMany {_id: {$in: [...]}}
//   client N      the same three calls per batch of N (find limit N)
//   archive N     db.runCommand({archive, ..., batchSize: N})
// Only the archive command is crash-safe; the client-side moves leave
// duplicates behind when the client or server dies between two calls.
#include <bson/bson.h>
#include <mongoc/mongoc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kDb[] = "tigerdoc_archive_bench";
constexpr int64_t kDay = 86400 * 1000;

struct Flags {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int64_t docs = 100000;
  int rounds = 2;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "tigerdoc_archive_bench: %s\n", what.c_str());
  std::exit(1);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die("missing value for " + arg);
      return argv[++i];
    };
    if (arg == "--uri") f.uri = value();
    else if (arg == "--docs") f.docs = std::atoll(value().c_str());
    else if (arg == "--rounds") f.rounds = std::atoi(value().c_str());
    else Die("usage: tigerdoc_archive_bench [--uri URI] [--docs N] [--rounds R]");
  }
  return f;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Command(mongoc_client_t* client, bson_t* cmd, bson_t* reply) {
  bson_error_t error;
  if (!mongoc_client_command_simple(client, kDb, cmd, nullptr, reply, &error)) {
    char* json = bson_as_relaxed_extended_json(cmd, nullptr);
    std::string what = std::string("command ") + json + " failed: " + error.message;
    bson_free(json);
    Die(what);
  }
}

void Load(mongoc_client_t* client, int64_t docs) {
  bson_t drop = BSON_INITIALIZER, reply;
  BSON_APPEND_INT32(&drop, "dropDatabase", 1);
  Command(client, &drop, &reply);
  bson_destroy(&drop);
  bson_destroy(&reply);
  mongoc_collection_t* orders = mongoc_client_get_collection(client, kDb, "orders");
  const int64_t old = NowMs() - 100 * kDay;
  for (int64_t start = 0; start < docs; start += 1000) {
    std::vector<bson_t*> batch;
    for (int64_t i = start; i < std::min(docs, start + 1000); ++i) {
      bson_t* d = bson_new();
      BSON_APPEND_INT64(d, "_id", i);
      BSON_APPEND_UTF8(d, "status", i % 2 ? "delivered" : "cancelled");
      BSON_APPEND_DATE_TIME(d, "orderDate", old + i);
      BSON_APPEND_UTF8(d, "customerId", ("customer" + std::to_string(i % 997)).c_str());
      BSON_APPEND_DOUBLE(d, "total", static_cast<double>(i % 1000) + 0.99);
      bson_t items, item;
      BSON_APPEND_ARRAY_BEGIN(d, "items", &items);
      for (int k = 0; k < 3; ++k) {
        BSON_APPEND_DOCUMENT_BEGIN(&items, std::to_string(k).c_str(), &item);
        BSON_APPEND_UTF8(&item, "sku", ("SKU-" + std::to_string((i * 7 + k) % 5000)).c_str());
        BSON_APPEND_INT32(&item, "qty", k + 1);
        bson_append_document_end(&items, &item);
      }
      bson_append_array_end(d, &items);
      batch.push_back(d);
    }
    bson_error_t error;
    if (!mongoc_collection_insert_many(orders, const_cast<const bson_t**>(batch.data()), batch.size(),
                                       nullptr, nullptr, &error)) {
      Die(std::string("load: ") + error.message);
    }
    for (bson_t* d : batch) bson_destroy(d);
  }
  mongoc_collection_destroy(orders);
  bson_t* index = BCON_NEW("createIndexes", "orders", "indexes", "[", "{", "key", "{", "orderDate",
                           BCON_INT32(1), "}", "name", "orderDate_1", "}", "]");
  Command(client, index, &reply);
  bson_destroy(index);
  bson_destroy(&reply);
}

int64_t Count(mongoc_client_t* client, const char* coll) {
  mongoc_collection_t* c = mongoc_client_get_collection(client, kDb, coll);
  bson_t filter = BSON_INITIALIZER;
  bson_error_t error;
  int64_t n = mongoc_collection_count_documents(c, &filter, nullptr, nullptr, nullptr, &error);
  mongoc_collection_destroy(c);
  if (n < 0) Die(std::string("count: ") + error.message);
  return n;
}

// {orderDate: {$lt: ninetyDaysAgo}, status: {$in: [...]}}, as the reference.
bson_t* ReferenceFilter() {
  return BCON_NEW("orderDate", "{", "$lt", BCON_DATE_TIME(NowMs() - 90 * kDay), "}", "status", "{",
                  "$in", "[", "delivered", "cancelled", "refunded", "]", "}");
}

// One client-side step: find (up to `limit`, 0 = all), insertMany with the
// metadata, deleteMany by _id. Returns how many it moved.
int64_t ClientMove(mongoc_client_t* client, int64_t limit) {
  mongoc_collection_t* orders = mongoc_client_get_collection(client, kDb, "orders");
  mongoc_collection_t* archive = mongoc_client_get_collection(client, kDb, "ordersArchive");
  bson_t* filter = ReferenceFilter();
  bson_t* opts = limit > 0 ? BCON_NEW("limit", BCON_INT64(limit), "batchSize", BCON_INT64(limit))
                           : BCON_NEW("batchSize", BCON_INT64(100000));
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(orders, filter, opts, nullptr);
  std::vector<bson_t*> archived;
  bson_t ids = BSON_INITIALIZER;
  const bson_t* doc;
  const int64_t now = NowMs();
  while (mongoc_cursor_next(cursor, &doc)) {
    bson_t* copy = bson_copy(doc);
    BSON_APPEND_DATE_TIME(copy, "archivedAt", now);
    BSON_APPEND_UTF8(copy, "archiveReason", "age_based");
    archived.push_back(copy);
    bson_iter_t id;
    bson_iter_init_find(&id, doc, "_id");
    bson_append_iter(&ids, std::to_string(archived.size() - 1).c_str(), -1, &id);
  }
  bson_error_t error;
  if (mongoc_cursor_error(cursor, &error)) Die(std::string("find: ") + error.message);
  mongoc_cursor_destroy(cursor);
  const int64_t moved = static_cast<int64_t>(archived.size());
  if (moved > 0) {
    if (!mongoc_collection_insert_many(archive, const_cast<const bson_t**>(archived.data()), archived.size(),
                                       nullptr, nullptr, &error)) {
      Die(std::string("insertMany: ") + error.message);
    }
    bson_t del = BSON_INITIALIZER, in;
    BSON_APPEND_DOCUMENT_BEGIN(&del, "_id", &in);
    BSON_APPEND_ARRAY(&in, "$in", &ids);
    bson_append_document_end(&del, &in);
    if (!mongoc_collection_delete_many(orders, &del, nullptr, nullptr, &error)) {
      Die(std::string("deleteMany: ") + error.message);
    }
    bson_destroy(&del);
  }
  for (bson_t* d : archived) bson_destroy(d);
  bson_destroy(&ids);
  bson_destroy(filter);
  bson_destroy(opts);
  mongoc_collection_destroy(archive);
  mongoc_collection_destroy(orders);
  return moved;
}

void ServerMove(mongoc_client_t* client, int64_t batch_size) {
  bson_t* cmd = BCON_NEW("archive", "orders", "to", "ordersArchive", "filter", "{", "status", "{", "$in", "[",
                         "delivered", "cancelled", "refunded", "]", "}", "}", "olderThan", "{", "field",
                         "orderDate", "seconds", BCON_INT64(90 * 86400), "}", "set", "{", "archivedAt",
                         "$$NOW", "archiveReason", "age_based", "}", "batchSize", BCON_INT64(batch_size));
  bson_t reply;
  Command(client, cmd, &reply);
  bson_destroy(cmd);
  bson_destroy(&reply);
}

struct Cell {
  std::string name;
  int64_t batch = 0;  // 0: the reference's single batch
  bool server = false;
};

}  // namespace
}  // namespace tigerdoc::bench

int main(int argc, char** argv) {
  using namespace tigerdoc::bench;
  Flags flags = ParseFlags(argc, argv);
  auto connected = ConnectMongo(flags.uri);
  if (!connected.ok()) Die(connected.status().ToString());
  mongoc_client_t* client = connected.value();
  const std::vector<Cell> cells = {
      {"reference (find all + insertMany + deleteMany)", 0, false},
      {"client batches of 1000", 1000, false},
      {"archive batchSize 1000", 1000, true},
      {"archive batchSize 25000", 25000, true},
  };
  std::printf("%lld orders, %d rounds, cells alternate\n", static_cast<long long>(flags.docs), flags.rounds);
  std::printf("%-48s %12s %12s\n", "method", "seconds", "docs/s");
  for (int round = 0; round < flags.rounds; ++round) {
    for (const Cell& cell : cells) {
      Load(client, flags.docs);
      const auto start = Clock::now();
      if (cell.server) {
        ServerMove(client, cell.batch);
      } else if (cell.batch == 0) {
        ClientMove(client, 0);
      } else {
        while (ClientMove(client, cell.batch) > 0) {
        }
      }
      const double secs = std::chrono::duration<double>(Clock::now() - start).count();
      const int64_t left = Count(client, "orders");
      const int64_t archived = Count(client, "ordersArchive");
      if (left != 0 || archived != flags.docs) {
        Die(cell.name + ": " + std::to_string(left) + " left, " + std::to_string(archived) + " archived");
      }
      std::printf("%-48s %12.2f %12.0f\n", cell.name.c_str(), secs, static_cast<double>(flags.docs) / secs);
      std::fflush(stdout);
    }
  }
  mongoc_client_destroy(client);
  return 0;
}
