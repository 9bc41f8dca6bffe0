// $merge and $out into the collection being aggregated (MongoDB 4.4+
// allows both). $out reads everything into a temporary collection and
// renames it over the source. $merge reads its whole input before writing,
// so no document is processed twice even when its update moves it ahead of
// the scan (an index scan on the updated field) or when it inserts new
// _ids the scan could reach: the Halloween problem.
#include <chrono>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

constexpr int kDocs = 2000;

std::string Counts(int64_t count, int64_t matching) {
  return std::to_string(count) + "/" + std::to_string(matching);
}

class AggregateSelfWriteTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    ASSERT_OK_REPLY(Run(R"({"create": "items", "shards": 4})"));
    std::string docs = "[";
    for (int i = 0; i < kDocs; ++i) {
      docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "n": )" +
              std::to_string(i) + R"(, "g": )" + std::to_string(i % 10) + "}";
    }
    InsertJson("items", docs + "]");
    ASSERT_OK_REPLY(Run(R"({"createIndexes": "items", "indexes": [{"key": {"n": 1}, "name": "n_1"}]})"));
  }

  BsonDoc Aggregate(const std::string& pipeline) {
    return Run(R"({"aggregate": "items", "pipeline": )" + pipeline + R"(, "cursor": {}})");
  }

  // "count/matching": documents of items, and those matching `expr`.
  std::string Count(const std::string& expr) {
    BsonDoc r = Aggregate(R"([{"$group": {"_id": null, "count": {"$sum": 1},
        "matching": {"$sum": {"$cond": [)" + expr + R"(, 1, 0]}}}}])");
    EXPECT_OK_REPLY(r);
    return std::to_string(Integer(r, "cursor.firstBatch.0.count").value_or(-1)) + "/" +
           std::to_string(Integer(r, "cursor.firstBatch.0.matching").value_or(-1));
  }
};

TEST_F(AggregateSelfWriteTest, MergeUpdatingTheScannedIndexFieldUpdatesEachDocumentOnce) {
  // The $match reads the n_1 index in n order; each update moves its entry
  // past the scan position. Every document must move by exactly 100000.
  BsonDoc explain = Run(R"({"explain": {"aggregate": "items", "pipeline": [{"$match": {"n": {"$gte": 0}}}], "cursor": {}}})");
  ASSERT_NE(Json(explain).find("n_1"), std::string::npos) << Json(explain);
  ASSERT_OK_REPLY(Aggregate(R"([{"$match": {"n": {"$gte": 0}}}, {"$project": {"n": {"$add": ["$n", 100000]}}},
                               {"$merge": "items"}])"));
  EXPECT_EQ(Count(R"({"$eq": ["$n", {"$add": ["$_id", 100000]}]})"), Counts(kDocs, kDocs));
}

TEST_F(AggregateSelfWriteTest, MergeInsertingNewIdsInsertsEachOnce) {
  // Each source document inserts one copy with a fresh ObjectId; the scan
  // must not reach the copies.
  ASSERT_OK_REPLY(Aggregate(R"([{"$project": {"_id": 0, "n": 1, "copy": {"$literal": true}}}, {"$merge": "items"}])"));
  EXPECT_EQ(Count(R"({"$eq": ["$copy", true]})"), Counts(2 * kDocs, kDocs));
}

TEST_F(AggregateSelfWriteTest, MergeWithPipelineAndLookupOfItself) {
  // The $lookup reads the target too: it sees the collection as it was.
  ASSERT_OK_REPLY(Aggregate(R"([{"$lookup": {"from": "items", "localField": "g", "foreignField": "g", "as": "same"}},
      {"$project": {"peers": {"$size": "$same"}}},
      {"$merge": {"into": "items", "whenMatched": [{"$set": {"peers": "$$new.peers", "n": {"$add": ["$n", 1]}}}]}}])"));
  EXPECT_EQ(Count(R"({"$and": [{"$eq": ["$peers", 200]}, {"$eq": ["$n", {"$add": ["$_id", 1]}]}]})"),
            Counts(kDocs, kDocs));
}

TEST_F(AggregateSelfWriteTest, OutReplacesTheSourceAfterReadingIt) {
  auto start = std::chrono::steady_clock::now();
  ASSERT_OK_REPLY(Aggregate(R"([{"$match": {"g": 1}}, {"$set": {"n": {"$multiply": ["$n", 2]}}}, {"$out": "items"}])"));
  // The source's tables are dropped at once: no wait on cursors the read
  // left cached (WiredTiger's busy drop gives up after 5 s per table).
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 4.0);
  EXPECT_EQ(Count(R"({"$and": [{"$eq": ["$n", {"$multiply": ["$_id", 2]}]}, {"$eq": ["$g", 1]}]})"),
            Counts(kDocs / 10, kDocs / 10));
  // The index of the source survives the replacement.
  BsonDoc r = Run(R"({"listIndexes": "items"})");
  ASSERT_OK_REPLY(r);
  EXPECT_NE(Json(r).find("n_1"), std::string::npos) << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
