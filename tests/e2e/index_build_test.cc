// Index builds over existing data through libmongoc (100,000 documents),
// failing builds that leave nothing, and indexes surviving a clean restart
// and kill -9 with their keys consistent.

#include "tests/e2e/index_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

class IndexBuildTest : public IndexE2eTest {
 protected:
  // Inserts n documents {_id: i, g: i % 1000, s: "k<i>"} in batches.
  void Fill(const std::string& coll, int n) {
    for (int start = 0; start < n; start += 1000) {
      std::string docs = "[";
      for (int i = start; i < std::min(n, start + 1000); ++i) {
        docs += (i > start ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) +
                R"(, "g": )" + std::to_string(i % 1000) + R"(, "s": "k)" + std::to_string(i) + R"("})";
      }
      InsertJson(coll, docs + "]");
    }
  }
};

TEST_F(IndexBuildTest, BuildsOverOneHundredThousandDocuments) {
  Fill("big", 100000);
  BsonDoc r = CreateIndexes("big", R"([{"key": {"s": 1}, "name": "s_1", "unique": true},
                                       {"key": {"g": 1, "_id": -1}, "name": "g_id"}])");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "numIndexesAfter"), 3);
  // The unique index holds every key: each existing value is refused.
  for (int i : {0, 4999, 99999}) {
    BsonDoc dup = Run(R"({"insert": "big", "documents": [{"_id": -1, "s": "k)" + std::to_string(i) + R"("}]})");
    EXPECT_EQ(DocArray(dup, "writeErrors").size(), 1u) << Json(dup);
  }
  InsertJson("big", R"([{"_id": -1, "s": "new"}])");
  BsonDoc stats = Run(R"({"collStats": "big"})");
  EXPECT_GT(Integer(stats, "indexSizes.s_1").value_or(0), 100000 * 8);
}

TEST_F(IndexBuildTest, FailingUniqueBuildLeavesNothing) {
  Fill("d", 5000);
  InsertJson("d", R"([{"_id": "dup", "s": "k42"}])");
  BsonDoc r = CreateIndexes("d", R"([{"key": {"g": 1}, "name": "g_1"},
                                     {"key": {"s": 1}, "name": "s_1", "unique": true}])");
  EXPECT_ERROR_REPLY(r, 11000, "DuplicateKey");
  EXPECT_NE(String(r, "errmsg")->find("index: s_1 dup key: { s: \"k42\" }"), std::string::npos) << Json(r);
  EXPECT_EQ(IndexNames("d"), std::vector<std::string>{"_id_"});
  BsonDoc stats = Run(R"({"collStats": "d"})");
  EXPECT_EQ(Integer(stats, "nindexes"), 1);
  // Writes are unconstrained, and a later build of a valid index works.
  InsertJson("d", R"([{"_id": "dup2", "s": "k42"}])");
  ASSERT_OK_REPLY(CreateIndexes("d", R"([{"key": {"g": 1}, "name": "g_1"}])"));
  // Parallel arrays make a build fail the same way.
  InsertJson("d", R"([{"_id": "arr", "x": [1], "y": [2]}])");
  EXPECT_ERROR_REPLY(CreateIndexes("d", R"([{"key": {"x": 1, "y": 1}, "name": "xy"}])"), 171,
                     "CannotIndexParallelArrays");
  EXPECT_EQ(IndexNames("d"), (std::vector<std::string>{"_id_", "g_1"}));
}

TEST_F(IndexBuildTest, IndexesSurviveRestartAndKillNine) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "shards": 4, "shardKey": {"k": 1}})"));
  ASSERT_OK_REPLY(CreateIndexes("c", R"([{"key": {"u": 1}, "name": "u_1", "unique": true},
      {"key": {"tags": 1}, "name": "tags_1"}, {"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 100000}])"));
  InsertJson("c", R"([{"_id": 1, "k": 1, "u": 1, "tags": ["a", "b"]}, {"_id": 2, "k": 2, "u": 2}])");
  RestartAndReconnect(Shutdown::kClean);
  EXPECT_EQ(IndexNames("c"), (std::vector<std::string>{"_id_", "u_1", "tags_1", "t_1"}));
  BsonDoc dup = Run(R"({"insert": "c", "documents": [{"_id": 3, "k": 3, "u": 1}]})");
  EXPECT_EQ(DocArray(dup, "writeErrors").size(), 1u) << Json(dup);
  // Acknowledged writes after the restart, then kill -9.
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"u": 10, "k": 5}}}]})"));
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]})"));
  InsertJson("c", R"([{"_id": 4, "k": 4, "u": 4}])");
  RestartAndReconnect(Shutdown::kKill9);
  EXPECT_EQ(IndexNames("c"), (std::vector<std::string>{"_id_", "u_1", "tags_1", "t_1"}));
  // Keys are consistent with the documents: freed keys are free, taken keys taken.
  InsertJson("c", R"([{"_id": 5, "k": 1, "u": 1}, {"_id": 6, "k": 1, "u": 2}])");
  for (int taken : {10, 4}) {
    BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 100, "k": 1, "u": )" + std::to_string(taken) + "}]}");
    EXPECT_EQ(DocArray(r, "writeErrors").size(), 1u) << Json(r);
  }
  // Removing every document leaves every key free.
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {}, "limit": 0}]})"));
  InsertJson("c", R"([{"_id": 7, "k": 1, "u": 10}, {"_id": 8, "k": 1, "u": 4}, {"_id": 9, "k": 2, "u": 1}])");
}

}  // namespace
}  // namespace tigerdoc::e2e
