// Wildcard indexes through libmongoc: createIndexes and its refusals with
// MongoDB 7's codes, queries answered from {$_path, <path>} scans with the
// same documents as a collection scan, explain's expanded key pattern,
// returnKey, hints, min/max (51174), sorts the index provides until the
// path holds an array, several writers at once, and multikey paths that
// survive kill -9.

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Integer;
using testutil::Json;
using testutil::String;

constexpr char kShard0[] = "queryPlanner.winningPlan.shards.0.winningPlan.";

class WildcardIndexTest : public E2eTest {
 protected:
  BsonDoc CreateIndex(const std::string& coll, const std::string& spec) {
    return Run(R"({"createIndexes": ")" + coll + R"(", "indexes": [)" + spec + "]}");
  }

  // Every document of a find (first batch and getMores of 5), sorted as JSON
  // unless `keep_order`.
  std::vector<std::string> FindAll(const std::string& coll, const std::string& filter,
                                   const std::string& extra = "", bool keep_order = false) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter +
                    R"(, "batchSize": 5)" + extra + "}");
    EXPECT_OK_REPLY(r);
    std::vector<std::string> out;
    for (const auto& d : testutil::DocArray(r, "cursor.firstBatch")) out.push_back(Json(d));
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      BsonDoc more = GetMore(id, coll, 5);
      EXPECT_OK_REPLY(more);
      for (const auto& d : testutil::DocArray(more, "cursor.nextBatch")) out.push_back(Json(d));
      id = Integer(more, "cursor.id").value_or(0);
    }
    if (!keep_order) std::sort(out.begin(), out.end());
    return out;
  }

  BsonDoc Explain(const std::string& coll, const std::string& find_args) {
    BsonDoc r = Run(R"({"explain": {"find": ")" + coll + R"(", )" + find_args +
                    R"(}, "verbosity": "executionStats"})");
    EXPECT_OK_REPLY(r);
    return r;
  }
};

constexpr char kDocs[] = R"([
  {"_id": 1, "a": 1, "b": {"c": 1, "d": "x"}}, {"_id": 2, "a": 2, "b": {"c": 2}},
  {"_id": 3, "a": [1, 5, [9]], "b": [{"c": 3}, {"c": 4, "d": "y"}]},
  {"_id": 4, "a": null, "b": {}}, {"_id": 5, "b": []}, {"_id": 6, "a": "abc", "b": {"c": [5, 6]}},
  {"_id": 7, "a": {"x": 1}, "b": [[{"c": 1}]]}, {"_id": 8, "a": [], "b": {"c": {"e": 1}}},
  {"_id": 9, "a": 5.5, "b": {"c": null}}, {"_id": 10, "a": [{"x": 2}, {"x": 3}], "c": true}
])";

TEST_F(WildcardIndexTest, CreateListAndRefuseAsMongoDb) {
  ASSERT_OK_REPLY(CreateIndex("w", R"({"key": {"$**": 1}, "name": "all"})"));
  ASSERT_OK_REPLY(CreateIndex("w", R"({"key": {"b.$**": -1}})"));
  ASSERT_OK_REPLY(CreateIndex(
      "p", R"({"key": {"$**": 1}, "wildcardProjection": {"a": 1, "b.c": 1}, "name": "proj"})"));
  BsonDoc list = Run(R"({"listIndexes": "p"})");
  ASSERT_OK_REPLY(list);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(list, "cursor.firstBatch.1.wildcardProjection")),
            testutil::CanonicalJson(R"({"a": 1, "b.c": 1})"))
      << Json(list);
  list = Run(R"({"listIndexes": "w"})");
  EXPECT_EQ(String(list, "cursor.firstBatch.2.name"), "b.$**_-1") << Json(list);

  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"$**": 1}, "name": "s", "sparse": true})"), 67,
                     "CannotCreateIndex");
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"$**": 1}, "name": "u", "unique": true})"), 67,
                     "CannotCreateIndex");
  EXPECT_ERROR_REPLY(
      CreateIndex("w", R"({"key": {"$**": 1}, "name": "t", "expireAfterSeconds": 10})"), 67,
      "CannotCreateIndex");
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"a": 1, "$**": 1}})"), 67, "CannotCreateIndex");
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"$**": "hashed"}})"), 67, "CannotCreateIndex");
  EXPECT_ERROR_REPLY(
      CreateIndex("w", R"({"key": {"$**": 1}, "name": "m", "wildcardProjection": {"a": 1, "b": 0}})"),
      31254, "Location31254");
  EXPECT_ERROR_REPLY(
      CreateIndex("w", R"({"key": {"$**": 1}, "name": "e", "wildcardProjection": {}})"), 9,
      "FailedToParse");
  EXPECT_ERROR_REPLY(
      CreateIndex("w", R"({"key": {"b.$**": 1}, "name": "r", "wildcardProjection": {"b": 1}})"), 9,
      "FailedToParse");
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"a": 1}, "wildcardProjection": {"a": 1}})"), 2,
                     "BadValue");
  // The server keeps serving.
  EXPECT_EQ(ArrayLength(Run(R"({"listIndexes": "w"})"), "cursor.firstBatch"), 3u);
}

TEST_F(WildcardIndexTest, ResultsEqualACollectionScanAndExplainShowsTheExpandedKey) {
  InsertJson("q", kDocs);
  ASSERT_OK_REPLY(CreateIndex("q", R"({"key": {"$**": 1}})"));
  const std::vector<std::string> filters = {
      R"({"a": 1})", R"({"a": 9})", R"({"a": {"$gt": 1}})", R"({"a": {"$gte": 1, "$lt": 5.5}})",
      R"({"a": {"$in": [2, "abc"]}})", R"({"a": {"$regex": "^ab"}})", R"({"a": {"$exists": true}})",
      R"({"a.x": {"$gte": 2}})", R"({"b.c": 1})", R"({"b.c": {"$lte": 4}})", R"({"b.c": {"$exists": true}})",
      R"({"b.d": "y"})", R"({"b": {"$exists": true}})", R"({"a": null})", R"({"a": {"$ne": 1}})",
      R"({"a": [9]})", R"({"a": {"x": 1}})", R"({"b": {}})", R"({"a.0": 1})", R"({"b.c.e": 1, "a": []})",
      R"({"a": 1, "b.c": {"$gt": 0}})", R"({"$or": [{"a": 2}, {"b.c": 5}]})", R"({"c": true})"};
  for (const std::string& filter : filters) {
    EXPECT_EQ(FindAll("q", filter), FindAll("q", filter, R"(, "hint": {"$natural": 1})"))
        << filter;
  }
  BsonDoc e = Explain("q", R"("filter": {"b.c": {"$gte": 2}})");
  const std::string ixscan = std::string(kShard0) + "inputStage.";
  EXPECT_EQ(String(e, std::string(kShard0) + "stage"), "FETCH") << Json(e);
  EXPECT_EQ(String(e, ixscan + "stage"), "IXSCAN") << Json(e);
  EXPECT_EQ(String(e, ixscan + "indexName"), "$**_1") << Json(e);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(e, ixscan + "keyPattern")),
            testutil::CanonicalJson(R"({"$_path": 1, "b.c": 1})"))
      << Json(e);
  EXPECT_EQ(String(e, ixscan + "indexBounds.$_path.0"), R"(["b.c", "b.c"])") << Json(e);
  EXPECT_EQ(String(e, ixscan + "indexBounds.b\\.c.0"), std::nullopt);  // (path has a dot)
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 3) << Json(e);  // _ids 2, 3, 6
  // {$exists: true} reads the path and every path below it.
  e = Explain("q", R"("filter": {"b": {"$exists": true}})");
  EXPECT_EQ(String(e, ixscan + "indexBounds.$_path.1"), R"(["b.", "b/"))") << Json(e);
  // A query the index cannot answer scans the collection.
  e = Explain("q", R"("filter": {"a": null})");
  EXPECT_EQ(String(e, std::string(kShard0) + "stage"), "COLLSCAN") << Json(e);
}

TEST_F(WildcardIndexTest, ReturnKeyHintsAndMinMax) {
  InsertJson("k", R"([{"_id": 1, "a": 1, "c": {"e": 1}}, {"_id": 2, "a": 2, "c": {"e": 2}},
                      {"_id": 3, "a": 1, "f": [1, 2]}])");
  ASSERT_OK_REPLY(CreateIndex("k", R"({"key": {"$**": 1}})"));
  ASSERT_OK_REPLY(CreateIndex("k", R"({"key": {"a": 1}})"));
  ASSERT_OK_REPLY(CreateIndex("k", R"({"key": {"c.$**": 1}})"));
  EXPECT_EQ(FindAll("k", R"({"c.e": 1})", R"(, "hint": {"$**": 1}, "returnKey": true)"),
            std::vector<std::string>{Json(BsonDoc::FromJson(R"({"$_path": "c.e", "c.e": 1})"))});
  EXPECT_EQ(FindAll("k", R"({"f": 2})", R"(, "returnKey": true)"),
            std::vector<std::string>{Json(BsonDoc::FromJson(R"({"$_path": "f", "f": 2})"))});
  EXPECT_EQ(FindAll("k", R"({"a": 1})", R"(, "hint": "$**_1", "projection": {"_id": 1})"),
            FindAll("k", R"({"a": 1})", R"(, "hint": "a_1", "projection": {"_id": 1})"));
  EXPECT_EQ(FindAll("k", R"({"c.e": 2})", R"(, "hint": {"c.$**": 1})").size(), 1u);
  EXPECT_ERROR_REPLY(Run(R"({"find": "k", "filter": {"a": 1}, "hint": {"c.$**": 1}})"), 291,
                     "NoQueryExecutionPlans");
  EXPECT_ERROR_REPLY(Run(R"({"find": "k", "filter": {"a": 1}, "min": {"a": 1}, "hint": {"$**": 1}})"),
                     51174, "Location51174");
  EXPECT_ERROR_REPLY(Run(R"({"find": "k", "max": {"a": 1}, "hint": "$**_1"})"), 51174,
                     "Location51174");
  EXPECT_ERROR_REPLY(Run(R"({"find": "k", "filter": {"a": 1}, "hint": {"b.$**": 1}})"), 2,
                     "BadValue");
}

TEST_F(WildcardIndexTest, SortIsProvidedUntilThePathHoldsAnArray) {
  std::string docs = "[";
  for (int i = 0; i < 40; ++i) {
    docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) + R"(, "n": )" +
            std::to_string((i * 17) % 40) + "}";
  }
  InsertJson("s", docs + "]");
  ASSERT_OK_REPLY(CreateIndex("s", R"({"key": {"$**": 1}})"));
  const std::string args = R"("filter": {"n": {"$gte": 10}}, "sort": {"n": -1})";
  BsonDoc e = Explain("s", args);
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.stage"), "SORT_MERGE") << Json(e);
  EXPECT_EQ(Json(e).find(R"("SORT")"), std::string::npos) << Json(e);
  std::vector<std::string> sorted = FindAll("s", R"({"n": {"$gte": 10}})",
                                            R"(, "sort": {"n": -1})", /*keep_order=*/true);
  ASSERT_EQ(sorted.size(), 30u);
  EXPECT_EQ(sorted.front(), Json(BsonDoc::FromJson(R"({"_id": 7, "n": 39})")));

  InsertJson("s", R"([{"_id": 100, "n": [50, 1]}])");
  e = Explain("s", args);
  EXPECT_NE(Json(e).find(R"("SORT")"), std::string::npos) << Json(e);
  sorted = FindAll("s", R"({"n": {"$gte": 10}})", R"(, "sort": {"n": -1})", true);
  ASSERT_EQ(sorted.size(), 31u);
  EXPECT_EQ(sorted.front(), Json(BsonDoc::FromJson(R"({"_id": 100, "n": [50, 1]})")));
}

TEST_F(WildcardIndexTest, WritersOnSeveralConnectionsKeepTheIndexExact) {
  ASSERT_OK_REPLY(CreateIndex("c", R"({"key": {"$**": 1}})"));
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([this, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < 50; ++i) {
        const int id = t * 1000 + i;
        const std::string v = std::to_string(i % 7);
        std::string doc = R"({"_id": )" + std::to_string(id) +
                          (i % 3 == 0 ? R"(, "x": [)" + v + ", {\"y\": " + v + "}]"
                                      : R"(, "x": {"y": )" + v + "}") +
                          "}";
        BsonDoc r = client.RunCommand(db_, R"({"insert": "c", "documents": [)" + doc + "]}");
        EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
        if (i % 5 == 0) {
          r = client.RunCommand(db_, R"({"update": "c", "updates": [{"q": {"_id": )" +
                                         std::to_string(id) +
                                         R"(}, "u": {"$set": {"x.y": 99}}}]})");
          EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  for (const char* filter : {R"({"x.y": 3})", R"({"x.y": 99})", R"({"x": 3})",
                             R"({"x.y": {"$lt": 2}})", R"({"x": {"$exists": true}})"}) {
    EXPECT_EQ(FindAll("c", filter), FindAll("c", filter, R"(, "hint": {"$natural": 1})"))
        << filter;
  }
}

TEST_F(WildcardIndexTest, MultikeyPathsSurviveAKill9) {
  ASSERT_OK_REPLY(CreateIndex("r", R"({"key": {"$**": 1}})"));
  InsertJson("r", R"([{"_id": 1, "a": [3, 1]}, {"_id": 2, "a": 2}])");
  // A crash right after the acknowledged insert: the multikey path went to
  // the catalog in the insert's transaction.
  client_.reset();
  server_->Kill9();
  ASSERT_TRUE(server_->Restart().ok()) << server_->LogTail();
  client_ = std::make_unique<MongoClient>(server_->uri());
  // Were "a" forgotten as multikey, the index would claim the sort and put
  // document 1 at its key in the bounds (3), after document 2; its sort key
  // is its smallest element (1).
  std::vector<std::string> sorted =
      FindAll("r", R"({"a": {"$gte": 2}})", R"(, "sort": {"a": 1})", true);
  ASSERT_EQ(sorted.size(), 2u);
  EXPECT_EQ(sorted[0], Json(BsonDoc::FromJson(R"({"_id": 1, "a": [3, 1]})")));
  BsonDoc e = Explain("r", R"("filter": {"a": {"$gte": 2}}, "sort": {"a": 1})");
  EXPECT_NE(Json(e).find(R"("SORT")"), std::string::npos) << Json(e);
  EXPECT_EQ(FindAll("r", R"({"a": 1})").size(), 1u);
}

}  // namespace
}  // namespace tigerdoc::e2e
