// The archive command end to end (engine/archive/, patterns/archive/):
// batch sizes below, at and above batchSize and its limits; kill -9 of the
// server in the middle of a 100,000-document move, several times, with every
// document in exactly one collection after each restart; writers changing
// the source while it moves; killOp and maxTimeMS between batches; the
// scheduled form of the collection option.

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;

class ArchiveTest : public E2eTest {
 protected:
  // Inserts `count` orders {_id: first + i, status, orderDate, total}:
  // "delivered" and 100 days old unless `recent`.
  void InsertOrders(const std::string& coll, int64_t first, int64_t count, bool recent = false,
                    const std::string& status = "delivered") {
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    const int64_t date = recent ? now_ms : now_ms - int64_t{100} * 86400 * 1000;
    for (int64_t start = 0; start < count; start += 1000) {
      std::vector<BsonDoc> docs;
      for (int64_t i = start; i < std::min(count, start + 1000); ++i) {
        BsonDoc d;
        BSON_APPEND_INT64(d.mutable_get(), "_id", first + i);
        BSON_APPEND_UTF8(d.mutable_get(), "status", status.c_str());
        BSON_APPEND_DATE_TIME(d.mutable_get(), "orderDate", date);
        BSON_APPEND_INT64(d.mutable_get(), "total", first + i);
        docs.push_back(std::move(d));
      }
      BsonDoc r = client_->InsertMany(db_, coll, docs);
      ASSERT_EQ(Integer(r, "insertedCount"), static_cast<int64_t>(docs.size())) << Json(r);
    }
  }

  std::set<int64_t> AllIds(const std::string& coll) {
    std::set<int64_t> out;
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "projection": {"_id": 1}, "batchSize": 200000})");
    EXPECT_OK_REPLY(r);
    for (auto v : Ids(r)) out.insert(v);
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      r = GetMore(id, coll);
      if (!testutil::IsOk(r)) break;
      for (auto v : Ids(r, "cursor.nextBatch")) out.insert(v);
      id = Integer(r, "cursor.id").value_or(0);
    }
    return out;
  }

  int64_t Count(const std::string& coll, const std::string& query = "{}") {
    return Integer(Run(R"({"count": ")" + coll + R"(", "query": )" + query + "}"), "n").value_or(-1);
  }

  // Every _id in [0, total) is in exactly one of source / archive.
  void ExpectEachExactlyOnce(int64_t total, const std::string& source = "orders",
                             const std::string& archive = "ordersArchive") {
    std::set<int64_t> active = AllIds(source);
    std::set<int64_t> archived = AllIds(archive);
    size_t both = 0;
    for (int64_t id : active) both += archived.count(id);
    EXPECT_EQ(both, 0u) << "documents in both collections";
    EXPECT_EQ(static_cast<int64_t>(active.size() + archived.size()), total)
        << active.size() << " active + " << archived.size() << " archived";
    for (int64_t id = 0; id < total; ++id) {
      if (!active.count(id) && !archived.count(id)) {
        ADD_FAILURE() << "_id " << id << " lost";
        break;
      }
    }
    // A count agrees with the documents (no duplicate records under one _id).
    EXPECT_EQ(Count(source), static_cast<int64_t>(active.size()));
    EXPECT_EQ(Count(archive), static_cast<int64_t>(archived.size()));
  }

  // The `archive` progress of the running archive of `coll`, or -1.
  int64_t MovedSoFar(MongoClient& c, const std::string& coll) {
    BsonDoc r = c.RunCommand("admin", R"({"currentOp": 1, "command.archive": ")" + coll + R"("})");
    return Integer(r, "inprog.0.archive.moved").value_or(-1);
  }

  static std::string ArchiveCommand(const std::string& extra = "") {
    return R"({"archive": "orders", "to": "ordersArchive", "filter": {"status": {"$in": ["delivered", "cancelled"]}},)"
           R"( "olderThan": {"field": "orderDate", "seconds": 7776000},)"
           R"( "set": {"archivedAt": "$$NOW", "archiveReason": "age_based"})" +
           extra + "}";
  }
};

struct BatchCase {
  int64_t docs;
  int64_t batch_size;
  int64_t batches;
};

class ArchiveBatchTest : public ArchiveTest, public ::testing::WithParamInterface<BatchCase> {};

TEST_P(ArchiveBatchTest, MovesEveryMatchingDocumentInBatchSizeBatches) {
  const BatchCase c = GetParam();
  InsertOrders("orders", 0, c.docs);
  InsertOrders("orders", c.docs, 7, /*recent=*/true);                    // too young
  InsertOrders("orders", c.docs + 7, 5, /*recent=*/false, "processing");  // filtered out
  BsonDoc r = Run(ArchiveCommand(R"(, "batchSize": )" + std::to_string(c.batch_size)));
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "moved"), c.docs) << Json(r);
  EXPECT_EQ(Integer(r, "batches"), c.batches) << Json(r);
  EXPECT_EQ(Count("orders"), 12);
  EXPECT_EQ(Count("ordersArchive"), c.docs);
  EXPECT_EQ(Count("ordersArchive", R"({"archiveReason": "age_based", "archivedAt": {"$exists": true}})"), c.docs);
  // Nothing is left to move: a second run moves nothing.
  r = Run(ArchiveCommand(R"(, "batchSize": )" + std::to_string(c.batch_size)));
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "moved"), 0);
  EXPECT_EQ(Integer(r, "batches"), 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ArchiveBatchTest,
                         ::testing::Values(BatchCase{0, 1000, 0}, BatchCase{1, 1000, 1},
                                           BatchCase{999, 1000, 1}, BatchCase{1000, 1000, 1},
                                           BatchCase{1001, 1000, 2}, BatchCase{2500, 1000, 3},
                                           BatchCase{7, 1, 7}, BatchCase{25000, 25000, 1},
                                           BatchCase{25001, 25000, 2}));

TEST_F(ArchiveTest, RefusesBatchSizesOutsideOneTo25000) {
  InsertOrders("orders", 0, 3);
  EXPECT_ERROR_REPLY(Run(ArchiveCommand(R"(, "batchSize": 25001)")), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(ArchiveCommand(R"(, "batchSize": 0)")), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(ArchiveCommand(R"(, "batchSize": -5)")), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(ArchiveCommand(R"(, "batchSize": 1.5)")), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(ArchiveCommand(R"(, "batchSize": "10")")), 14, "TypeMismatch");
  EXPECT_EQ(Count("orders"), 3) << "a refused archive moves nothing";
  BsonDoc r = Run(ArchiveCommand(R"(, "batchSize": 25000.0)"));
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "moved"), 3);
}

TEST_F(ArchiveTest, RefusesItselfViewsAndSystemCollections) {
  InsertOrders("orders", 0, 3);
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "orders", "pipeline": []})"));
  EXPECT_ERROR_REPLY(Run(R"({"archive": "orders", "to": "orders"})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "orders", "to": "v"})"), 166, "CommandNotSupportedOnView");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "v", "to": "x"})"), 166, "CommandNotSupportedOnView");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "orders", "to": "system.views"})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "system.views", "to": "x"})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "orders", "to": {"db": "admin", "coll": "x"}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "orders"})"), 40414, "Location40414");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "orders", "to": "x", "bogus": 1})"), 40415, "Location40415");
  EXPECT_ERROR_REPLY(Run(R"({"archive": "missing", "to": "x"})"), 26, "NamespaceNotFound");
  EXPECT_EQ(Count("orders"), 3);
}

// kill -9 in the middle of a move, five times at different points, then a
// clean finish: after every restart each of the 100,000 orders is in exactly
// one collection.
TEST_F(ArchiveTest, KillNineDuringArchiveKeepsEveryDocumentExactlyOnce) {
  constexpr int64_t kOrders = 100000;
  InsertOrders("orders", 0, kOrders);
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "orders", "indexes": [{"key": {"orderDate": 1}, "name": "orderDate_1"}]})"));
  for (int round = 0; round < 5; ++round) {
    const int64_t before = Count("ordersArchive");
    const std::string uri = server_->uri();
    const std::string db = db_;
    std::atomic<bool> finished{false};
    BsonDoc reply;
    std::thread mover([&] {
      MongoClient c(uri);
      reply = c.RunCommand(db, ArchiveCommand(R"(, "batchSize": 1000)"));
      finished.store(true);
    });
    // Pull the plug once this round has moved a few batches (a different
    // amount each round), while batches are still committing.
    MongoClient watcher(uri);
    const int64_t threshold = 2000 + round * 1500;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!finished.load() && std::chrono::steady_clock::now() < deadline &&
           MovedSoFar(watcher, "orders") < threshold) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_FALSE(finished.load()) << "the archive finished before the kill: " << Json(reply);
    server_->Kill9();
    mover.join();
    EXPECT_FALSE(testutil::IsOk(reply)) << "a killed server cannot have answered: " << Json(reply);
    RestartAndReconnect();
    ExpectEachExactlyOnce(kOrders);
    EXPECT_GT(Count("ordersArchive"), before) << "round " << round << " moved nothing durable";
    if (HasFailure()) return;
  }
  BsonDoc r = Run(ArchiveCommand(R"(, "batchSize": 1000)"));
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Count("orders"), 0);
  EXPECT_EQ(Count("ordersArchive"), kOrders);
  EXPECT_EQ(Count("ordersArchive", R"({"archiveReason": "age_based"})"), kOrders);
  ExpectEachExactlyOnce(kOrders);
}

// Writers insert, update and delete source documents while the move runs:
// a document updated out of the filter stays, a deleted one is nowhere, an
// inserted one that matches is moved or left for the next run -- and none
// is in both collections or lost.
TEST_F(ArchiveTest, ConcurrentWritersToTheSource) {
  constexpr int64_t kOrders = 20000;
  InsertOrders("orders", 0, kOrders);
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::atomic<bool> stop{false};
  std::vector<int64_t> updated;  // acknowledged with nModified 1: now "processing"
  std::vector<int64_t> deleted;  // acknowledged with n 1
  int64_t inserted_until = kOrders;
  std::string writer_error;
  std::atomic<int64_t> changed{0};  // updated.size() + deleted.size(), readable while the writer runs
  std::thread writer([&] {
    MongoClient c(uri);
    for (int64_t i = 0; !stop.load(); ++i) {
      const int64_t target = (i * 7919) % kOrders;
      BsonDoc r;
      if (i % 3 == 0) {
        r = c.RunCommand(db, R"({"update": "orders", "updates": [{"q": {"_id": )" + std::to_string(target) +
                                 R"(}, "u": {"$set": {"status": "processing"}}}]})");
        if (Integer(r, "nModified") == 1) {
          updated.push_back(target);
          changed.fetch_add(1);
        }
      } else if (i % 3 == 1) {
        r = c.RunCommand(db, R"({"delete": "orders", "deletes": [{"q": {"_id": )" + std::to_string(target) +
                                 R"(, "status": "delivered"}, "limit": 1}]})");
        if (Integer(r, "n") == 1) {
          deleted.push_back(target);
          changed.fetch_add(1);
        }
      } else {
        r = c.RunCommand(db, R"({"insert": "orders", "documents": [{"_id": )" + std::to_string(inserted_until) +
                                 R"(, "status": "delivered", "orderDate": {"$date": "2020-01-01T00:00:00Z"}}]})");
        if (Integer(r, "n") == 1) ++inserted_until;
      }
      if (!testutil::IsOk(r)) {
        writer_error = Json(r);
        stop.store(true);  // ends the wait for its first write too
        return;
      }
    }
  });
  // The move starts once the writer is writing (on a loaded machine its
  // thread may take far longer than any fixed pause to connect).
  testutil::WaitUntil([&] { return changed.load() > 0 || stop.load(); });
  BsonDoc r = Run(ArchiveCommand(R"(, "batchSize": 500)"));
  stop.store(true);
  writer.join();
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(writer_error, "");
  EXPECT_GT(updated.size() + deleted.size(), 0u) << "the writer did not overlap the move";
  // Finish what arrived after the move's last scan.
  ASSERT_OK_REPLY(Run(ArchiveCommand(R"(, "batchSize": 500)")));

  std::set<int64_t> active = AllIds("orders");
  std::set<int64_t> archived = AllIds("ordersArchive");
  for (int64_t id : active) EXPECT_EQ(archived.count(id), 0u) << "_id " << id << " in both";
  for (int64_t id : updated) {
    EXPECT_EQ(active.count(id), 1u) << "_id " << id << " was updated out of the filter yet moved";
  }
  for (int64_t id : deleted) {
    EXPECT_EQ(active.count(id) + archived.count(id), 0u) << "_id " << id << " deleted yet present";
  }
  std::set<int64_t> gone(deleted.begin(), deleted.end());
  for (int64_t id = 0; id < inserted_until; ++id) {
    if (!gone.count(id) && !active.count(id) && !archived.count(id)) {
      ADD_FAILURE() << "_id " << id << " lost";
      break;
    }
  }
  EXPECT_EQ(Count("ordersArchive", R"({"status": "processing"})"), 0);
  EXPECT_EQ(Count("orders", R"({"status": "delivered"})"), 0) << "every delivered order was moved";
}

// killOp stops the move between batches with 11601; the batches before
// stay moved and the reply says how many.
TEST_F(ArchiveTest, KillOpStopsTheMoveBetweenBatches) {
  constexpr int64_t kOrders = 30000;
  InsertOrders("orders", 0, kOrders);
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::atomic<bool> finished{false};
  BsonDoc reply;
  std::thread mover([&] {
    MongoClient c(uri);
    reply = c.RunCommand(db, ArchiveCommand(R"(, "batchSize": 50)"));
    finished.store(true);
  });
  MongoClient watcher(uri);
  int64_t opid = -1;
  BsonDoc op;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!finished.load() && std::chrono::steady_clock::now() < deadline) {
    op = watcher.RunCommand("admin", R"({"currentOp": 1, "command.archive": "orders"})");
    if (Integer(op, "inprog.0.archive.moved").value_or(0) >= 500) {
      opid = Integer(op, "inprog.0.opid").value_or(-1);
      break;
    }
  }
  ASSERT_GT(opid, 0) << Json(op);
  // currentOp shows the move: namespace, target, moved so far, batches.
  EXPECT_EQ(testutil::String(op, "inprog.0.ns"), db_ + ".orders") << Json(op);
  EXPECT_EQ(testutil::String(op, "inprog.0.archive.target"), db_ + ".ordersArchive") << Json(op);
  EXPECT_GE(Integer(op, "inprog.0.archive.batches").value_or(0), 10) << Json(op);
  EXPECT_EQ(testutil::String(op, "inprog.0.op"), "command") << Json(op);
  BsonDoc killed = watcher.RunCommand("admin", R"({"killOp": 1, "op": )" + std::to_string(opid) + "}");
  EXPECT_OK_REPLY(killed);
  mover.join();
  EXPECT_ERROR_REPLY(reply, 11601, "Interrupted");
  const int64_t moved = Integer(reply, "moved").value_or(-1);
  EXPECT_GE(moved, 500) << Json(reply);
  EXPECT_LT(moved, kOrders) << Json(reply);
  EXPECT_EQ(Integer(reply, "batches").value_or(-1) * 50, moved) << Json(reply);
  EXPECT_EQ(Count("ordersArchive"), moved);
  ExpectEachExactlyOnce(kOrders);
  // The operation is gone from currentOp.
  op = watcher.RunCommand("admin", R"({"currentOp": 1, "command.archive": "orders"})");
  EXPECT_EQ(DocArray(op, "inprog").size(), 0u) << Json(op);
}

TEST_F(ArchiveTest, MaxTimeMSStopsTheMoveBetweenBatches) {
  constexpr int64_t kOrders = 20000;
  InsertOrders("orders", 0, kOrders);
  // 20,000 transactions of one document cannot finish in 100 ms.
  BsonDoc r = Run(ArchiveCommand(R"(, "batchSize": 1, "maxTimeMS": 100)"));
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  const int64_t moved = Integer(r, "moved").value_or(-1);
  EXPECT_GT(moved, 0) << Json(r);
  EXPECT_LT(moved, kOrders) << Json(r);
  EXPECT_EQ(Integer(r, "batches"), moved) << "whole batches only: " << Json(r);
  EXPECT_EQ(Count("ordersArchive"), moved);
  ExpectEachExactlyOnce(kOrders);
  EXPECT_ERROR_REPLY(Run(ArchiveCommand(R"(, "maxTimeMS": -1)")), 2, "BadValue");
}

// Any command is an operation: a long aggregation shows in currentOp with
// its opid, ns, op and command, and killOp stops it at its next interrupt
// check with 11601.
TEST_F(ArchiveTest, KillOpStopsAnOrdinaryAggregation) {
  InsertNumbers("c", 4000, 4000);
  const std::string uri = server_->uri();
  const std::string db = db_;
  std::atomic<bool> finished{false};
  BsonDoc reply;
  std::thread reader([&] {
    MongoClient c(uri);
    // Each $lookup scans the whole collection (no index on b): 16M reads.
    reply = c.RunCommand(db, R"({"aggregate": "c", "pipeline": [{"$lookup": {"from": "c", "localField": "a",)"
                             R"( "foreignField": "b", "as": "x"}}, {"$count": "n"}], "cursor": {}})");
    finished.store(true);
  });
  MongoClient watcher(uri);
  BsonDoc op;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!finished.load() && std::chrono::steady_clock::now() < deadline) {
    op = watcher.RunCommand("admin", R"({"currentOp": 1, "command.aggregate": "c"})");
    if (DocArray(op, "inprog").size() == 1) break;
  }
  ASSERT_EQ(DocArray(op, "inprog").size(), 1u) << Json(op) << Json(reply);
  EXPECT_EQ(testutil::String(op, "inprog.0.ns"), db_ + ".c");
  EXPECT_EQ(testutil::String(op, "inprog.0.op"), "command");
  EXPECT_EQ(testutil::String(op, "inprog.0.type"), "op");
  EXPECT_TRUE(testutil::Has(op, "inprog.0.client")) << Json(op);
  EXPECT_TRUE(testutil::Has(op, "inprog.0.secs_running")) << Json(op);
  const int64_t opid = Integer(op, "inprog.0.opid").value_or(-1);
  ASSERT_OK_REPLY(watcher.RunCommand("admin", R"({"killOp": 1, "op": )" + std::to_string(opid) + "}"));
  reader.join();
  EXPECT_ERROR_REPLY(reply, 11601, "Interrupted");
  // The connection lives on and the next command runs normally.
  EXPECT_EQ(Count("c"), 4000);
  // currentOp must run against admin, as in MongoDB.
  EXPECT_ERROR_REPLY(Run(R"({"currentOp": 1})"), 13, "Unauthorized");
}

// The collection option runs the same move every `every` seconds.
TEST_F(ArchiveTest, ScheduledOptionMovesInTheBackground) {
  ASSERT_OK_REPLY(Run(R"({"create": "orders", "archive": {"to": "ordersArchive", "filter": {"status": "delivered"},)"
                      R"( "olderThan": {"field": "orderDate", "seconds": 3600}, "set": {"archivedAt": "$$NOW"},)"
                      R"( "every": 1, "unionView": "ordersAll"}})"));
  BsonDoc info = Run(R"({"listCollections": 1, "filter": {"name": "orders"}})");
  EXPECT_EQ(Integer(info, "cursor.firstBatch.0.options.archive.every"), 1) << Json(info);
  EXPECT_EQ(testutil::String(info, "cursor.firstBatch.0.options.archive.to"), "ordersArchive") << Json(info);
  InsertOrders("orders", 0, 3000);
  InsertOrders("orders", 3000, 10, /*recent=*/true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Count("ordersArchive") < 3000 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(Count("ordersArchive"), 3000);
  EXPECT_EQ(Count("orders"), 10);
  EXPECT_EQ(Count("ordersAll"), 3010) << "the union view reads both";
  EXPECT_EQ(Count("ordersArchive", R"({"archivedAt": {"$exists": true}})"), 3000);
  // Removed by collMod: nothing moves any more.
  ASSERT_OK_REPLY(Run(R"({"collMod": "orders", "archive": null})"));
  InsertOrders("orders", 4000, 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(Count("orders"), 15);
  // Bad options are refused with the field named.
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "orders", "archive": {"to": "a"}})"), 40414, "Location40414");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "orders", "archive": {"to": "a", "every": 0}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "orders", "archive": {"to": "orders", "every": 5}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"create": "o2", "archive": {"to": "a", "every": 5, "batchSize": 25001}})"), 2, "BadValue");
}

}  // namespace
}  // namespace tigerdoc::e2e
