// Wildcard indexes through libmongoc: createIndexes and its refusals with
// MongoDB 7's codes, queries answered from {$_path, <path>} scans with the
// same documents as a collection scan, explain's expanded key pattern,
// returnKey, hints, min/max (51174), sorts the index provides until the
// path holds an array, several writers at once, and multikey paths that
// survive kill -9.

#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/index_query_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::Integer;
using testutil::Json;
using testutil::String;

constexpr char kShard0[] = "queryPlanner.winningPlan.shards.0.winningPlan.";

using WildcardIndexTest = IndexQueryE2eTest;

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
  // Compound wildcard shapes: MongoDB 7's codes for the invalid ones; the
  // valid ones are refused until tigerdoc has them (TODO(#19)).
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"a.$**": 1, "b.$**": 1}})"), 7246201,
                     "Location7246201");
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"a.b.c": 1, "a.b.$**": 1}})"), 7246204,
                     "Location7246204");
  EXPECT_ERROR_REPLY(CreateIndex("w", R"({"key": {"attrs.$**": 1, "ts": -1}})"), 67,
                     "CannotCreateIndex");
  EXPECT_ERROR_REPLY(
      CreateIndex("w", R"({"key": {"tenant": 1, "$**": 1}, "wildcardProjection": {"tenant": 0}})"),
      67, "CannotCreateIndex");
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
    EXPECT_EQ(SortedFind("q", filter), SortedFind("q", filter, R"(, "hint": {"$natural": 1})"))
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
  EXPECT_EQ(SortedFind("k", R"({"c.e": 1})", R"(, "hint": {"$**": 1}, "returnKey": true)"),
            std::vector<std::string>{Json(BsonDoc::FromJson(R"({"$_path": "c.e", "c.e": 1})"))});
  EXPECT_EQ(SortedFind("k", R"({"f": 2})", R"(, "returnKey": true)"),
            std::vector<std::string>{Json(BsonDoc::FromJson(R"({"$_path": "f", "f": 2})"))});
  EXPECT_EQ(SortedFind("k", R"({"a": 1})", R"(, "hint": "$**_1", "projection": {"_id": 1})"),
            SortedFind("k", R"({"a": 1})", R"(, "hint": "a_1", "projection": {"_id": 1})"));
  EXPECT_EQ(SortedFind("k", R"({"c.e": 2})", R"(, "hint": {"c.$**": 1})").size(), 1u);
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
                                            R"(, "sort": {"n": -1})");
  ASSERT_EQ(sorted.size(), 30u);
  EXPECT_EQ(sorted.front(), Json(BsonDoc::FromJson(R"({"_id": 7, "n": 39})")));

  InsertJson("s", R"([{"_id": 100, "n": [50, 1]}])");
  e = Explain("s", args);
  EXPECT_NE(Json(e).find(R"("SORT")"), std::string::npos) << Json(e);
  sorted = FindAll("s", R"({"n": {"$gte": 10}})", R"(, "sort": {"n": -1})");
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
    EXPECT_EQ(SortedFind("c", filter), SortedFind("c", filter, R"(, "hint": {"$natural": 1})"))
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
      FindAll("r", R"({"a": {"$gte": 2}})", R"(, "sort": {"a": 1})");
  ASSERT_EQ(sorted.size(), 2u);
  EXPECT_EQ(sorted[0], Json(BsonDoc::FromJson(R"({"_id": 1, "a": [3, 1]})")));
  BsonDoc e = Explain("r", R"("filter": {"a": {"$gte": 2}}, "sort": {"a": 1})");
  EXPECT_NE(Json(e).find(R"("SORT")"), std::string::npos) << Json(e);
  EXPECT_EQ(SortedFind("r", R"({"a": 1})").size(), 1u);
}

// Arrays, arrays in arrays, documents in arrays, fields named like
// positions, missing and mixed-type values: what positional paths reach.
constexpr char kPositionalDocs[] = R"([
  {"_id": 1, "a": [5, 6]}, {"_id": 2, "a": [[5], 7]}, {"_id": 3, "a": {"0": 5, "1": [6]}},
  {"_id": 4, "a": [{"0": 5}, {"b": 6}]}, {"_id": 5, "a": [{"b": 5}, {"b": [6, 7]}]},
  {"_id": 6, "a": [[{"b": 5}], {"b": 8}]}, {"_id": 7, "a": 5}, {"_id": 8},
  {"_id": 9, "a": [null, "x"]}, {"_id": 10, "a": [], "c": 1}, {"_id": 11, "a": [[]]},
  {"_id": 12, "a": {"b": [{"0": 6}, 5]}}, {"_id": 13, "a": ["5", 5.0, {"$numberLong": "6"}]},
  {"_id": 14, "a": [{"b": {"c": [1, [2]]}}]}, {"_id": 15, "a": {"0": {"b": 5}}}
])";

TEST_F(WildcardIndexTest, PositionalPathsReadTheArraysPathAndEqualACollectionScan) {
  InsertJson("pos", kPositionalDocs);
  ASSERT_OK_REPLY(CreateIndex("pos", R"({"key": {"$**": 1}})"));
  const std::vector<std::string> filters = {
      R"({"a.0": 5})", R"({"a.1": 6})", R"({"a.1": {"$gte": 6}})", R"({"a.0": {"$lt": 6}})",
      R"({"a.0": {"$in": [5, "x"]}})", R"({"a.0": {"$exists": true}})", R"({"a.1": "x"})",
      R"({"a.0.b": 5})", R"({"a.1.b": {"$gt": 5}})", R"({"a.0.b": {"$exists": true}})",
      R"({"a.1.b.0": 6})", R"({"a.0.0": 5})", R"({"a.0.b.c.1": 2})", R"({"a.0": {"$regex": "^x"}})",
      R"({"a.0.0.b": 5})", R"({"a.0": null})", R"({"a.1": {"$ne": 6}})", R"({"a.b.0.0": 6})",
      R"({"a.0": 5, "c": 1})", R"({"a.0": {"$gt": 4, "$lt": 8}})"};
  for (const std::string& filter : filters) {
    EXPECT_EQ(SortedFind("pos", filter), SortedFind("pos", filter, R"(, "hint": {"$natural": 1})"))
        << filter;
  }
  // "a" held arrays: the scan reads the element keys under "a" and fields
  // named "0" under "a.0"; values include arrays (an array inside an array
  // is keyed whole), and the documents are filtered after the fetch.
  BsonDoc e = Explain("pos", R"("filter": {"a.0": 5})");
  const std::string ixscan = std::string(kShard0) + "inputStage.";
  EXPECT_EQ(String(e, ixscan + "stage"), "IXSCAN") << Json(e);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(e, ixscan + "keyPattern")),
            testutil::CanonicalJson(R"({"$_path": 1, "a.0": 1})"))
      << Json(e);
  EXPECT_EQ(String(e, ixscan + "indexBounds.$_path.0"), R"(["a", "a"])") << Json(e);
  EXPECT_EQ(String(e, ixscan + "indexBounds.$_path.1"), R"(["a.0", "a.0"])") << Json(e);
  // {a: [5, 6]}, {a: {"0": 5}} and {a: [{"0": 5}]}, whichever key holds them.
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 3) << Json(e);
  EXPECT_EQ(SortedFind("pos", R"({"a.0": 5})").size(), 3u);
  // Two positions in a row after an array: only a collection scan finds
  // elements of nested arrays.
  e = Explain("pos", R"("filter": {"a.0.0": 5})");
  EXPECT_EQ(String(e, std::string(kShard0) + "stage"), "COLLSCAN") << Json(e);
}

TEST_F(WildcardIndexTest, CollatedIndexServesQueriesOfItsCollation) {
  InsertJson("coll", R"([{"_id": 1, "s": "abc"}, {"_id": 2, "s": "ABC"}, {"_id": 3, "s": "abd"},
                         {"_id": 4, "s": ["Abc", "x"]}, {"_id": 5, "s": {"t": "aBc"}},
                         {"_id": 6, "s": 5}, {"_id": 7}, {"_id": 8, "s": "b"}, {"_id": 9, "s": [["abc"]]},
                         {"_id": 10, "s": "\u00e1bc"}])");
  ASSERT_OK_REPLY(CreateIndex(
      "coll", R"({"key": {"$**": 1}, "collation": {"locale": "en", "strength": 2}})"));
  const std::string collation = R"(, "collation": {"locale": "en", "strength": 2})";
  const std::vector<std::string> filters = {
      R"({"s": "abc"})", R"({"s": "ABD"})", R"({"s": {"$gt": "ABC"}})", R"({"s": {"$lte": "abd"}})",
      R"({"s": {"$in": ["AbC", 5]}})", R"({"s.t": "ABC"})", R"({"s": {"$regex": "^a"}})",
      R"({"s": {"$exists": true}})", R"({"s.0": "abc"})", R"({"s": {"$gte": "a", "$lt": "b"}})"};
  for (const std::string& filter : filters) {
    std::vector<std::string> expected =
        SortedFind("coll", filter, collation + R"(, "hint": {"$natural": 1})");
    EXPECT_EQ(SortedFind("coll", filter, collation), expected) << filter;
    EXPECT_EQ(SortedFind("coll", filter, collation + R"(, "hint": {"$**": 1})"), expected) << filter;
    // Without the collation the index does not apply: binary comparison.
    EXPECT_EQ(SortedFind("coll", filter), SortedFind("coll", filter, R"(, "hint": {"$natural": 1})"))
        << filter;
  }
  EXPECT_EQ(SortedFind("coll", R"({"s": "abc"})", collation).size(), 3u);  // 1, 2, 4
  BsonDoc e = Explain("coll", R"("filter": {"s": "abc"})" + collation);
  const std::string ixscan = std::string(kShard0) + "inputStage.";
  EXPECT_EQ(String(e, ixscan + "stage"), "IXSCAN") << Json(e);
  EXPECT_EQ(String(e, ixscan + "collation.locale"), "en") << Json(e);
  EXPECT_EQ(String(e, ixscan + "indexBounds.$_path.0"), R"(["s", "s"])") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 3) << Json(e);
  e = Explain("coll", R"("filter": {"s": "abc"})");
  EXPECT_EQ(String(e, std::string(kShard0) + "stage"), "COLLSCAN") << Json(e);
}

// Result sets just below, at and above the first batch (101), read with
// the default batch sizes, while other connections insert.
TEST_F(WildcardIndexTest, BatchBoundariesAndConcurrentInsertsEqualACollectionScan) {
  ASSERT_OK_REPLY(CreateIndex("b", R"({"key": {"$**": 1}})"));
  std::string docs = "[";
  for (int i = 0; i < 400; ++i) {
    const std::string n = std::to_string(i);
    std::string doc = R"({"_id": )" + n + R"(, "k": )" + std::to_string(i % 4);
    // 100 documents per k: k <= 0 is 100, k <= 1 is 200 ...; g: nested
    // arrays and positions.
    doc += i % 3 == 0 ? R"(, "g": [)" + std::to_string(i % 5) + R"(, [1, 2]])"
                      : (i % 3 == 1 ? R"(, "g": {"0": )" + std::to_string(i % 5) + "}" : "");
    docs += (i ? "," : "") + doc + "}";
  }
  InsertJson("b", docs + "]");
  InsertJson("b", R"([{"_id": 1000, "k": 0}])");  // k 0: 101 documents
  InsertJson("b", R"([{"_id": 1001, "k": 1}, {"_id": 1002, "k": 1}])");  // k 1: 102
  const std::vector<std::string> filters = {
      R"({"k": 3})", R"({"k": 0})", R"({"k": 1})", R"({"k": {"$lte": 2}})", R"({"g.0": 2})",
      R"({"g.0": {"$gte": 1}})", R"({"g.1": [1, 2]})", R"({"g.1.0": 1})", R"({"k": {"$gte": 0}})"};
  for (const std::string& filter : filters) {
    EXPECT_EQ(SortedFind("b", filter, "", 0),
              SortedFind("b", filter, R"(, "hint": {"$natural": 1})", 0))
        << filter;
  }
  EXPECT_EQ(SortedFind("b", R"({"k": 3})", "", 0).size(), 100u);
  EXPECT_EQ(SortedFind("b", R"({"k": 0})", "", 0).size(), 101u);
  EXPECT_EQ(SortedFind("b", R"({"k": 1})", "", 0).size(), 102u);

  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([this, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < 60; ++i) {
        const int id = 10000 + t * 1000 + i;
        std::string doc = R"({"_id": )" + std::to_string(id) + R"(, "k": )" + std::to_string(i % 4) +
                          R"(, "g": [)" + std::to_string(i % 5) + R"(, {"0": )" + std::to_string(i % 3) +
                          "}]}";
        BsonDoc r = client.RunCommand(db_, R"({"insert": "b", "documents": [)" + doc + "]}");
        EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([this, &done] {
      MongoClient client(server_->uri());
      while (!done.load()) {
        // Every document the index returns matches, once: k is 2.
        BsonDoc r = client.RunCommand(db_, R"({"find": "b", "filter": {"k": 2}, "batchSize": 1000})");
        EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
        std::set<int64_t> ids;
        for (const auto& d : testutil::DocArray(r, "cursor.firstBatch")) {
          EXPECT_EQ(Integer(d, "k"), 2) << Json(d);
          EXPECT_TRUE(ids.insert(Integer(d, "_id").value_or(-1)).second) << Json(d);
        }
        EXPECT_GE(ids.size(), 100u);
      }
    });
  }
  for (int t = 0; t < 3; ++t) threads[t].join();
  done = true;
  for (size_t t = 3; t < threads.size(); ++t) threads[t].join();
  for (const std::string& filter : filters) {
    EXPECT_EQ(SortedFind("b", filter, "", 0),
              SortedFind("b", filter, R"(, "hint": {"$natural": 1})", 0))
        << filter;
  }
}

}  // namespace
}  // namespace tigerdoc::e2e
