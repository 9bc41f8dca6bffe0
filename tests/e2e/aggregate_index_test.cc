// Aggregation scans over secondary indexes through libmongoc: the pipeline's
// leading $match, a $unionWith sub-pipeline's leading $match and a $lookup's
// foreign scan are planned by the query planner. Observed through result
// order: a unique index on `a` is one table in key order, while a collection
// scan reads the hash shards one after another, each in _id order; with
// a = -_id the two orders differ for any shard holding two matches.
// And explain of aggregate: mongos's split pipeline with each shard's plan.
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

class AggregateIndexTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    std::string docs = "[";
    for (int i = 1; i <= 200; ++i) {
      if (i > 1) docs += ",";
      docs += R"({"_id": )" + std::to_string(i) + R"(, "a": )" + std::to_string(-i) + "}";
    }
    InsertJson("c", docs + "]");
    ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "unique": true}]})"));
  }

  // The _id of each document of the array at `path`, in order.
  static std::vector<int64_t> Values(const BsonDoc& reply, const std::string& path) {
    std::vector<int64_t> out;
    for (const auto& d : testutil::DocArray(reply, path)) out.push_back(Integer(d, "_id").value_or(0));
    return out;
  }
};

const std::vector<int64_t> kTenInIndexOrder = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};

TEST_F(AggregateIndexTest, LeadingMatchReadsTheIndex) {
  BsonDoc r = Run(R"({"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": -10}}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Values(r, "cursor.firstBatch"), kTenInIndexOrder) << Json(r);
  // The same filter forced to a collection scan reads shard by shard.
  BsonDoc natural = Run(R"({"find": "c", "filter": {"a": {"$gte": -10}}, "hint": {"$natural": 1}})");
  ASSERT_OK_REPLY(natural);
  EXPECT_NE(Values(natural, "cursor.firstBatch"), kTenInIndexOrder) << Json(natural);
}

TEST_F(AggregateIndexTest, UnionWithAndLookupScansReadTheIndex) {
  InsertJson("o", R"([{"_id": 0, "as": [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10]}])");
  BsonDoc r = Run(R"({"aggregate": "o", "pipeline": [{"$project": {"_id": 1}},
      {"$unionWith": {"coll": "c", "pipeline": [{"$match": {"a": {"$gte": -10}}}]}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  std::vector<int64_t> want = {0};
  want.insert(want.end(), kTenInIndexOrder.begin(), kTenInIndexOrder.end());
  EXPECT_EQ(Values(r, "cursor.firstBatch"), want) << Json(r);

  r = Run(R"({"aggregate": "o", "pipeline": [{"$lookup": {"from": "c", "localField": "as",
      "foreignField": "a", "as": "m"}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Values(r, "cursor.firstBatch.0.m"), kTenInIndexOrder) << Json(r);

  r = Run(R"({"aggregate": "o", "pipeline": [{"$lookup": {"from": "c", "as": "m",
      "pipeline": [{"$match": {"a": {"$gte": -10}}}]}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Values(r, "cursor.firstBatch.0.m"), kTenInIndexOrder) << Json(r);
}


TEST_F(AggregateIndexTest, ExplainSplitsThePipelineAndShowsEachShardsPlan) {
  // The explain command form (what mongosh's db.c.explain().aggregate() sends).
  BsonDoc r = Run(R"({"explain": {"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": -10}}},
      {"$group": {"_id": null, "n": {"$sum": 1}}}], "cursor": {}}, "verbosity": "queryPlanner"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "mergeType"), "mongos") << Json(r);
  EXPECT_EQ(ArrayLength(r, "splitPipeline.shardsPart"), 1u) << Json(r);
  EXPECT_TRUE(testutil::Has(r, "splitPipeline.shardsPart.0.$match")) << Json(r);
  EXPECT_EQ(ArrayLength(r, "splitPipeline.mergerPart"), 2u) << Json(r);
  EXPECT_EQ(String(r, "splitPipeline.mergerPart.0.$mergeCursors.nss"), db_ + ".c") << Json(r);
  EXPECT_TRUE(testutil::Has(r, "splitPipeline.mergerPart.1.$group")) << Json(r);
  // Every shard reads the a_1 index for the pushed-down $match.
  BsonDoc shards = SubDoc(r, "shards");
  ASSERT_GE(bson_count_keys(shards.get()), 1u) << Json(r);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init(&it, shards.get()));
  while (bson_iter_next(&it)) {
    const std::string shard = std::string("shards.") + bson_iter_key(&it);
    ASSERT_EQ(ArrayLength(r, shard + ".stages"), 1u) << Json(r);
    const std::string qp = shard + ".stages.0.$cursor.queryPlanner";
    EXPECT_EQ(String(r, qp + ".namespace"), db_ + ".c") << Json(r);
    EXPECT_EQ(String(r, qp + ".winningPlan.stage"), "FETCH") << Json(r);
    EXPECT_EQ(String(r, qp + ".winningPlan.inputStage.stage"), "IXSCAN") << Json(r);
    EXPECT_EQ(String(r, qp + ".winningPlan.inputStage.indexName"), "a_1") << Json(r);
  }
  // explain: true inside explain is refused as MongoDB does.
  r = Run(R"({"explain": {"aggregate": "c", "pipeline": [], "explain": true}})");
  EXPECT_ERROR_REPLY(r, 9, "FailedToParse");
}

TEST_F(AggregateIndexTest, ExplainFlagShardTargetingAndStagesWithoutAShardPrefix) {
  ASSERT_OK_REPLY(Run(R"({"create": "s", "shardKey": {"k": 1}, "shards": 4})"));
  InsertJson("s", R"([{"_id": 1, "k": 5, "a": 2}, {"_id": 2, "k": 6, "a": 1}])");
  // A shard-key equality targets one shard; $project, $sort and $limit run
  // there, the merger merges in sort order and limits again.
  BsonDoc r = Run(R"({"aggregate": "s", "explain": true, "pipeline": [{"$match": {"k": 5}},
      {"$project": {"a": 1}}, {"$sort": {"a": 1}}, {"$limit": 3},
      {"$group": {"_id": "$a", "n": {"$sum": 1}}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "splitPipeline.shardsPart"), 4u) << Json(r);
  EXPECT_EQ(ArrayLength(r, "splitPipeline.mergerPart"), 3u) << Json(r);
  EXPECT_EQ(Integer(r, "splitPipeline.mergerPart.0.$mergeCursors.sort.a"), 1) << Json(r);
  EXPECT_EQ(Integer(r, "splitPipeline.mergerPart.1.$limit"), 3) << Json(r);
  EXPECT_TRUE(testutil::Has(r, "splitPipeline.mergerPart.2.$group")) << Json(r);
  BsonDoc shards = SubDoc(r, "shards");
  ASSERT_EQ(bson_count_keys(shards.get()), 1u) << Json(r);
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init(&it, shards.get()) && bson_iter_next(&it));
  const std::string shard = std::string("shards.") + bson_iter_key(&it);
  // The cursor absorbed the $match; the other shard stages follow it.
  EXPECT_EQ(ArrayLength(r, shard + ".stages"), 4u) << Json(r);
  EXPECT_EQ(String(r, shard + ".stages.0.$cursor.queryPlanner.winningPlan.stage"), "COLLSCAN") << Json(r);
  EXPECT_TRUE(testutil::Has(r, shard + ".stages.1.$project")) << Json(r);
  EXPECT_TRUE(testutil::Has(r, shard + ".stages.3.$limit")) << Json(r);

  // No shard-local prefix: every stage merges; each shard still scans.
  r = Run(R"({"aggregate": "s", "explain": true, "pipeline": [{"$group": {"_id": "$k"}}, {"$match": {"_id": 5}}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "splitPipeline.shardsPart"), 0u) << Json(r);
  EXPECT_EQ(ArrayLength(r, "splitPipeline.mergerPart"), 3u) << Json(r);
  EXPECT_EQ(bson_count_keys(SubDoc(r, "shards").get()), 4u) << Json(r);
  EXPECT_EQ(String(r, "shards.shard0.stages.0.$cursor.queryPlanner.winningPlan.stage"), "COLLSCAN") << Json(r);

  // Without a collection: the stages as one server runs them.
  r = Run(R"({"aggregate": 1, "explain": true, "pipeline": [{"$documents": [{"x": 1}]}, {"$limit": 1}]})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "stages"), 2u) << Json(r);
  // Bad pipelines fail as aggregate does.
  r = Run(R"({"aggregate": "s", "explain": true, "pipeline": [{"$bogus": 1}]})");
  EXPECT_ERROR_REPLY(r, 40324, "Location40324");
}

}  // namespace
}  // namespace tigerdoc::e2e
