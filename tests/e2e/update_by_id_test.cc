// Updates whose filter is exactly {_id: v} skip the query planner and go
// straight to the point read (engine/write/engine_writes.cc, IdEquality):
// the answers must be those of the planned path, for numbers of another
// type, absent _ids with and without upsert, collections sharded by another
// field, filters that only look like {_id: v}, and several connections
// updating the same documents at once.
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;

class UpdateByIdTest : public E2eTest {
 protected:
  // {n, nModified} of an update of one statement.
  std::pair<int64_t, int64_t> Update(const std::string& coll, const std::string& q,
                                     const std::string& u, bool upsert = false) {
    BsonDoc r = Run(R"({"update": ")" + coll + R"(", "updates": [{"q": )" + q + R"(, "u": )" + u +
                    (upsert ? R"(, "upsert": true)" : "") + "}]}");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    return {Integer(r, "n").value_or(-1), Integer(r, "nModified").value_or(-1)};
  }
  int64_t FieldOf(const std::string& coll, const std::string& filter, const char* field) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter + "}");
    auto docs = DocArray(r, "cursor.firstBatch");
    if (docs.size() != 1) return -1;
    return Integer(docs[0], field).value_or(-1);
  }
};

TEST_F(UpdateByIdTest, NumbersOfAnotherTypeMatchAsInTheQueryPath) {
  InsertJson("c", R"([{"_id": {"$numberLong": "5"}, "a": 0}, {"_id": 2.5, "a": 0}])");
  EXPECT_EQ(Update("c", R"({"_id": 5})", R"({"$inc": {"a": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": 5.0})", R"({"$inc": {"a": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": 2.5})", R"({"$inc": {"a": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": 6})", R"({"$inc": {"a": 1}})"), std::make_pair(0L, 0L));
  EXPECT_EQ(FieldOf("c", R"({"_id": 5})", "a"), 2);
  EXPECT_EQ(FieldOf("c", R"({"_id": 2.5})", "a"), 1);
}

TEST_F(UpdateByIdTest, AbsentIdUpsertsAndUnchangedDocumentIsNotModified) {
  InsertJson("c", R"([{"_id": "k1", "a": 1}])");
  EXPECT_EQ(Update("c", R"({"_id": "k1"})", R"({"$set": {"a": 1}})"), std::make_pair(1L, 0L));
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": "k2"}, "u": {"$set": {"a": 7}}, "upsert": true}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  EXPECT_EQ(DocArray(r, "upserted").size(), 1u) << Json(r);
  EXPECT_EQ(FieldOf("c", R"({"_id": "k2"})", "a"), 7);
}

TEST_F(UpdateByIdTest, CollectionShardedByAnotherFieldFindsTheDocument) {
  ASSERT_OK_REPLY(Run(R"({"create": "s", "shardKey": {"k": 1}, "shards": 4})"));
  InsertJson("s", R"([{"_id": 1, "k": "x", "a": 0}, {"_id": 2, "k": "y", "a": 0}])");
  EXPECT_EQ(Update("s", R"({"_id": 2})", R"({"$set": {"a": 9}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(FieldOf("s", R"({"_id": 2})", "a"), 9);
  EXPECT_EQ(FieldOf("s", R"({"_id": 1})", "a"), 0);
}

TEST_F(UpdateByIdTest, FiltersThatOnlyLookLikeAnIdEqualityKeepTheirMeaning) {
  InsertJson("c", R"([{"_id": 1, "a": 0}, {"_id": 2, "a": 0}, {"_id": "ab", "a": 0}])");
  // A second condition that fails: no match although the _id exists.
  EXPECT_EQ(Update("c", R"({"_id": 1, "a": 5})", R"({"$set": {"b": 1}})"), std::make_pair(0L, 0L));
  // Operators and regexes on _id go through the planner.
  EXPECT_EQ(Update("c", R"({"_id": {"$gt": 1}})", R"({"$set": {"b": 1}})"), std::make_pair(1L, 1L));
  EXPECT_EQ(Update("c", R"({"_id": {"$regularExpression": {"pattern": "^a", "options": ""}}})",
                   R"({"$set": {"b": 2}})"),
            std::make_pair(1L, 1L));
  EXPECT_EQ(FieldOf("c", R"({"_id": "ab"})", "b"), 2);
}

TEST_F(UpdateByIdTest, ConcurrentIncrementsByIdAreAllApplied) {
  InsertJson("c", R"([{"_id": 0, "n": 0}, {"_id": 1, "n": 0}, {"_id": 2, "n": 0}])");
  constexpr int kThreads = 4, kPerThread = 150;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kPerThread; ++i) {
        BsonDoc r = client.RunCommand(
            db_, R"({"update": "c", "updates": [{"q": {"_id": )" + std::to_string((t + i) % 3) +
                     R"(}, "u": {"$inc": {"n": 1}}}]})");
        EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  int64_t total = 0;
  for (int id = 0; id < 3; ++id) total += FieldOf("c", R"({"_id": )" + std::to_string(id) + "}", "n");
  EXPECT_EQ(total, kThreads * kPerThread);
}

}  // namespace
}  // namespace tigerdoc::e2e
