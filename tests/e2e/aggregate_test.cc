// aggregate through the wire: the countDocuments pipeline, $group/$sort,
// results paged through getMore, $lookup across collections, a leading
// $collStats, collection-less $documents, and MongoDB's stage errors.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

class AggregateTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    std::string docs = "[";
    for (int i = 0; i < 300; ++i) {
      if (i) docs += ",";
      docs += R"({"_id": )" + std::to_string(i) + R"(, "item": ")" + "abc"[i % 3] + R"(", "qty": )" +
              std::to_string(i) + "}";
    }
    InsertJson("sales", docs + "]");
  }
};

TEST_F(AggregateTest, CountDocumentsPipeline) {
  // What every driver's countDocuments sends.
  BsonDoc r = Run(R"({"aggregate": "sales", "pipeline": [{"$match": {"item": "a"}}, {"$skip": 10},
      {"$limit": 50}, {"$group": {"_id": 1, "n": {"$sum": 1}}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.n"), 50) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.id"), 0);
}

TEST_F(AggregateTest, GroupAndSort) {
  BsonDoc r = Run(R"({"aggregate": "sales", "pipeline": [{"$group": {"_id": "$item",
      "total": {"$sum": "$qty"}, "max": {"$max": "$qty"}}}, {"$sort": {"_id": -1}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"_id": "c", "total": 15050, "max": 299},
                              "1": {"_id": "b", "total": 14950, "max": 298},
                              "2": {"_id": "a", "total": 14850, "max": 297}})"));
}

TEST_F(AggregateTest, ResultsPageThroughGetMore) {
  BsonDoc r = Run(R"({"aggregate": "sales", "pipeline": [{"$match": {"qty": {"$gte": 100}}},
      {"$project": {"qty": 1}}], "cursor": {"batchSize": 50}})");
  ASSERT_OK_REPLY(r);
  size_t seen = DocArray(r, "cursor.firstBatch").size();
  EXPECT_EQ(seen, 50u);
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  while (id != 0) {
    BsonDoc more = GetMore(id, "sales", 60);
    ASSERT_OK_REPLY(more);
    seen += DocArray(more, "cursor.nextBatch").size();
    id = Integer(more, "cursor.id").value_or(0);
  }
  EXPECT_EQ(seen, 200u);
}

TEST_F(AggregateTest, LookupJoinsAnotherCollection) {
  InsertJson("items", R"([{"_id": "a", "label": "Alpha"}, {"_id": "b", "label": "Beta"}])");
  BsonDoc r = Run(R"({"aggregate": "sales", "pipeline": [{"$match": {"_id": {"$in": [0, 2]}}},
      {"$sort": {"_id": 1}}, {"$lookup": {"from": "items", "localField": "item", "foreignField": "_id",
      "as": "info"}}, {"$project": {"info.label": 1}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "cursor.firstBatch")),
            CanonicalJson(R"({"0": {"_id": 0, "info": [{"label": "Alpha"}]},
                              "1": {"_id": 2, "info": []}})"));
}

TEST_F(AggregateTest, CollStatsAndDocumentsStages) {
  // One document per shard, as a sharded cluster answers; they add up.
  BsonDoc stats = Run(R"({"aggregate": "sales", "pipeline": [{"$collStats": {"storageStats": {}}},
      {"$group": {"_id": null, "count": {"$sum": "$storageStats.count"}, "shards": {"$addToSet": "$shard"},
                  "docs": {"$sum": 1}}}], "cursor": {}})");
  ASSERT_OK_REPLY(stats);
  EXPECT_EQ(Integer(stats, "cursor.firstBatch.0.count"), 300) << Json(stats);
  EXPECT_EQ(Integer(stats, "cursor.firstBatch.0.docs"), 4) << Json(stats);
  EXPECT_EQ(testutil::ArrayLength(stats, "cursor.firstBatch.0.shards"), 4u) << Json(stats);
  BsonDoc docs = Run(R"({"aggregate": 1, "pipeline": [{"$documents": [{"x": 1}, {"x": 2}]},
      {"$group": {"_id": null, "s": {"$sum": "$x"}}}], "cursor": {}})");
  ASSERT_OK_REPLY(docs);
  EXPECT_EQ(Integer(docs, "cursor.firstBatch.0.s"), 3) << Json(docs);
}

TEST_F(AggregateTest, StageErrorsAsMongoDB) {
  BsonDoc unknown = Run(R"({"aggregate": "sales", "pipeline": [{"$foo": {}}], "cursor": {}})");
  EXPECT_EQ(Integer(unknown, "code"), 40324) << Json(unknown);
  BsonDoc no_cursor = Run(R"({"aggregate": "sales", "pipeline": []})");
  EXPECT_EQ(Integer(no_cursor, "code"), 9) << Json(no_cursor);
  BsonDoc divide = Run(R"({"aggregate": "sales", "pipeline": [{"$project": {"x": {"$divide": [1, 0]}}}],
      "cursor": {}})");
  EXPECT_EQ(Integer(divide, "code"), 2) << Json(divide);
}

}  // namespace
}  // namespace tigerdoc::e2e
