// Capped collections through libmongoc against the real server: create's
// options and refusals, eviction by max and by size just below / at /
// above the limit, tailable awaitData cursors fed by a writer on another
// connection (several tailing connections at once), CappedPositionLost,
// and a kill -9 restart that keeps the order and the limits.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::Json;

class CappedCollectionTest : public E2eTest {
 protected:
  // _ids of every document in natural order (forward, or backward).
  std::vector<int64_t> NaturalIds(const std::string& coll, int direction = 1) {
    BsonDoc reply = Run("{\"find\": \"" + coll + "\", \"sort\": {\"$natural\": " +
                        std::to_string(direction) + "}, \"batchSize\": 100000}");
    EXPECT_TRUE(testutil::IsOk(reply)) << Json(reply);
    return Ids(reply);
  }

  // Inserts {_id: id, s: <padding>} of exactly `bytes` BSON bytes.
  void InsertSized(const std::string& coll, int64_t id, int bytes) {
    // {_id: int32, s: ""} is 4 + (1+4+4) + (1+2+4+1) + 1 = 22 bytes.
    const std::string pad(static_cast<size_t>(bytes - 22), 'p');
    InsertJson(coll, "[{\"_id\": " + std::to_string(id) + ", \"s\": \"" + pad + "\"}]");
  }

  std::vector<int64_t> Range(int64_t from, int64_t to) {
    std::vector<int64_t> out;
    for (int64_t i = from; i < to; ++i) out.push_back(i);
    return out;
  }
};

TEST_F(CappedCollectionTest, CreateListsOptionsAndCollStatsShowsLimits) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 1000, "max": 7})"));
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "c"}})");
  ASSERT_OK_REPLY(list);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(list, "cursor.firstBatch.0.options")),
            testutil::CanonicalJson(R"({"capped": true, "size": 1000, "max": 7})"));
  BsonDoc stats = Run(R"({"collStats": "c"})");
  EXPECT_EQ(testutil::TypeAt(stats, "capped"), BSON_TYPE_BOOL);
  EXPECT_TRUE(testutil::Has(stats, "maxSize")) << Json(stats);
  EXPECT_EQ(Integer(stats, "max"), 7);
  EXPECT_EQ(Integer(stats, "maxSize"), 1000);
  ASSERT_OK_REPLY(Run(R"({"create": "plain"})"));
  BsonDoc plain = Run(R"({"collStats": "plain"})");
  EXPECT_FALSE(testutil::Has(plain, "maxSize")) << Json(plain);
}

TEST_F(CappedCollectionTest, CreateRefusesAsMongoDB7) {
  EXPECT_ERROR_REPLY(Run(R"({"create": "x", "capped": true})"), 72, "InvalidOptions");
  EXPECT_ERROR_REPLY(Run(R"({"create": "x", "max": 5})"), 72, "InvalidOptions");
  EXPECT_ERROR_REPLY(Run(R"({"create": "x", "capped": true, "size": 0})"), 51024, "Location51024");
  // The size limit: 1 PB is accepted, one byte more is not.
  ASSERT_OK_REPLY(Run(R"({"create": "pb", "capped": true, "size": {"$numberLong": "1125899906842624"}})"));
  EXPECT_ERROR_REPLY(
      Run(R"({"create": "x", "capped": true, "size": {"$numberLong": "1125899906842625"}})"), 51024,
      "Location51024");
  ASSERT_OK_REPLY(Run(R"({"create": "m", "capped": true, "size": 4096, "max": 2147483647})"));
  EXPECT_ERROR_REPLY(Run(R"({"create": "x", "capped": true, "size": 4096, "max": 2147483648})"),
                     51024, "Location51024");
  EXPECT_ERROR_REPLY(Run(R"({"create": "x", "capped": true, "size": "big"})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"create": "x", "capped": true, "size": 4096, "shardKey": {"k": 1}})"),
                     72, "InvalidOptions");
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "x"}})");
  EXPECT_EQ(testutil::ArrayLength(list, "cursor.firstBatch"), 0u) << Json(list);
}

TEST_F(CappedCollectionTest, MaxKeepsTheNewestInInsertionOrder) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 1000000, "max": 10})"));
  // Descending _ids: natural order must follow insertion, not _id.
  for (int64_t i = 0; i < 9; ++i) InsertJson("c", "[{\"_id\": " + std::to_string(100 - i) + "}]");
  EXPECT_EQ(NaturalIds("c").size(), 9u);  // max - 1
  InsertJson("c", "[{\"_id\": 91}]");
  std::vector<int64_t> at_max = NaturalIds("c");
  ASSERT_EQ(at_max.size(), 10u);  // max: nothing removed
  EXPECT_EQ(at_max.front(), 100);
  EXPECT_EQ(at_max.back(), 91);
  // max + many, in one batch.
  std::string docs = "[";
  for (int64_t i = 0; i < 500; ++i) docs += (i ? ", " : "") + std::string("{\"_id\": ") + std::to_string(1000 + i) + "}";
  InsertJson("c", docs + "]");
  EXPECT_EQ(NaturalIds("c"), Range(1490, 1500));
  std::vector<int64_t> reversed = Range(1490, 1500);
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(NaturalIds("c", -1), reversed);
  BsonDoc count = Run(R"({"count": "c"})");
  EXPECT_EQ(Integer(count, "n"), 10);
}

TEST_F(CappedCollectionTest, SizeLimitJustBelowAtAndAbove) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 1000})"));
  for (int64_t i = 0; i < 4; ++i) InsertSized("c", i, 250);  // 1000 bytes: at the limit
  EXPECT_EQ(NaturalIds("c"), Range(0, 4));
  InsertSized("c", 4, 249);  // 1249: over by 249, the oldest goes
  EXPECT_EQ(NaturalIds("c"), Range(1, 5));
  InsertSized("c", 5, 1000);  // a document the size of the collection: alone
  EXPECT_EQ(NaturalIds("c"), std::vector<int64_t>{5});
  // One byte more than the collection: refused, nothing removed.
  const std::string pad(1001 - 22, 'p');
  BsonDoc reply = Run("{\"insert\": \"c\", \"documents\": [{\"_id\": 6, \"s\": \"" + pad + "\"}]}");
  EXPECT_EQ(Integer(reply, "writeErrors.0.code"), 2) << Json(reply);
  EXPECT_EQ(NaturalIds("c"), std::vector<int64_t>{5});
}

TEST_F(CappedCollectionTest, SecondaryIndexFollowsEviction) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 100000, "max": 3})"));
  ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  InsertJson("c", R"([{"_id": 1, "a": 1}, {"_id": 2, "a": 2}, {"_id": 3, "a": 3}, {"_id": 4, "a": 4}])");
  BsonDoc reply = Run(R"({"find": "c", "filter": {"a": {"$gte": 0}}, "hint": "a_1"})");
  EXPECT_EQ(Ids(reply), (std::vector<int64_t>{2, 3, 4})) << Json(reply);
  BsonDoc validated = Run(R"({"validate": "c"})");
  ASSERT_OK_REPLY(validated);
  std::optional<bson_iter_t> valid = testutil::Lookup(validated, "valid");
  ASSERT_TRUE(valid.has_value()) << Json(validated);
  EXPECT_TRUE(bson_iter_as_bool(&*valid)) << Json(validated);
}

TEST_F(CappedCollectionTest, TailableOnAPlainCollectionIsRefused) {
  ASSERT_OK_REPLY(Run(R"({"create": "plain"})"));
  EXPECT_ERROR_REPLY(Run(R"({"find": "plain", "tailable": true})"), 2, "BadValue");
}

TEST_F(CappedCollectionTest, AwaitDataCursorsOnSeveralConnectionsSeeAWritersInserts) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 10000000})"));
  InsertJson("c", R"([{"_id": 0}])");
  constexpr int kReaders = 3;
  constexpr int64_t kDocs = 60;
  std::vector<std::vector<int64_t>> seen(kReaders);
  std::vector<std::thread> readers;
  std::atomic<int> ready{0};
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      MongoClient client(server_->uri());
      BsonDoc first = client.RunCommand(db_, R"({"find": "c", "tailable": true, "awaitData": true})");
      for (int64_t id : Ids(first)) seen[r].push_back(id);
      const int64_t cursor = Integer(first, "cursor.id").value_or(0);
      ++ready;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (cursor != 0 && static_cast<int64_t>(seen[r].size()) < kDocs + 1 &&
             std::chrono::steady_clock::now() < give_up) {
        BsonDoc cmd;
        BSON_APPEND_INT64(cmd.mutable_get(), "getMore", cursor);
        BSON_APPEND_UTF8(cmd.mutable_get(), "collection", "c");
        BSON_APPEND_INT32(cmd.mutable_get(), "maxTimeMS", 2000);
        BsonDoc more = client.RunCommand(db_, cmd);
        if (!testutil::IsOk(more)) break;
        for (int64_t id : Ids(more, "cursor.nextBatch")) seen[r].push_back(id);
      }
    });
  }
  while (ready.load() < kReaders) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // The writer: its own connection, one insert at a time.
  MongoClient writer(server_->uri());
  for (int64_t i = 1; i <= kDocs; ++i) {
    BsonDoc reply = writer.RunCommand(
        db_, "{\"insert\": \"c\", \"documents\": [{\"_id\": " + std::to_string(i) + "}]}");
    ASSERT_TRUE(testutil::IsOk(reply)) << Json(reply);
    if (i % 20 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (std::thread& t : readers) t.join();
  for (int r = 0; r < kReaders; ++r) EXPECT_EQ(seen[r], Range(0, kDocs + 1)) << "reader " << r;
}

TEST_F(CappedCollectionTest, AwaitDataGetMoreWaitsForMaxTimeMS) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 100000})"));
  InsertJson("c", R"([{"_id": 1}])");
  BsonDoc first = Run(R"({"find": "c", "tailable": true, "awaitData": true})");
  const int64_t cursor = Integer(first, "cursor.id").value_or(0);
  ASSERT_NE(cursor, 0) << Json(first);
  BsonDoc cmd;
  BSON_APPEND_INT64(cmd.mutable_get(), "getMore", cursor);
  BSON_APPEND_UTF8(cmd.mutable_get(), "collection", "c");
  BSON_APPEND_INT32(cmd.mutable_get(), "maxTimeMS", 300);
  const auto started = std::chrono::steady_clock::now();
  BsonDoc more = Run(cmd);
  const auto waited = std::chrono::steady_clock::now() - started;
  ASSERT_OK_REPLY(more);
  EXPECT_EQ(testutil::ArrayLength(more, "cursor.nextBatch"), 0u);
  EXPECT_EQ(Integer(more, "cursor.id"), cursor);
  EXPECT_GE(waited, std::chrono::milliseconds(250));
}

TEST_F(CappedCollectionTest, EvictedPositionIsCappedPositionLost) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 100000, "max": 3})"));
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}])");
  BsonDoc first = Run(R"({"find": "c", "tailable": true})");
  const int64_t cursor = Integer(first, "cursor.id").value_or(0);
  ASSERT_NE(cursor, 0) << Json(first);
  // Kept position (max - 1 more): the cursor goes on.
  InsertJson("c", R"([{"_id": 3}])");
  BsonDoc more = GetMore(cursor, "c");
  EXPECT_EQ(Ids(more, "cursor.nextBatch"), std::vector<int64_t>{3}) << Json(more);
  InsertJson("c", R"([{"_id": 4}, {"_id": 5}, {"_id": 6}, {"_id": 7}])");
  EXPECT_ERROR_REPLY(GetMore(cursor, "c"), 136, "CappedPositionLost");
}

TEST_F(CappedCollectionTest, Kill9KeepsOrderAndLimits) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "capped": true, "size": 100000, "max": 5})"));
  for (int64_t i = 0; i < 8; ++i) InsertJson("c", "[{\"_id\": " + std::to_string(50 - i) + "}]");
  RestartAndReconnect(Shutdown::kKill9);
  EXPECT_EQ(NaturalIds("c"), (std::vector<int64_t>{47, 46, 45, 44, 43}));
  // New inserts follow the kept ones, and max still holds.
  InsertJson("c", R"([{"_id": 1}, {"_id": 2}])");
  EXPECT_EQ(NaturalIds("c"), (std::vector<int64_t>{45, 44, 43, 1, 2}));
  BsonDoc stats = Run(R"({"collStats": "c"})");
  EXPECT_EQ(Integer(stats, "count"), 5);
  EXPECT_EQ(Integer(stats, "max"), 5);
}

TEST_F(CappedCollectionTest, ConvertToCappedKeepsNaturalOrderWithinTheSize) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shards": 1})"));
  for (int64_t i = 0; i < 10; ++i) InsertSized("c", i, 100);
  ASSERT_OK_REPLY(Run(R"({"convertToCapped": "c", "size": 500})"));
  EXPECT_EQ(NaturalIds("c"), Range(5, 10));
  BsonDoc list = Run(R"({"listCollections": 1, "filter": {"name": "c"}})");
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(list, "cursor.firstBatch.0.options")),
            testutil::CanonicalJson(R"({"capped": true, "size": 500})"));
  EXPECT_ERROR_REPLY(Run(R"({"convertToCapped": "nope", "size": 500})"), 26, "NamespaceNotFound");
}

}  // namespace
}  // namespace tigerdoc::e2e
