// Document metadata through aggregation, end to end through libmongoc:
// {$meta: "textScore"} after a leading $text $match (sorting across shards
// and getMore batches, kept by $unwind / $project, missing after $group),
// {$meta: "sortKey"} after $sort and in find, MongoDB 7's codes, and
// several connections aggregating at once.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Number;

class MetaPipelineTest : public E2eTest {
 protected:
  // 250 documents over 4 shards; _id % 5 + 1 repetitions of "kiwi".
  void Seed() {
    ASSERT_OK_REPLY(Run(R"({"create": "p", "shards": 4})"));
    std::string docs = "[";
    for (int i = 0; i < 250; ++i) {
      std::string body;
      for (int r = 0; r <= i % 5; ++r) body += "kiwi ";
      docs += (i ? "," : "") + std::string("{\"_id\": ") + std::to_string(i) + ", \"g\": " +
              std::to_string(i % 2) + ", \"t\": [1, 2], \"body\": \"" + body + "x" + std::to_string(i) + "\"}";
    }
    InsertJson("p", docs + "]");
    ASSERT_OK_REPLY(Run(R"({"createIndexes": "p", "indexes": [{"key": {"body": "text"}, "name": "t"}]})"));
  }
  static constexpr const char* kText = R"({"$match": {"$text": {"$search": "kiwi"}}})";
};

TEST_F(MetaPipelineTest, SortsByScoreAcrossBatches) {
  Seed();
  BsonDoc reply = Run(std::string(R"({"aggregate": "p", "cursor": {}, "pipeline": [)") + kText +
                      R"(, {"$unwind": "$t"}, {"$sort": {"s": {"$meta": "textScore"}, "_id": 1, "t": 1}},
                          {"$project": {"s": {"$meta": "textScore"}, "t": 1}}]})");
  ASSERT_OK_REPLY(reply);
  std::vector<BsonDoc> docs = DocArray(reply, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 101u);  // the default first batch
  int64_t id = *Integer(reply, "cursor.id");
  for (int batch : {99, 100, 1000}) {
    if (id == 0) break;
    BsonDoc more = GetMore(id, "p", batch);
    ASSERT_OK_REPLY(more);
    for (auto& d : DocArray(more, "cursor.nextBatch")) docs.push_back(std::move(d));
    id = *Integer(more, "cursor.id");
  }
  ASSERT_EQ(docs.size(), 500u);
  for (size_t i = 1; i < docs.size(); ++i) {
    ASSERT_GE(*Number(docs[i - 1], "s"), *Number(docs[i], "s")) << i;
  }
  EXPECT_EQ(*Integer(docs[0], "_id"), 4);  // five "kiwi": the best score
}

TEST_F(MetaPipelineTest, GroupDropsTheScore) {
  Seed();
  BsonDoc reply = Run(std::string(R"({"aggregate": "p", "cursor": {}, "pipeline": [)") + kText +
                      R"(, {"$group": {"_id": "$g", "best": {"$max": {"$meta": "textScore"}}}},
                          {"$addFields": {"after": {"$meta": "textScore"}}}, {"$sort": {"_id": 1}}]})");
  ASSERT_OK_REPLY(reply);
  std::vector<BsonDoc> docs = DocArray(reply, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_TRUE(Number(docs[0], "best").has_value());
  EXPECT_FALSE(testutil::Has(docs[0], "after"));
}

TEST_F(MetaPipelineTest, ErrorsAreMongoDBs) {
  Seed();
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "p", "cursor": {}, "pipeline": [
      {"$project": {"s": {"$meta": "textScore"}}}]})"), 40218, "Location40218");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "p", "cursor": {}, "pipeline": [
      {"$sort": {"s": {"$meta": "textScore"}}}]})"), 40218, "Location40218");
  EXPECT_ERROR_REPLY(Run(std::string(R"({"aggregate": "p", "cursor": {}, "pipeline": [)") + kText +
                         R"(, {"$project": {"s": {"$meta": "nope"}}}]})"), 17308, "Location17308");
  EXPECT_ERROR_REPLY(Run(R"({"aggregate": "p", "cursor": {}, "pipeline": [{"$match": {"g": 1}}, )" +
                         std::string(kText) + "]}"), 17313, "Location17313");
  EXPECT_ERROR_REPLY(Run(R"({"find": "p", "projection": {"k": {"$meta": "sortKey"}}})"), 2, "BadValue");
}

TEST_F(MetaPipelineTest, SortKeyInFindAndAggregate) {
  Seed();
  BsonDoc find = Run(R"({"find": "p", "filter": {"_id": {"$lt": 2}}, "sort": {"g": -1},
                         "projection": {"_id": 1, "k": {"$meta": "sortKey"}}})");
  ASSERT_OK_REPLY(find);
  std::vector<BsonDoc> docs = DocArray(find, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(testutil::CanonicalJson(docs[0]), testutil::CanonicalJson(R"({"_id": 1, "k": [1]})"));
  BsonDoc agg = Run(R"({"aggregate": "p", "cursor": {}, "pipeline": [{"$match": {"_id": {"$lt": 2}}},
      {"$sort": {"g": 1}}, {"$project": {"k": {"$meta": "sortKey"}}}]})");
  ASSERT_OK_REPLY(agg);
  docs = DocArray(agg, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(testutil::CanonicalJson(docs[0]), testutil::CanonicalJson(R"({"_id": 0, "k": [0]})"));
}

TEST_F(MetaPipelineTest, SeveralConnectionsAtOnce) {
  Seed();
  const std::string cmd = std::string(R"({"aggregate": "p", "cursor": {"batchSize": 1000},
      "pipeline": [)") + kText + R"(, {"$addFields": {"s": {"$meta": "textScore"}}},
      {"$match": {"$expr": {"$gte": ["$s", 1]}}}, {"$project": {"_id": 1}}]})";
  BsonDoc alone = Run(cmd);
  ASSERT_OK_REPLY(alone);
  const std::string expected = testutil::CanonicalJson(alone);
  // Four of every five documents repeat "kiwi" (score 1 and above).
  ASSERT_EQ(DocArray(alone, "cursor.firstBatch").size(), 200u) << expected;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      MongoClient client(server_->uri());
      for (int round = 0; round < 10; ++round) {
        BsonDoc reply = client.RunCommand(db_, cmd);
        if (testutil::CanonicalJson(reply) != expected) ++bad;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace tigerdoc::e2e
