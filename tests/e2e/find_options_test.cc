// find's options end to end: maxTimeMS (find, getMore, count, distinct),
// hint, min/max, returnKey, showRecordId, let, comment, singleBatch,
// negative limit, batchSize 0, tailable/awaitData; and explain of find and
// count at the three verbosities, with SORT limitAmount, LIMIT and SKIP.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::DocArray;
using testutil::Has;
using testutil::Integer;
using testutil::Json;
using testutil::Number;
using testutil::String;
using testutil::TypeAt;

using IdList = std::vector<int64_t>;

class FindOptionsTest : public E2eTest {
 protected:
  // _id 0..n-1, g = _id % 5, s = "v<_id>".
  void Fill(const std::string& coll, int n) {
    std::vector<BsonDoc> docs;
    for (int i = 0; i < n; ++i) {
      BsonDoc d;
      BSON_APPEND_INT32(d.mutable_get(), "_id", i);
      BSON_APPEND_INT32(d.mutable_get(), "g", i % 5);
      BSON_APPEND_UTF8(d.mutable_get(), "s", ("v" + std::to_string(i)).c_str());
      docs.push_back(std::move(d));
    }
    BsonDoc r = client_->InsertMany(db_, coll, docs);
    ASSERT_EQ(Integer(r, "insertedCount"), n) << Json(r);
  }
};

// ---- maxTimeMS ---------------------------------------------------------------

TEST_F(FindOptionsTest, MaxTimeMSIsValidatedAsMongoDBDoes) {
  Fill("c", 3);
  BsonDoc r = Run(R"({"find": "c", "maxTimeMS": "1"})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "maxTimeMS must be a number") << Json(r);
  r = Run(R"({"find": "c", "maxTimeMS": -1})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "-1 value for maxTimeMS is out of range [0, 2147483647]") << Json(r);
  r = Run(R"({"count": "c", "maxTimeMS": 2147483648})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  r = Run(R"({"distinct": "c", "key": "g", "maxTimeMS": 1.5})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "maxTimeMS has non-integral value") << Json(r);
  // Whole doubles, zero (no limit) and generous limits are fine.
  EXPECT_OK_REPLY(Run(R"({"find": "c", "maxTimeMS": 1000.0})"));
  EXPECT_OK_REPLY(Run(R"({"find": "c", "maxTimeMS": 0})"));
  EXPECT_OK_REPLY(Run(R"({"count": "c", "query": {"g": 1}, "maxTimeMS": 60000})"));
  EXPECT_OK_REPLY(Run(R"({"distinct": "c", "key": "g", "maxTimeMS": 60000})"));
}

TEST_F(FindOptionsTest, LongScansExceedMaxTimeMS) {
  // 100,000 documents scanned with a filter nothing matches: far more than
  // a millisecond of work.
  std::vector<BsonDoc> docs;
  for (int i = 0; i < 100000; ++i) {
    BsonDoc d;
    BSON_APPEND_INT32(d.mutable_get(), "_id", i);
    BSON_APPEND_UTF8(d.mutable_get(), "s", "some text to match a regular expression against");
    docs.push_back(std::move(d));
  }
  BsonDoc ins = client_->InsertMany(db_, "big", docs);
  ASSERT_EQ(Integer(ins, "insertedCount"), 100000) << Json(ins);
  const std::string filter = R"({"s": {"$regex": "x+y+z+$"}})";
  BsonDoc r = Run(R"({"find": "big", "filter": )" + filter + R"(, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  EXPECT_EQ(String(r, "errmsg"), "operation exceeded time limit") << Json(r);
  r = Run(R"({"count": "big", "query": )" + filter + R"(, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  r = Run(R"({"find": "big", "sort": {"s": -1, "_id": -1}, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  r = Run(R"({"distinct": "big", "key": "s", "query": )" + filter + R"(, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  // The same queries finish without the limit.
  r = Run(R"({"count": "big", "query": )" + filter + "}");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 0);
}

TEST_F(FindOptionsTest, GetMoreRefusesItsOwnMaxTimeMSButKeepsTheCursor) {
  Fill("c", 10);
  BsonDoc r = Run(R"({"find": "c", "batchSize": 2, "maxTimeMS": 60000})");
  ASSERT_OK_REPLY(r);
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  BsonDoc cmd;
  BSON_APPEND_INT64(cmd.mutable_get(), "getMore", id);
  BSON_APPEND_UTF8(cmd.mutable_get(), "collection", "c");
  BSON_APPEND_INT32(cmd.mutable_get(), "maxTimeMS", 1000);
  BsonDoc g = Run(cmd);
  EXPECT_ERROR_REPLY(g, 2, "BadValue");
  EXPECT_EQ(String(g, "errmsg"), "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
      << Json(g);
  // The find's own limit carries over; the cursor still works.
  g = GetMore(id, "c");
  ASSERT_OK_REPLY(g);
  EXPECT_EQ(ArrayLength(g, "cursor.nextBatch"), 8u) << Json(g);
}

// ---- hint, min/max, returnKey, showRecordId ------------------------------------

TEST_F(FindOptionsTest, HintNamesTheIdIndexOrNaturalOrder) {
  Fill("c", 20);
  for (const char* hint : {R"("_id_")", R"({"_id": 1})", R"({"$natural": 1})", "{}"}) {
    BsonDoc r = Run(std::string(R"({"find": "c", "filter": {"g": 2}, "hint": )") + hint + "}");
    ASSERT_OK_REPLY(r);
    EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 4u) << hint << " " << Json(r);
  }
  // The _id index returns _id order.
  BsonDoc r = Run(R"({"find": "c", "hint": {"_id": 1}, "batchSize": 20})");
  IdList want;
  for (int i = 0; i < 20; ++i) want.push_back(i);
  EXPECT_EQ(Ids(r), want) << Json(r);

  for (const char* hint : {R"("g_1")", R"({"g": 1})", R"({"_id": -1})"}) {
    BsonDoc bad = Run(std::string(R"({"find": "c", "hint": )") + hint + "}");
    EXPECT_ERROR_REPLY(bad, 2, "BadValue");
    EXPECT_EQ(String(bad, "errmsg"), "hint provided does not correspond to an existing index")
        << Json(bad);
  }
  // {$natural: -1} is natural order reversed, as a hint or as the sort.
  BsonDoc forward = Run(R"({"find": "c", "hint": {"$natural": 1}, "batchSize": 20})");
  ASSERT_OK_REPLY(forward);
  IdList reversed = Ids(forward);
  ASSERT_EQ(reversed.size(), 20u) << Json(forward);
  std::reverse(reversed.begin(), reversed.end());
  BsonDoc reverse = Run(R"({"find": "c", "hint": {"$natural": -1}, "batchSize": 20})");
  ASSERT_OK_REPLY(reverse);
  EXPECT_EQ(Ids(reverse), reversed) << Json(reverse);
  reverse = Run(R"({"find": "c", "sort": {"$natural": -1}, "batchSize": 20})");
  ASSERT_OK_REPLY(reverse);
  EXPECT_EQ(Ids(reverse), reversed) << Json(reverse);
}

TEST_F(FindOptionsTest, MinAndMaxBoundTheHintedIdIndex) {
  Fill("c", 30);
  BsonDoc r = Run(R"({"find": "c", "hint": {"_id": 1}, "min": {"_id": 5}, "max": {"_id": 9}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (IdList{5, 6, 7, 8}));
  r = Run(R"({"find": "c", "hint": "_id_", "min": {"_id": 26}})");
  EXPECT_EQ(Ids(r), (IdList{26, 27, 28, 29})) << Json(r);

  r = Run(R"({"find": "c", "min": {"_id": 5}})");
  EXPECT_ERROR_REPLY(r, 51173, "Location51173");
  EXPECT_NE(String(r, "errmsg").value_or("").find(
                "When using min()/max() a hint of which index to use must be provided"),
            std::string::npos)
      << Json(r);
  r = Run(R"({"find": "c", "max": {"_id": 5}, "hint": {"$natural": 1}})");
  EXPECT_ERROR_REPLY(r, 291, "NoQueryExecutionPlans");
  r = Run(R"({"find": "c", "min": {"g": 1}, "hint": {"_id": 1}})");
  EXPECT_ERROR_REPLY(r, 51174, "Location51174");
  r = Run(R"({"find": "c", "min": {"_id": 9}, "max": {"_id": 5}, "hint": {"_id": 1}})");
  EXPECT_ERROR_REPLY(r, 51175, "Location51175");
}

TEST_F(FindOptionsTest, ReturnKeyGivesIndexKeysOrEmptyDocuments) {
  Fill("c", 6);
  BsonDoc r = Run(R"({"find": "c", "filter": {"_id": {"$lt": 3}}, "returnKey": true, "sort": {"_id": 1}})");
  ASSERT_OK_REPLY(r);
  std::vector<BsonDoc> docs = DocArray(r, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 3u);
  for (const BsonDoc& d : docs) EXPECT_TRUE(d.empty()) << Json(d);

  r = Run(R"({"find": "c", "filter": {"_id": {"$lt": 3}}, "returnKey": true, "hint": {"_id": 1},
              "projection": {"s": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(r, "cursor.firstBatch")),
            testutil::CanonicalJson(R"({"0": {"_id": 0}, "1": {"_id": 1}, "2": {"_id": 2}})"));
}

TEST_F(FindOptionsTest, ShowRecordIdAppendsAStableRecordId) {
  Fill("c", 5);
  BsonDoc a = Run(R"({"find": "c", "showRecordId": true, "sort": {"_id": 1}, "projection": {"g": 1}})");
  BsonDoc b = Run(R"({"find": "c", "showRecordId": true, "sort": {"_id": 1}})");
  ASSERT_OK_REPLY(a);
  ASSERT_OK_REPLY(b);
  auto da = DocArray(a, "cursor.firstBatch");
  auto db = DocArray(b, "cursor.firstBatch");
  ASSERT_EQ(da.size(), 5u);
  for (size_t i = 0; i < da.size(); ++i) {
    EXPECT_EQ(TypeAt(da[i], "$recordId"), BSON_TYPE_INT64) << Json(da[i]);
    EXPECT_EQ(Integer(da[i], "$recordId"), Integer(db[i], "$recordId"));
    EXPECT_FALSE(Has(da[i], "s")) << Json(da[i]);
  }
  EXPECT_NE(Integer(da[0], "$recordId"), Integer(da[1], "$recordId"));
}

// ---- the other options -----------------------------------------------------------

TEST_F(FindOptionsTest, LetCommentAndNoCursorTimeoutAreAccepted) {
  Fill("c", 4);
  BsonDoc r = Run(R"({"find": "c", "let": {"x": 1}, "comment": "hello", "noCursorTimeout": true,
                      "batchSize": 1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 1u);
  EXPECT_NE(Integer(r, "cursor.id").value_or(0), 0);
  BsonDoc bad = Run(R"({"find": "c", "let": 1})");
  EXPECT_ERROR_REPLY(bad, 14, "TypeMismatch");
}

TEST_F(FindOptionsTest, SingleBatchClosesTheCursor) {
  Fill("c", 10);
  BsonDoc r = Run(R"({"find": "c", "batchSize": 3, "singleBatch": true})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 3u);
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
}

TEST_F(FindOptionsTest, NegativeLimitSkipAndBatchSizeAreRefused) {
  Fill("c", 3);
  for (const char* field : {"limit", "skip", "batchSize"}) {
    BsonDoc r = Run(std::string(R"({"find": "c", ")") + field + R"(": -2})");
    EXPECT_ERROR_REPLY(r, 51024, "Location51024");
    EXPECT_EQ(String(r, "errmsg"),
              std::string("BSON field '") + field + "' value must be >= 0, actual value '-2'")
        << Json(r);
  }
}

// Each option is read when given (and only then): a wrong type names it.
TEST_F(FindOptionsTest, EveryOptionOfTheWrongTypeIsRefusedByName) {
  Fill("c", 3);
  for (const char* field : {"filter", "sort", "projection", "min", "max", "let"}) {
    BsonDoc r = Run(std::string(R"({"find": "c", ")") + field + R"(": "x"})");
    EXPECT_ERROR_REPLY(r, 14, "TypeMismatch");
    EXPECT_EQ(String(r, "errmsg"), std::string("BSON field 'find.") + field +
                                       "' is the wrong type 'string', expected type 'object'")
        << Json(r);
  }
  for (const char* field : {"singleBatch", "allowDiskUse", "noCursorTimeout", "returnKey",
                            "showRecordId", "tailable", "awaitData", "oplogReplay"}) {
    BsonDoc r = Run(std::string(R"({"find": "c", ")") + field + R"(": "x"})");
    EXPECT_ERROR_REPLY(r, 14, "TypeMismatch");
    EXPECT_EQ(String(r, "errmsg"), std::string("BSON field 'find.") + field +
                                       "' is the wrong type 'string', expected type 'bool'")
        << Json(r);
  }
  // Two wrong options: the first in find's reading order answers, wherever it sits.
  EXPECT_EQ(String(Run(R"({"find": "c", "let": 1, "sort": 1})"), "errmsg"),
            "BSON field 'find.sort' is the wrong type 'int', expected type 'object'");
  EXPECT_ERROR_REPLY(Run(R"({"find": "c", "filter": {}, "bogus": 1})"), 40415, "Location40415");
  // Only known and generic fields: every option at its default.
  BsonDoc r = Run(R"({"find": "c", "comment": "x", "maxTimeMS": 1000})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 3u) << Json(r);
}

// find reads its options in one walk of the command (issue #18): every
// type the getters take, the first of a repeated name, a field that walk
// leaves to libbson, names it must not take for an option, and the errors
// in the order they always came.
TEST_F(FindOptionsTest, OneWalkReadsEveryTypeAndKeepsTheErrorOrder) {
  Fill("c", 10);
  auto returned = [&](const std::string& options) {
    BsonDoc r = Run(R"({"find": "c", "sort": {"_id": 1})" + options + "}");
    EXPECT_OK_REPLY(r) << options;
    return ArrayLength(r, "cursor.firstBatch");
  };
  for (const char* limit : {"3", R"({"$numberLong": "3"})", "3.0", R"({"$numberDouble": "3.7"})",
                            R"({"$numberDecimal": "3"})"}) {
    EXPECT_EQ(returned(std::string(R"(, "limit": )") + limit), 3u) << limit;
  }
  EXPECT_EQ(returned(R"(, "skip": {"$numberLong": "8"})"), 2u);
  // singleBatch as a number and as false; batchSize as a long.
  BsonDoc r = Run(R"({"find": "c", "batchSize": {"$numberLong": "2"}, "singleBatch": 1})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 2u) << Json(r);
  r = Run(R"({"find": "c", "batchSize": 2, "singleBatch": false})");
  ASSERT_OK_REPLY(r);
  EXPECT_NE(Integer(r, "cursor.id"), 0) << Json(r);
  r = Run(R"({"find": "c", "batchSize": 2, "singleBatch": 0.0})");
  EXPECT_NE(Integer(r, "cursor.id"), 0) << Json(r);
  // Negative longs and doubles are refused like negative ints.
  r = Run(R"({"find": "c", "limit": {"$numberLong": "-2"}})");
  EXPECT_ERROR_REPLY(r, 51024, "Location51024");
  EXPECT_EQ(String(r, "errmsg"), "BSON field 'limit' value must be >= 0, actual value '-2'");
  EXPECT_ERROR_REPLY(Run(R"({"find": "c", "skip": -1.5})"), 51024, "Location51024");
  // A repeated name: the first one counts, as bson_iter_find's.
  BsonDoc twice;
  BSON_APPEND_UTF8(twice.mutable_get(), "find", "c");
  BSON_APPEND_INT32(twice.mutable_get(), "limit", 4);
  BSON_APPEND_INT32(twice.mutable_get(), "limit", -1);
  r = Run(twice);
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 4u) << Json(r);
  // A regex (left to libbson by the raw walk) before the options.
  EXPECT_EQ(returned(R"(, "comment": {"$regularExpression": {"pattern": "x", "options": ""}}, "limit": 4)"),
            4u);
  r = Run(R"({"find": "c", "comment": {"$regularExpression": {"pattern": "x", "options": ""}}, "bogus": 1})");
  EXPECT_ERROR_REPLY(r, 40415, "Location40415");
  EXPECT_EQ(String(r, "errmsg"), "BSON field 'find.bogus' is an unknown field.");
  // An unknown field answers before an option of the wrong type ahead of it.
  r = Run(R"({"find": "c", "sort": 1, "bogus": 1})");
  EXPECT_EQ(String(r, "errmsg"), "BSON field 'find.bogus' is an unknown field.");
  // Names of an option's length that are not options; the empty name.
  for (const char* name : {"limiT", "lim", "filters", "allowPartialResultsX", "", "sor"}) {
    r = Run(std::string(R"({"find": "c", ")") + name + R"(": 1})");
    EXPECT_ERROR_REPLY(r, 40415, "Location40415");
    EXPECT_EQ(String(r, "errmsg"), std::string("BSON field 'find.") + name + "' is an unknown field.");
  }
  // Options find accepts and ignores.
  EXPECT_EQ(returned(R"(, "readOnce": true, "term": 1, "allowPartialResults": true, "oplogReplay": 1)"),
            10u);
  // The collection name is checked first.
  r = Run(R"({"find": 1, "bogus": 1})");
  EXPECT_ERROR_REPLY(r, 73, "InvalidNamespace");
  EXPECT_EQ(String(r, "errmsg"), "collection name has invalid type int");
  EXPECT_ERROR_REPLY(Run(R"({"find": "", "bogus": 1})"), 73, "InvalidNamespace");
}

TEST_F(FindOptionsTest, BatchSizeZeroOnAMissingCollectionHasNoCursor) {
  BsonDoc r = Run(R"({"find": "nothing_here", "batchSize": 0})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.id"), 0) << Json(r);
}

TEST_F(FindOptionsTest, TailableNeedsACappedCollection) {
  Fill("c", 3);
  BsonDoc r = Run(R"({"find": "c", "tailable": true})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"),
            "error processing query: ns=" + db_ +
                ".cTree: $and\nSort: {}\nProj: {}\n tailable cursor requested on non capped collection")
      << Json(r);
  r = Run(R"({"find": "c", "awaitData": true})");
  EXPECT_ERROR_REPLY(r, 9, "FailedToParse");
  EXPECT_EQ(String(r, "errmsg"), "Cannot set 'awaitData' without also setting 'tailable'");
}

// ---- explain -------------------------------------------------------------------------

class ExplainShapeTest : public FindOptionsTest {
 protected:
  BsonDoc Explain(const std::string& inner, const std::string& verbosity = "executionStats") {
    BsonDoc r = Run(R"({"explain": )" + inner + R"(, "verbosity": ")" + verbosity + R"("})");
    EXPECT_OK_REPLY(r);
    return r;
  }
  void OneShard() {
    ASSERT_OK_REPLY(Run(R"({"create": "one", "shards": 1})"));
    Fill("one", 50);
  }
};

TEST_F(ExplainShapeTest, TopKSortShowsLimitAmountAndSkip) {
  OneShard();
  BsonDoc e = Explain(R"({"find": "one", "filter": {"g": {"$gte": 1}}, "sort": {"s": -1}, "skip": 2, "limit": 3})");
  const std::string plan = "queryPlanner.winningPlan.shards.0.winningPlan";
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.stage"), "SINGLE_SHARD") << Json(e);
  EXPECT_EQ(String(e, plan + ".stage"), "SKIP") << Json(e);
  EXPECT_EQ(Integer(e, plan + ".skipAmount"), 2);
  EXPECT_EQ(String(e, plan + ".inputStage.stage"), "SORT");
  EXPECT_EQ(Integer(e, plan + ".inputStage.limitAmount"), 5);
  EXPECT_EQ(Integer(e, plan + ".inputStage.memLimit"), 100 * 1024 * 1024);
  EXPECT_EQ(String(e, plan + ".inputStage.inputStage.stage"), "COLLSCAN");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 3) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 50);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 0);
  EXPECT_TRUE(Has(e, "executionStats.executionTimeMillis"));
  EXPECT_EQ(Integer(e, "executionStats.executionStages.shards.0.executionStages.inputStage."
                       "inputStage.docsExamined"),
            50)
      << Json(e);
}

TEST_F(ExplainShapeTest, UnsortedLimitAndSkipShowLimitOverSkip) {
  OneShard();
  BsonDoc e = Explain(R"({"find": "one", "skip": 4, "limit": 6})");
  const std::string plan = "queryPlanner.winningPlan.shards.0.winningPlan";
  EXPECT_EQ(String(e, plan + ".stage"), "LIMIT") << Json(e);
  EXPECT_EQ(Integer(e, plan + ".limitAmount"), 6);
  EXPECT_EQ(String(e, plan + ".inputStage.stage"), "SKIP");
  EXPECT_EQ(Integer(e, plan + ".inputStage.skipAmount"), 4);
  EXPECT_EQ(String(e, plan + ".inputStage.inputStage.stage"), "COLLSCAN");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 6);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 10) << Json(e);
}

TEST_F(ExplainShapeTest, FanOutShardsReturnSkipPlusLimitAndTheMergeSkips) {
  Fill("c", 40);  // four shards by default
  BsonDoc e = Explain(R"({"find": "c", "sort": {"g": 1}, "skip": 1, "limit": 2})");
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.stage"), "SHARD_MERGE_SORT") << Json(e);
  EXPECT_EQ(Integer(e, "queryPlanner.winningPlan.skipAmount"), 1);
  EXPECT_EQ(Integer(e, "queryPlanner.winningPlan.limitAmount"), 2);
  EXPECT_EQ(ArrayLength(e, "queryPlanner.winningPlan.shards"), 4u);
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.shards.0.winningPlan.stage"), "SORT");
  EXPECT_EQ(Integer(e, "queryPlanner.winningPlan.shards.0.winningPlan.limitAmount"), 3);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 2);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 40);
}

TEST_F(ExplainShapeTest, IdHintIsAnIndexScan) {
  OneShard();
  BsonDoc e = Explain(R"({"find": "one", "filter": {"g": 0}, "hint": {"_id": 1}, "min": {"_id": 10}})");
  const std::string plan = "queryPlanner.winningPlan.shards.0.winningPlan";
  EXPECT_EQ(String(e, plan + ".stage"), "FETCH") << Json(e);
  EXPECT_EQ(String(e, plan + ".inputStage.stage"), "IXSCAN");
  EXPECT_EQ(String(e, plan + ".inputStage.indexName"), "_id_");
  EXPECT_EQ(String(e, plan + ".inputStage.indexBounds._id.0"), "[10, MaxKey]");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 8);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 40);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 40);
}

TEST_F(ExplainShapeTest, CountShowsCountOrFastCount) {
  OneShard();
  BsonDoc e = Explain(R"({"count": "one", "query": {"g": 3}})");
  const std::string plan = "queryPlanner.winningPlan.shards.0.winningPlan";
  EXPECT_EQ(String(e, plan + ".stage"), "COUNT") << Json(e);
  EXPECT_EQ(String(e, plan + ".inputStage.stage"), "COLLSCAN");
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 0);
  EXPECT_EQ(Integer(e, "executionStats.executionStages.nCounted"), 10) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.executionStages.shards.0.executionStages.nCounted"), 10);
  e = Explain(R"({"count": "one"})");
  EXPECT_EQ(String(e, plan + ".stage"), "RECORD_STORE_FAST_COUNT") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 0);
}

TEST_F(ExplainShapeTest, VerbositiesControlTheSections) {
  OneShard();
  const std::string find = R"({"find": "one", "filter": {"g": 1}})";
  BsonDoc planner = Explain(find, "queryPlanner");
  EXPECT_TRUE(Has(planner, "queryPlanner.winningPlan")) << Json(planner);
  EXPECT_FALSE(Has(planner, "executionStats")) << Json(planner);
  BsonDoc stats = Explain(find, "executionStats");
  EXPECT_EQ(Integer(stats, "executionStats.nReturned"), 10);
  EXPECT_FALSE(Has(stats, "executionStats.allPlansExecution"));
  BsonDoc all = Explain(find, "allPlansExecution");
  EXPECT_EQ(Integer(all, "executionStats.nReturned"), 10);
  EXPECT_EQ(TypeAt(all, "executionStats.allPlansExecution"), BSON_TYPE_ARRAY) << Json(all);
  BsonDoc distinct = Explain(R"({"distinct": "one", "key": "g"})");
  EXPECT_EQ(String(distinct, "queryPlanner.winningPlan.shards.0.winningPlan.stage"),
            "PROJECTION_DEFAULT")
      << Json(distinct);
  EXPECT_EQ(Integer(distinct, "executionStats.totalDocsExamined"), 50);
}

}  // namespace
}  // namespace tigerdoc::e2e
