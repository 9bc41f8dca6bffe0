// Queries over secondary indexes through libmongoc against the real server:
// createIndexes, then the same finds with the planner free to use the index
// and with {$natural: 1} forcing a collection scan answer identically over
// varied data (arrays, missing, null, mixed types, descending, compound,
// sparse, partial); explain names the chosen index with exact
// keysExamined/docsExamined; sorted queries over 4 shards merge the shards'
// index streams (SORT_MERGE); covered queries examine no documents; hints
// and dropped indexes answer as MongoDB does.
#include <algorithm>

#include "tests/e2e/index_query_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Integer;
using testutil::Json;
using testutil::String;

using IndexQueryTest = IndexQueryE2eTest;

constexpr char kVaried[] = R"([
  {"_id": 1, "a": 1, "b": 1, "c": "x"}, {"_id": 2, "a": 2, "b": 1}, {"_id": 3, "a": 2, "b": 2},
  {"_id": 4, "a": null, "b": 3}, {"_id": 5, "b": 4}, {"_id": 6, "a": [1, 5, 9], "b": 5},
  {"_id": 7, "a": [], "b": 6}, {"_id": 8, "a": "abc", "b": 7}, {"_id": 9, "a": "abd", "b": 8},
  {"_id": 10, "a": 5.5, "b": -1}, {"_id": 11, "a": {"x": 1}, "b": 2},
  {"_id": 12, "a": [[1, 2], 3], "b": 9}, {"_id": 13, "a": true},
  {"_id": 14, "a": {"$date": "2024-01-01T00:00:00Z"}, "b": 1},
  {"_id": 15, "a": [{"x": 1}, {"x": 2}], "b": 3}, {"_id": 16, "a": -3, "b": 10},
  {"_id": 17, "a": {"$numberLong": "9"}, "b": 9, "c": "z"}, {"_id": 18, "a": 9.0, "b": 0}
])";

TEST_F(IndexQueryTest, ResultsIdenticalWithAndWithoutEachIndex) {
  const std::vector<std::string> filters = {
      R"({"a": 1})", R"({"a": 9})", R"({"a": null})", R"({"a": {"$ne": null}})",
      R"({"a": {"$exists": false}})", R"({"a": {"$gt": 1}})", R"({"a": {"$gte": 1, "$lt": 6}})",
      R"({"a": {"$lte": "abc"}})", R"({"a": {"$in": [1, "abd", null]}})",
      R"({"a": {"$nin": [1, 2]}})", R"({"a": {"$not": {"$gt": 2}}})", R"({"a": {"$regex": "^ab"}})",
      R"({"a": {"$elemMatch": {"$gt": 4, "$lt": 6}}})", R"({"a": []})", R"({"a": {"x": 1}})",
      R"({"a.x": 2})", R"({"a": {"$gt": 0}, "b": {"$lte": 5}})",
      R"({"$or": [{"a": 2}, {"b": {"$gt": 8}}]})", R"({"b": {"$in": [1, 2]}, "a": {"$gte": 2}})"};
  const std::vector<std::string> indexes = {
      R"({"key": {"a": 1}, "name": "i"})",
      R"({"key": {"a": -1}, "name": "i"})",
      R"({"key": {"a": 1, "b": -1}, "name": "i"})",
      R"({"key": {"b": 1, "a": 1}, "name": "i"})",
      R"({"key": {"a": 1}, "name": "i", "sparse": true})",
      R"({"key": {"a": 1}, "name": "i", "partialFilterExpression": {"b": {"$gte": 2}}})",
      R"({"key": {"a.x": 1}, "name": "i"})"};
  InsertJson("v", kVaried);
  std::vector<std::vector<std::string>> expected;
  for (const auto& f : filters) expected.push_back(SortedFind("v", f));
  for (const auto& spec : indexes) {
    ASSERT_OK_REPLY(CreateIndex("v", spec));
    for (size_t i = 0; i < filters.size(); ++i) {
      EXPECT_EQ(SortedFind("v", filters[i]), expected[i]) << filters[i] << " with " << spec;
      EXPECT_EQ(SortedFind("v", filters[i], R"(, "hint": {"$natural": 1})"), expected[i])
          << filters[i] << " with " << spec;
    }
    ASSERT_OK_REPLY(Run(R"({"dropIndexes": "v", "index": "i"})"));
  }
}

TEST_F(IndexQueryTest, ExplainShowsTheChosenIndexAndExactCounts) {
  std::string docs = "[";
  for (int i = 0; i < 400; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + R"(, "score": )" + std::to_string(i % 100) +
            R"(, "tag": "t)" + std::to_string(i % 4) + R"("})";
  }
  InsertJson("s", docs + "]");
  ASSERT_OK_REPLY(CreateIndex("s", R"({"key": {"score": 1}, "name": "score_1"})"));
  BsonDoc e = Explain("s", R"("filter": {"score": 42})");
  const std::string shard0 = "queryPlanner.winningPlan.shards.0.winningPlan.";
  EXPECT_EQ(String(e, shard0 + "stage"), "FETCH") << Json(e);
  EXPECT_EQ(String(e, shard0 + "inputStage.stage"), "IXSCAN") << Json(e);
  EXPECT_EQ(String(e, shard0 + "inputStage.indexName"), "score_1") << Json(e);
  EXPECT_EQ(String(e, shard0 + "inputStage.indexBounds.score.0"), "[42, 42]") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 4) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 4) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 4) << Json(e);
  // The only applicable index: no collection scan is considered (MongoDB).
  EXPECT_EQ(String(e, "queryPlanner.rejectedPlans.0.stage"), std::nullopt) << Json(e);

  // A range plus a predicate the index cannot answer: FETCH keeps the filter.
  e = Explain("s", R"("filter": {"score": {"$gte": 10, "$lt": 13}, "tag": "t2"})");
  EXPECT_EQ(String(e, shard0 + "inputStage.indexBounds.score.0"), "[10, 13)") << Json(e);
  EXPECT_TRUE(testutil::Has(e, shard0 + "filter")) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 12) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 12) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 4) << Json(e);  // score 10 only

  // count from the index alone: COUNT_SCAN, no document read.
  BsonDoc c = Run(R"({"count": "s", "query": {"score": {"$in": [1, 2, 3]}}})");
  ASSERT_OK_REPLY(c);
  EXPECT_EQ(Integer(c, "n"), 12) << Json(c);
  c = Run(R"({"explain": {"count": "s", "query": {"score": {"$in": [1, 2, 3]}}}, "verbosity": "executionStats"})");
  ASSERT_OK_REPLY(c);
  EXPECT_EQ(String(c, shard0 + "stage"), "COUNT") << Json(c);
  EXPECT_EQ(String(c, shard0 + "inputStage.stage"), "COUNT_SCAN") << Json(c);
  EXPECT_EQ(Integer(c, "executionStats.totalDocsExamined"), 0) << Json(c);
  EXPECT_EQ(Integer(c, "executionStats.totalKeysExamined"), 12) << Json(c);

  // Descending index: bounds print reversed.
  ASSERT_OK_REPLY(CreateIndex("s", R"({"key": {"tag": -1, "score": 1}, "name": "tag_score"})"));
  e = Explain("s", R"("filter": {"tag": {"$gt": "t2"}, "score": 1}, "hint": "tag_score")");
  EXPECT_EQ(String(e, shard0 + "inputStage.indexBounds.tag.0"), "({}, \"t2\")") << Json(e);
  EXPECT_EQ(String(e, shard0 + "inputStage.indexBounds.score.0"), "[1, 1]") << Json(e);
}

TEST_F(IndexQueryTest, SortedQueriesOverShardsMergeIndexStreams) {
  ASSERT_OK_REPLY(Run(R"({"create": "m", "shards": 4})"));
  std::string docs = "[";
  for (int i = 0; i < 300; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + R"(, "v": )" + std::to_string((i * 37) % 101) + "}";
  }
  InsertJson("m", docs + "]");
  ASSERT_OK_REPLY(CreateIndex("m", R"({"key": {"v": 1}, "name": "v_1"})"));
  BsonDoc e = Explain("m", R"("filter": {"v": {"$lt": 50}}, "sort": {"v": 1})");
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.stage"), "SORT_MERGE") << Json(e);
  EXPECT_EQ(ArrayLength(e, "queryPlanner.winningPlan.shards"), 4u) << Json(e);
  EXPECT_FALSE(testutil::Has(e, "executionStats.executionStages.usedDisk")) << Json(e);
  auto sorted = FindAll("m", R"({"v": {"$lt": 50}})", R"(, "sort": {"v": 1})");
  ASSERT_EQ(sorted.size(), 149u);
  int64_t last = -1;
  for (const auto& json : sorted) {
    auto v = Integer(BsonDoc::FromJson(json), "v");
    ASSERT_TRUE(v.has_value());
    EXPECT_GE(*v, last);
    last = *v;
  }
}

TEST_F(IndexQueryTest, CoveredQueriesExamineNoDocuments) {
  std::string docs = "[";
  for (int i = 0; i < 100; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + R"(, "u": "user)" + std::to_string(i) +
            R"(", "age": )" + std::to_string(20 + i % 30) + R"(, "pad": "xxxxxxxx"})";
  }
  InsertJson("c", docs + "]");
  ASSERT_OK_REPLY(CreateIndex("c", R"({"key": {"age": 1, "u": 1}, "name": "age_u"})"));
  // (A covered result lists key fields in key pattern order, as MongoDB's
  // PROJECTION_COVERED does; one projected field keeps the comparison simple.)
  const std::string args = R"("filter": {"age": {"$gte": 45}}, "projection": {"u": 1, "_id": 0})";
  BsonDoc e = Explain("c", args);
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.shards.0.winningPlan.stage"), "PROJECTION_COVERED")
      << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 0) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 15) << Json(e);
  auto covered = SortedFind("c", R"({"age": {"$gte": 45}})", R"(, "projection": {"u": 1, "_id": 0})");
  auto scanned = SortedFind("c", R"({"age": {"$gte": 45}})",
                            R"(, "projection": {"u": 1, "_id": 0}, "hint": {"$natural": 1})");
  EXPECT_EQ(covered, scanned);
  EXPECT_EQ(covered.size(), 15u);
}

TEST_F(IndexQueryTest, SparseAndPartialIndexesOnlyWhenTheQueryAllows) {
  std::string docs = "[";
  for (int i = 0; i < 60; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + (i % 3 ? R"(, "email": "e)" + std::to_string(i) + R"(")" : "") +
            R"(, "rating": )" + std::to_string(i % 10) + "}";
  }
  InsertJson("p", docs + "]");
  ASSERT_OK_REPLY(CreateIndex("p", R"({"key": {"email": 1}, "name": "email_sparse", "sparse": true})"));
  ASSERT_OK_REPLY(CreateIndex("p", R"({"key": {"rating": 1}, "name": "rating_partial", "partialFilterExpression": {"rating": {"$gt": 5}}})"));
  EXPECT_EQ(String(Explain("p", R"("filter": {"email": "e4"})"), "planner.winningPlan"),
            "IXSCAN email_sparse");
  EXPECT_EQ(String(Explain("p", R"("filter": {"email": null})"), "planner.winningPlan"), "COLLSCAN");
  EXPECT_EQ(FindAll("p", R"({"email": null})").size(), 20u);
  EXPECT_EQ(String(Explain("p", R"("filter": {"rating": {"$gte": 8}})"), "planner.winningPlan"),
            "IXSCAN rating_partial");
  EXPECT_EQ(String(Explain("p", R"("filter": {"rating": {"$gte": 3}})"), "planner.winningPlan"),
            "COLLSCAN");
  EXPECT_EQ(FindAll("p", R"({"rating": {"$gte": 8}})").size(), 12u);
}

TEST_F(IndexQueryTest, HintsAndDroppedIndexes) {
  std::string docs = "[";
  for (int i = 0; i < 40; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + R"(, "k": )" + std::to_string(i % 2) + "}";
  }
  InsertJson("h", docs + "]");
  ASSERT_OK_REPLY(CreateIndex("h", R"({"key": {"k": 1}, "name": "k_1"})"));
  BsonDoc bad = Run(R"({"find": "h", "filter": {}, "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  EXPECT_EQ(String(bad, "errmsg"), "hint provided does not correspond to an existing index");
  bad = Run(R"({"find": "h", "filter": {}, "hint": {"k": -1}})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  BsonDoc e = Explain("h", R"("filter": {}, "hint": {"k": 1})");
  EXPECT_EQ(String(e, "planner.winningPlan"), "IXSCAN k_1") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 40) << Json(e);

  BsonDoc first = Run(R"({"find": "h", "filter": {"k": 1}, "hint": "k_1", "batchSize": 2})");
  ASSERT_OK_REPLY(first);
  int64_t id = Integer(first, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  ASSERT_OK_REPLY(Run(R"({"dropIndexes": "h", "index": "k_1"})"));
  BsonDoc more = GetMore(id, "h");
  EXPECT_ERROR_REPLY(more, 175, "QueryPlanKilled");
}

TEST_F(IndexQueryTest, MultikeyIndexReturnsEachDocumentOnce) {
  InsertJson("t", R"([{"_id": 1, "tags": ["a", "b", "c", "b"]}, {"_id": 2, "tags": ["b"]},
                       {"_id": 3, "tags": "b"}, {"_id": 4, "tags": ["x"]}])");
  ASSERT_OK_REPLY(CreateIndex("t", R"({"key": {"tags": 1}, "name": "tags_1"})"));
  EXPECT_EQ(FindAll("t", R"({"tags": {"$gte": "b"}})", R"(, "hint": "tags_1")").size(), 4u);
  EXPECT_EQ(FindAll("t", R"({"tags": {"$in": ["a", "b"]}})", R"(, "hint": "tags_1")").size(), 3u);
  BsonDoc e = Explain("t", R"("filter": {"tags": "b"}, "hint": "tags_1")");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 3) << Json(e);
  EXPECT_EQ(testutil::Number(e, "queryPlanner.winningPlan.shards.0.winningPlan.inputStage.isMultiKey"),
            1.0) << Json(e);
}

}  // namespace
}  // namespace tigerdoc::e2e
