// Aggregate explain with verbosity executionStats / allPlansExecution
// through libmongoc: the pipeline runs, each shard's $cursor reports the
// scan's executionStats and every shard stage its nReturned and
// executionTimeMillisEstimate; the merger part prints without stats (as
// mongos). And explain of find / count / distinct / aggregate on a view:
// the aggregate explain of the resolved pipeline over the collection.
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

class AggregateExplainTest : public E2eTest {
 protected:
  // 200 documents {_id: i, a: -i, g: i % 4, t: [i, i]}, index a_1.
  void SetUp() override {
    E2eTest::SetUp();
    std::string docs = "[";
    for (int i = 1; i <= 200; ++i) {
      if (i > 1) docs += ",";
      docs += R"({"_id": )" + std::to_string(i) + R"(, "a": )" + std::to_string(-i) + R"(, "g": )" +
              std::to_string(i % 4) + R"(, "t": [)" + std::to_string(i) + "," + std::to_string(i) + "]}";
    }
    InsertJson("c", docs + "]");
    ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  }

  BsonDoc Explain(const std::string& inner, const std::string& verbosity) {
    return Run(R"({"explain": )" + inner + R"(, "verbosity": ")" + verbosity + R"("})");
  }

  // The shard names of an aggregate explain's `shards`.
  static std::vector<std::string> Shards(const BsonDoc& r) {
    std::vector<std::string> out;
    BsonDoc shards = SubDoc(r, "shards");
    bson_iter_t it;
    if (bson_iter_init(&it, shards.get())) {
      while (bson_iter_next(&it)) out.push_back(std::string("shards.") + bson_iter_key(&it));
    }
    return out;
  }

  // The sum over shards of the integer at <shard>.<path>; every shard must have it.
  static int64_t SumOverShards(const BsonDoc& r, const std::string& path) {
    int64_t sum = 0;
    for (const std::string& shard : Shards(r)) {
      std::optional<int64_t> v = Integer(r, shard + "." + path);
      EXPECT_TRUE(v.has_value()) << shard << "." << path << " in " << Json(r);
      sum += v.value_or(0);
    }
    return sum;
  }
};

TEST_F(AggregateExplainTest, ExecutionStatsOfAnUnindexedPipeline) {
  BsonDoc r = Explain(R"({"aggregate": "c", "pipeline": [{"$match": {"g": {"$lt": 2}}},
      {"$unwind": "$t"}, {"$group": {"_id": "$g", "n": {"$sum": 1}}}], "cursor": {}})",
                      "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "mergeType"), "mongos") << Json(r);
  ASSERT_EQ(Shards(r).size(), 4u) << Json(r);
  // Every document is examined once over the shards; half of them match.
  EXPECT_EQ(SumOverShards(r, "stages.0.$cursor.executionStats.totalDocsExamined"), 200) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.$cursor.executionStats.totalKeysExamined"), 0) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.$cursor.executionStats.nReturned"), 100) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.nReturned"), 100) << Json(r);
  // $unwind doubles each shard's documents.
  for (const std::string& shard : Shards(r)) {
    EXPECT_EQ(String(r, shard + ".stages.0.$cursor.executionStats.executionStages.stage"), "COLLSCAN");
    EXPECT_TRUE(Has(r, shard + ".stages.0.executionTimeMillisEstimate")) << Json(r);
    EXPECT_TRUE(Has(r, shard + ".stages.1.executionTimeMillisEstimate")) << Json(r);
    EXPECT_EQ(Integer(r, shard + ".stages.1.nReturned"),
              2 * Integer(r, shard + ".stages.0.nReturned").value_or(-1)) << Json(r);
    EXPECT_EQ(Integer(r, shard + ".stages.0.$cursor.executionStats.executionStages.docsExamined"),
              Integer(r, shard + ".stages.0.$cursor.executionStats.totalDocsExamined")) << Json(r);
    // The plan is printed as for queryPlanner too.
    EXPECT_EQ(String(r, shard + ".stages.0.$cursor.queryPlanner.winningPlan.stage"), "COLLSCAN");
    EXPECT_FALSE(Has(r, shard + ".stages.0.$cursor.executionStats.allPlansExecution")) << Json(r);
  }
  EXPECT_EQ(SumOverShards(r, "stages.1.nReturned"), 200) << Json(r);
  // The merger part is printed without stats, as mongos does.
  EXPECT_TRUE(Has(r, "splitPipeline.mergerPart.1.$group")) << Json(r);
  EXPECT_FALSE(Has(r, "splitPipeline.mergerPart.1.nReturned")) << Json(r);
}

TEST_F(AggregateExplainTest, ExecutionStatsOfAnIndexedPipeline) {
  BsonDoc r = Explain(R"({"aggregate": "c", "pipeline": [{"$match": {"a": {"$gte": -10}}},
      {"$project": {"a": 1}}, {"$count": "n"}], "cursor": {}})",
                      "executionStats");
  ASSERT_OK_REPLY(r);
  // The index reads only the ten matching keys and fetches their documents.
  EXPECT_EQ(SumOverShards(r, "stages.0.$cursor.executionStats.totalKeysExamined"), 10) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.$cursor.executionStats.totalDocsExamined"), 10) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.nReturned"), 10) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.1.nReturned"), 10) << Json(r);
  for (const std::string& shard : Shards(r)) {
    const std::string stages = shard + ".stages.0.$cursor.executionStats.executionStages";
    EXPECT_EQ(String(r, stages + ".stage"), "FETCH") << Json(r);
    EXPECT_EQ(String(r, stages + ".inputStage.stage"), "IXSCAN") << Json(r);
    EXPECT_EQ(String(r, stages + ".inputStage.indexName"), "a_1") << Json(r);
    EXPECT_TRUE(Has(r, shard + ".stages.1.$project")) << Json(r);
  }
}

TEST_F(AggregateExplainTest, ShardSortAndLimitCountPerShard) {
  // $project keeps the $sort out of the cursor: each shard sorts all its
  // own documents and limits them; the merger merges the shards' streams in
  // sort order and limits again, pulling from each shard only what it needs.
  BsonDoc r = Explain(R"({"aggregate": "c", "pipeline": [{"$match": {"g": 0}},
      {"$project": {"a": 1}}, {"$sort": {"a": 1}}, {"$limit": 3}], "cursor": {}})",
                      "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(SumOverShards(r, "stages.1.nReturned"), 50) << Json(r);
  int64_t limited = 0;
  for (const std::string& shard : Shards(r)) {
    ASSERT_TRUE(Has(r, shard + ".stages.3.$limit")) << Json(r);
    int64_t sorted = Integer(r, shard + ".stages.2.nReturned").value_or(-1);
    EXPECT_GE(sorted, 1) << Json(r);
    EXPECT_LE(sorted, 3) << Json(r);
    EXPECT_EQ(Integer(r, shard + ".stages.3.nReturned"), sorted) << Json(r);
    limited += sorted;
  }
  // Each shard's head, plus one more for every document the merger took.
  EXPECT_EQ(limited, static_cast<int64_t>(Shards(r).size()) + 3) << Json(r);
  EXPECT_EQ(Integer(r, "splitPipeline.mergerPart.1.$limit"), 3) << Json(r);
}

TEST_F(AggregateExplainTest, AllPlansExecutionAndTheExplainFlag) {
  BsonDoc r = Explain(R"({"aggregate": "c", "pipeline": [{"$match": {"a": {"$lte": -190}}}], "cursor": {}})",
                      "allPlansExecution");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.nReturned"), 11) << Json(r);
  for (const std::string& shard : Shards(r)) {
    EXPECT_EQ(ArrayLength(r, shard + ".stages.0.$cursor.executionStats.allPlansExecution"), 0u) << Json(r);
  }
  // aggregate {explain: true} is always queryPlanner: nothing runs.
  r = Run(R"({"aggregate": "c", "explain": true, "pipeline": [{"$match": {"a": {"$lte": -190}}}]})");
  ASSERT_OK_REPLY(r);
  for (const std::string& shard : Shards(r)) {
    EXPECT_FALSE(Has(r, shard + ".stages.0.$cursor.executionStats")) << Json(r);
    EXPECT_FALSE(Has(r, shard + ".stages.0.nReturned")) << Json(r);
  }
  // queryPlanner verbosity: no stats either.
  r = Explain(R"({"aggregate": "c", "pipeline": [{"$project": {"a": 1}}], "cursor": {}})", "queryPlanner");
  ASSERT_OK_REPLY(r);
  EXPECT_FALSE(Has(r, "shards.shard0.stages.1.nReturned")) << Json(r);
}

TEST_F(AggregateExplainTest, ThePipelineReallyRunsAndWritesNothing) {
  // A run-time error surfaces only when the pipeline runs.
  const std::string failing = R"({"aggregate": "c", "pipeline": [{"$project": {"x": {"$divide": [1, 0]}}}], "cursor": {}})";
  EXPECT_OK_REPLY(Explain(failing, "queryPlanner"));
  BsonDoc r = Explain(failing, "executionStats");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");

  // $out and $merge are explained, run up to the writer, and write nothing.
  r = Explain(R"({"aggregate": "c", "pipeline": [{"$match": {"g": 1}}, {"$out": "target"}], "cursor": {}})",
              "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.nReturned"), 50) << Json(r);
  r = Explain(R"({"aggregate": "c", "pipeline": [{"$merge": {"into": "target"}}], "cursor": {}})",
              "allPlansExecution");
  ASSERT_OK_REPLY(r);
  r = Run(R"({"listCollections": 1, "filter": {"name": "target"}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);

  // A bad verbosity fails as MongoDB's does.
  r = Explain(R"({"aggregate": "c", "pipeline": [], "cursor": {}})", "bogus");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
}

TEST_F(AggregateExplainTest, PipelinesWithoutACollectionReportEveryStage) {
  BsonDoc r = Explain(R"({"aggregate": 1, "pipeline": [{"$documents": [{"x": 1}, {"x": 2}, {"x": 3}]},
      {"$match": {"x": {"$gt": 1}}}], "cursor": {}})",
                      "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "stages.0.nReturned"), 3) << Json(r);
  EXPECT_EQ(Integer(r, "stages.1.nReturned"), 2) << Json(r);
  EXPECT_TRUE(Has(r, "stages.1.executionTimeMillisEstimate")) << Json(r);
}

class ViewExplainTest : public AggregateExplainTest {
 protected:
  void SetUp() override {
    AggregateExplainTest::SetUp();
    ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "c", "pipeline": [{"$match": {"g": 1}}]})"));
    ASSERT_OK_REPLY(Run(R"({"create": "recent", "viewOn": "c", "pipeline": [{"$match": {"a": {"$gte": -10}}}]})"));
  }
};

TEST_F(ViewExplainTest, FindOnAViewIsTheAggregateExplainOfTheResolvedPipeline) {
  BsonDoc r = Explain(R"({"find": "v", "filter": {"a": {"$lte": -100}}, "sort": {"a": 1}, "limit": 5})",
                      "queryPlanner");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "mergeType"), "mongos") << Json(r);
  // The view's $match, then the find's filter, sort and limit as stages.
  EXPECT_EQ(Integer(r, "splitPipeline.shardsPart.0.$match.g"), 1) << Json(r);
  EXPECT_TRUE(Has(r, "splitPipeline.shardsPart.1.$match.a")) << Json(r);
  EXPECT_TRUE(Has(r, "splitPipeline.shardsPart.2.$sort")) << Json(r);
  EXPECT_TRUE(Has(r, "splitPipeline.shardsPart.3.$limit")) << Json(r);
  EXPECT_EQ(String(r, "shards.shard0.stages.0.$cursor.queryPlanner.namespace"), db_ + ".c") << Json(r);

  r = Explain(R"({"find": "v", "filter": {"a": {"$lte": -100}}})", "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.nReturned"), 50) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.1.nReturned"), 25) << Json(r);

  // A view whose pipeline starts with an indexed $match reads the index.
  r = Explain(R"({"find": "recent"})", "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "shards.shard0.stages.0.$cursor.queryPlanner.winningPlan.inputStage.indexName"), "a_1")
      << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.$cursor.executionStats.totalKeysExamined"), 10) << Json(r);

  // Find options aggregation has no place for fail as find on the view does.
  r = Explain(R"({"find": "v", "returnKey": true})", "queryPlanner");
  EXPECT_ERROR_REPLY(r, 168, "InvalidPipelineOperator");
}

TEST_F(ViewExplainTest, CountDistinctAndAggregateOnAView) {
  BsonDoc r = Explain(R"({"count": "v", "query": {"a": {"$lte": -100}}})", "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "splitPipeline.shardsPart.0.$match.g"), 1) << Json(r);
  EXPECT_EQ(String(r, "splitPipeline.mergerPart.1.$count"), "count") << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.1.nReturned"), 25) << Json(r);

  r = Explain(R"({"distinct": "v", "key": "a", "query": {"a": {"$lte": -190}}})", "queryPlanner");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "splitPipeline.shardsPart.0.$match.g"), 1) << Json(r);
  EXPECT_TRUE(Has(r, "splitPipeline.shardsPart.1.$match.a")) << Json(r);

  r = Explain(R"({"aggregate": "v", "pipeline": [{"$group": {"_id": null, "n": {"$sum": 1}}}], "cursor": {}})",
              "executionStats");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "splitPipeline.shardsPart.0.$match.g"), 1) << Json(r);
  EXPECT_TRUE(Has(r, "splitPipeline.mergerPart.1.$group")) << Json(r);
  EXPECT_EQ(SumOverShards(r, "stages.0.nReturned"), 50) << Json(r);

  // aggregate {explain: true} on a view too.
  r = Run(R"({"aggregate": "recent", "explain": true, "pipeline": []})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "shards.shard0.stages.0.$cursor.queryPlanner.winningPlan.inputStage.stage"), "IXSCAN")
      << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
