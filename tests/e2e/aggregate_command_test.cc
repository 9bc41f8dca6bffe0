// The aggregate command's own options and catalog stage, end to end:
//   * hint: the pipeline's collection scan uses the hinted index (explain
//     shows it, $indexStats counts it), on a view too; an unknown index is
//     BadValue (2);
//   * maxTimeMS: validated as find's; a blocking $group, a $lookup's
//     sub-scans during a getMore, a $out pipeline, and count / distinct of a
//     view stop with MaxTimeMSExpired (50) and the server keeps serving;
//   * $indexStats: one document per index with accesses {ops, since} and
//     the spec; ops counts the operations whose plan read the index.
#include <bson/bson.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"
#include "tests/testutil/wait_until.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::TypeAt;

// Every value of a field named `key`, anywhere in `doc` but the rejected
// plans (explain output: the winning plans' index names).
void CollectStrings(const bson_t* doc, const char* key, std::vector<std::string>* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return;
  while (bson_iter_next(&it)) {
    if (BSON_ITER_HOLDS_UTF8(&it) && std::string_view(bson_iter_key(&it)) == key) {
      out->push_back(bson_iter_utf8(&it, nullptr));
    } else if ((BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) &&
               std::string_view(bson_iter_key(&it)) != "rejectedPlans") {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      if (BSON_ITER_HOLDS_DOCUMENT(&it)) bson_iter_document(&it, &len, &data);
      else bson_iter_array(&it, &len, &data);
      bson_t child;
      if (bson_init_static(&child, data, len)) CollectStrings(&child, key, out);
    }
  }
}

std::vector<std::string> IndexNames(const BsonDoc& explain) {
  std::vector<std::string> names;
  CollectStrings(explain.get(), "indexName", &names);
  return names;
}

class AggregateCommandTest : public E2eTest {
 protected:
  // _id 0..n-1, a = _id, b = _id % 10.
  void Fill(const std::string& coll, int n) {
    std::vector<BsonDoc> docs;
    for (int i = 0; i < n; ++i) {
      BsonDoc d;
      BSON_APPEND_INT32(d.mutable_get(), "_id", i);
      BSON_APPEND_INT32(d.mutable_get(), "a", i);
      BSON_APPEND_INT32(d.mutable_get(), "b", i % 10);
      docs.push_back(std::move(d));
    }
    BsonDoc r = client_->InsertMany(db_, coll, docs);
    ASSERT_EQ(Integer(r, "insertedCount"), n) << Json(r);
  }

  void CreateIndexes(const std::string& coll) {
    ASSERT_OK_REPLY(Run(R"({"createIndexes": ")" + coll + R"(", "indexes": [
        {"key": {"a": 1}, "name": "a_1"}, {"key": {"b": 1}, "name": "b_1"}]})"));
  }

  // accesses.ops of index `name` of `coll`, from $indexStats; -1 if absent.
  int64_t Ops(const std::string& coll, const std::string& name) {
    BsonDoc r = Run(R"({"aggregate": ")" + coll + R"(", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
    EXPECT_OK_REPLY(r);
    for (const BsonDoc& d : DocArray(r, "cursor.firstBatch")) {
      if (String(d, "name") == name) return Integer(d, "accesses.ops").value_or(-1);
    }
    return -1;
  }

  // Asserts the server still answers after an interrupted command.
  void ExpectServing() {
    BsonDoc ping = Run(R"({"ping": 1})");
    EXPECT_OK_REPLY(ping);
  }
};

// ---- hint ----------------------------------------------------------------------

TEST_F(AggregateCommandTest, HintChoosesTheIndexOfTheScan) {
  Fill("c", 500);
  CreateIndexes("c");
  // Selective on a, unselective on b: the planner alone picks a_1.
  const std::string pipeline = R"([{"$match": {"a": {"$lt": 5}, "b": {"$gte": 0}}}, {"$sort": {"_id": 1}}])";
  BsonDoc plain = Run(R"({"explain": {"aggregate": "c", "pipeline": )" + pipeline +
                      R"(, "cursor": {}}, "verbosity": "queryPlanner"})");
  ASSERT_OK_REPLY(plain);
  ASSERT_FALSE(IndexNames(plain).empty()) << Json(plain);
  for (const std::string& name : IndexNames(plain)) EXPECT_EQ(name, "a_1") << Json(plain);

  for (const char* hint : {R"("b_1")", R"({"b": 1})"}) {
    BsonDoc explain = Run(R"({"explain": {"aggregate": "c", "pipeline": )" + pipeline +
                          R"(, "cursor": {}, "hint": )" + hint + R"(}, "verbosity": "queryPlanner"})");
    ASSERT_OK_REPLY(explain);
    std::vector<std::string> names = IndexNames(explain);
    ASSERT_FALSE(names.empty()) << Json(explain);
    for (const std::string& name : names) EXPECT_EQ(name, "b_1") << hint << " " << Json(explain);
    // The explain flag form says the same.
    BsonDoc flag = Run(R"({"aggregate": "c", "pipeline": )" + pipeline + R"(, "explain": true, "hint": )" +
                       hint + "}");
    ASSERT_OK_REPLY(flag);
    for (const std::string& name : IndexNames(flag)) EXPECT_EQ(name, "b_1") << Json(flag);
  }

  // Running it: the same results, read through b_1 (counted by $indexStats).
  const int64_t b_before = Ops("c", "b_1");
  const int64_t a_before = Ops("c", "a_1");
  BsonDoc r = Run(R"({"aggregate": "c", "pipeline": )" + pipeline + R"(, "cursor": {}, "hint": "b_1"})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{0, 1, 2, 3, 4})) << Json(r);
  EXPECT_EQ(Ops("c", "b_1"), b_before + 1);
  EXPECT_EQ(Ops("c", "a_1"), a_before);
  // $natural: a collection scan, no index.
  r = Run(R"({"aggregate": "c", "pipeline": )" + pipeline + R"(, "cursor": {}, "hint": {"$natural": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{0, 1, 2, 3, 4})) << Json(r);
  EXPECT_EQ(Ops("c", "b_1"), b_before + 1);
  EXPECT_EQ(Ops("c", "a_1"), a_before);
}

TEST_F(AggregateCommandTest, UnknownHintIsBadValue) {
  Fill("c", 20);
  CreateIndexes("c");
  for (const char* hint : {R"("nope_1")", R"({"z": 1})", R"({"a": -1})"}) {
    BsonDoc r = Run(std::string(R"({"aggregate": "c", "pipeline": [{"$match": {"a": 1}}], "cursor": {}, "hint": )") +
                    hint + "}");
    EXPECT_ERROR_REPLY(r, 2, "BadValue");
    EXPECT_EQ(String(r, "errmsg"), "hint provided does not correspond to an existing index") << Json(r);
    BsonDoc explain = Run(std::string(R"({"explain": {"aggregate": "c", "pipeline": [], "cursor": {}, "hint": )") +
                          hint + "}}");
    EXPECT_ERROR_REPLY(explain, 2, "BadValue");
  }
  BsonDoc wrong_type = Run(R"({"aggregate": "c", "pipeline": [], "cursor": {}, "hint": 1})");
  EXPECT_EQ(testutil::Number(wrong_type, "ok"), 0.0) << Json(wrong_type);
  ExpectServing();
}

TEST_F(AggregateCommandTest, HintOnAViewAppliesToTheCollectionUnderIt) {
  Fill("c", 100);
  CreateIndexes("c");
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "c", "pipeline": [{"$match": {"b": {"$gte": 0}}}]})"));
  const int64_t b_before = Ops("c", "b_1");
  BsonDoc r = Run(R"({"aggregate": "v", "pipeline": [{"$match": {"a": {"$lt": 3}}}, {"$sort": {"_id": 1}}],
                      "cursor": {}, "hint": {"b": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), (std::vector<int64_t>{0, 1, 2})) << Json(r);
  EXPECT_EQ(Ops("c", "b_1"), b_before + 1);
  BsonDoc bad = Run(R"({"aggregate": "v", "pipeline": [], "cursor": {}, "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  // find and count on the view carry their hint into the aggregation.
  bad = Run(R"({"find": "v", "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  bad = Run(R"({"count": "v", "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  bad = Run(R"({"distinct": "v", "key": "a", "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  const int64_t a_before = Ops("c", "a_1");
  BsonDoc values = Run(R"({"distinct": "v", "key": "b", "query": {"b": {"$lt": 2}}, "hint": "a_1"})");
  ASSERT_OK_REPLY(values);
  EXPECT_EQ(ArrayLength(values, "values"), 2u) << Json(values);
  EXPECT_EQ(Ops("c", "a_1"), a_before + 1);
}

// ---- maxTimeMS -----------------------------------------------------------------

TEST_F(AggregateCommandTest, MaxTimeMSIsValidatedAsFindDoes) {
  Fill("c", 3);
  BsonDoc r = Run(R"({"aggregate": "c", "pipeline": [], "cursor": {}, "maxTimeMS": "1"})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "maxTimeMS must be a number") << Json(r);
  r = Run(R"({"aggregate": "c", "pipeline": [], "cursor": {}, "maxTimeMS": -1})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_EQ(String(r, "errmsg"), "-1 value for maxTimeMS is out of range [0, 2147483647]") << Json(r);
  r = Run(R"({"aggregate": "c", "pipeline": [], "cursor": {}, "maxTimeMS": 2.5})");
  EXPECT_ERROR_REPLY(r, 2, "BadValue");
  EXPECT_OK_REPLY(Run(R"({"aggregate": "c", "pipeline": [], "cursor": {}, "maxTimeMS": 0})"));
  r = Run(R"({"aggregate": "c", "pipeline": [{"$count": "n"}], "cursor": {}, "maxTimeMS": 60000})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.n"), 3) << Json(r);
}

class AggregateMaxTimeTest : public AggregateCommandTest {
 protected:
  static constexpr int kBig = 100000;
  // A $group over every document of "big": well over a millisecond of work
  // (measured below, so the expiry is not an accident of timing).
  const std::string kGroup =
      R"({"$group": {"_id": {"$mod": ["$_id", 7]}, "n": {"$sum": {"$multiply": ["$a", 2]}}}})";

  void SetUp() override {
    AggregateCommandTest::SetUp();
    Fill("big", kBig);
  }
};

TEST_F(AggregateMaxTimeTest, BlockingGroupStopsAtTheDeadline) {
  const auto started = std::chrono::steady_clock::now();
  BsonDoc full = Run(R"({"aggregate": "big", "pipeline": [)" + kGroup + R"(], "cursor": {}})");
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_OK_REPLY(full);
  EXPECT_EQ(ArrayLength(full, "cursor.firstBatch"), 7u) << Json(full);
  ASSERT_GT(took, std::chrono::milliseconds(5)) << "the pipeline is too fast to time out reliably";

  BsonDoc r = Run(R"({"aggregate": "big", "pipeline": [)" + kGroup + R"(], "cursor": {}, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  EXPECT_EQ(String(r, "errmsg"), "operation exceeded time limit") << Json(r);
  // A blocking $sort too, and a generous limit lets the pipeline finish.
  r = Run(R"({"aggregate": "big", "pipeline": [{"$sort": {"b": -1, "a": -1}}], "cursor": {}, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  r = Run(R"({"aggregate": "big", "pipeline": [)" + kGroup + R"(], "cursor": {}, "maxTimeMS": 600000})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 7u) << Json(r);
  ExpectServing();
}

TEST_F(AggregateMaxTimeTest, OutPipelineStopsAtTheDeadline) {
  BsonDoc r = Run(R"({"aggregate": "big", "pipeline": [)" + kGroup + R"(, {"$out": "grouped"}],
                      "cursor": {}, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  BsonDoc count = Run(R"({"count": "grouped"})");
  ASSERT_OK_REPLY(count);
  EXPECT_EQ(Integer(count, "n"), 0) << Json(count);
  // Without the limit it writes its 7 groups.
  ASSERT_OK_REPLY(Run(R"({"aggregate": "big", "pipeline": [)" + kGroup + R"(, {"$out": "grouped"}], "cursor": {}})"));
  count = Run(R"({"count": "grouped"})");
  EXPECT_EQ(Integer(count, "n"), 7) << Json(count);
}

TEST_F(AggregateMaxTimeTest, GetMoreOfALookupPipelineStopsAtTheDeadline) {
  // Each outer document's $lookup scans all of "big" (an $expr match is not
  // pushed into the scan): a batch of many outer documents is seconds of
  // work, the first batch of one is a few milliseconds.
  Fill("outer", 2000);
  const std::string lookup = R"({"$lookup": {"from": "big", "let": {"i": "$_id"},
      "pipeline": [{"$match": {"$expr": {"$eq": ["$_id", "$$i"]}}}], "as": "m"}})";
  // The pipeline does real work: without a limit its first document found
  // its one match.
  BsonDoc unlimited = Run(R"({"aggregate": "outer", "pipeline": [)" + lookup +
                          R"(], "cursor": {"batchSize": 1}})");
  ASSERT_OK_REPLY(unlimited);
  ASSERT_EQ(ArrayLength(unlimited, "cursor.firstBatch"), 1u) << Json(unlimited);
  EXPECT_EQ(ArrayLength(unlimited, "cursor.firstBatch.0.m"), 1u) << Json(unlimited);
  // batchSize 0: the aggregate only parses and plans, so however starved
  // the machine, the limit can only run out in the getMore, which inherits
  // what is left of it.
  BsonDoc r = Run(R"({"aggregate": "outer", "pipeline": [)" + lookup +
                  R"(], "cursor": {"batchSize": 0}, "maxTimeMS": 3000})");
  ASSERT_OK_REPLY(r);
  ASSERT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
  const int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  const auto started = std::chrono::steady_clock::now();
  BsonDoc g = GetMore(id, "outer");
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_ERROR_REPLY(g, 50, "MaxTimeMSExpired");
  // Stopped near the deadline, not after the whole pipeline (minutes of
  // work); the slack is for a loaded machine (ASan, a descheduled thread).
  EXPECT_LT(took, std::chrono::milliseconds(3000 + 7000)) << "getMore ran past its deadline";
  // The failed getMore destroyed the cursor, as in MongoDB.
  g = GetMore(id, "outer");
  EXPECT_ERROR_REPLY(g, 43, "CursorNotFound");
  ExpectServing();
}

TEST_F(AggregateMaxTimeTest, KillCursorsInterruptsARunningGetMore) {
  // The same slow $lookup pipeline, without a time limit: its getMore would
  // run for many seconds unless killCursors stops it.
  Fill("outer", 2000);
  BsonDoc r = Run(R"({"aggregate": "outer", "pipeline": [{"$lookup": {"from": "big", "let": {"i": "$_id"},
      "pipeline": [{"$match": {"$expr": {"$eq": ["$_id", "$$i"]}}}], "as": "m"}}],
      "cursor": {"batchSize": 1}})");
  ASSERT_OK_REPLY(r);
  const int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0);
  BsonDoc g;
  std::chrono::steady_clock::duration took{};
  std::thread running([&] {
    const auto started = std::chrono::steady_clock::now();
    g = GetMore(id, "outer");
    took = std::chrono::steady_clock::now() - started;
  });
  // Kill once the getMore is seen running (a fixed pause could end before
  // a starved thread sent it, and the kill would find an idle cursor).
  MongoClient killer(server_->uri());
  EXPECT_TRUE(testutil::WaitUntil([&] {
    BsonDoc ops = killer.RunCommand("admin", R"({"currentOp": 1, "command.getMore": {"$numberLong": ")" +
                                                 std::to_string(id) + R"("}})");
    return testutil::ArrayLength(ops, "inprog") == 1;
  })) << "the getMore never showed in currentOp";
  BsonDoc k = killer.RunCommand(db_, KillCursorsCommand("outer", id));
  running.join();
  ASSERT_OK_REPLY(k);
  EXPECT_EQ(Integer(k, "cursorsKilled.0"), id) << Json(k);
  EXPECT_ERROR_REPLY(g, 237, "CursorKilled");
  // The whole pipeline is minutes of work; the margin is for a loaded machine.
  EXPECT_LT(took, std::chrono::seconds(15)) << "the getMore was not interrupted";
  ExpectServing();
}

TEST_F(AggregateMaxTimeTest, CountAndDistinctOfAViewHonourMaxTimeMS) {
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "big", "pipeline": [{"$match": {"b": {"$gte": 0}}}]})"));
  BsonDoc r = Run(R"({"count": "v", "query": {"a": {"$gte": 0}}, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  r = Run(R"({"distinct": "v", "key": "b", "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  r = Run(R"({"find": "v", "sort": {"a": -1}, "maxTimeMS": 1})");
  EXPECT_ERROR_REPLY(r, 50, "MaxTimeMSExpired");
  // Within a generous limit they answer.
  r = Run(R"({"count": "v", "query": {"a": {"$gte": 0}}, "maxTimeMS": 600000})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), kBig) << Json(r);
  r = Run(R"({"distinct": "v", "key": "b", "maxTimeMS": 600000})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "values"), 10u) << Json(r);
}

// ---- $indexStats ---------------------------------------------------------------

TEST_F(AggregateCommandTest, IndexStatsCountsTheOperationsThatUseEachIndex) {
  Fill("c", 200);
  CreateIndexes("c");
  BsonDoc r = Run(R"({"aggregate": "c", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  std::vector<BsonDoc> stats = DocArray(r, "cursor.firstBatch");
  ASSERT_EQ(stats.size(), 3u) << Json(r);
  EXPECT_EQ(String(stats[0], "name"), "_id_");
  EXPECT_EQ(String(stats[1], "name"), "a_1");
  EXPECT_EQ(String(stats[2], "name"), "b_1");
  for (const BsonDoc& d : stats) {
    EXPECT_EQ(TypeAt(d, "key"), BSON_TYPE_DOCUMENT) << Json(d);
    EXPECT_NE(String(d, "host").value_or("").find(':'), std::string::npos) << Json(d);
    EXPECT_EQ(TypeAt(d, "accesses.ops"), BSON_TYPE_INT64) << Json(d);
    EXPECT_EQ(Integer(d, "accesses.ops"), 0) << Json(d);
    EXPECT_EQ(TypeAt(d, "accesses.since"), BSON_TYPE_DATE_TIME) << Json(d);
    EXPECT_EQ(Integer(d, "spec.v"), 2) << Json(d);
    EXPECT_EQ(String(d, "spec.name"), String(d, "name")) << Json(d);
    EXPECT_EQ(TypeAt(d, "spec.key"), BSON_TYPE_DOCUMENT) << Json(d);
    EXPECT_FALSE(testutil::Has(d, "building")) << Json(d);
  }
  EXPECT_EQ(Integer(stats[1], "key.a"), 1) << Json(stats[1]);

  // Three operations whose plan reads a_1.
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"a": 5}})"));
  ASSERT_OK_REPLY(Run(R"({"count": "c", "query": {"a": {"$lt": 10}}})"));
  ASSERT_OK_REPLY(Run(R"({"aggregate": "c", "pipeline": [{"$match": {"a": 7}}], "cursor": {}})"));
  // Explain and a collection scan do not count.
  ASSERT_OK_REPLY(Run(R"({"explain": {"find": "c", "filter": {"a": 5}}})"));
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"a": 5}, "hint": {"$natural": 1}})"));
  EXPECT_EQ(Ops("c", "a_1"), 3);
  EXPECT_EQ(Ops("c", "b_1"), 0);
  // A point read by _id uses the _id index.
  EXPECT_EQ(Ops("c", "_id_"), 0);
  ASSERT_OK_REPLY(Run(R"({"find": "c", "filter": {"_id": 3}})"));
  EXPECT_EQ(Ops("c", "_id_"), 1);
  // distinct, update and delete count as well.
  ASSERT_OK_REPLY(Run(R"({"distinct": "c", "key": "b", "query": {"a": {"$lt": 3}}})"));
  ASSERT_OK_REPLY(Run(R"({"update": "c", "updates": [{"q": {"a": 8}, "u": {"$set": {"x": 1}}}]})"));
  ASSERT_OK_REPLY(Run(R"({"delete": "c", "deletes": [{"q": {"a": 9}, "limit": 1}]})"));
  EXPECT_EQ(Ops("c", "a_1"), 6);

  // Later stages work on its documents.
  r = Run(R"({"aggregate": "c", "pipeline": [{"$indexStats": {}}, {"$match": {"name": "a_1"}},
              {"$project": {"_id": 0, "name": 1, "ops": "$accesses.ops"}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  ASSERT_EQ(ArrayLength(r, "cursor.firstBatch"), 1u) << Json(r);
  EXPECT_EQ(Integer(r, "cursor.firstBatch.0.ops"), 6) << Json(r);

  // collMod of an index starts its counter anew, as MongoDB.
  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "index": {"name": "a_1", "hidden": true}})"));
  EXPECT_EQ(Ops("c", "a_1"), 0);
}

TEST_F(AggregateCommandTest, IndexStatsMustComeFirst) {
  Fill("c", 5);
  BsonDoc r = Run(R"({"aggregate": "c", "pipeline": [{"$match": {}}, {"$indexStats": {}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 40602, "Location40602");
  EXPECT_EQ(String(r, "errmsg"), "$indexStats is only valid as the first stage in a pipeline") << Json(r);
  r = Run(R"({"aggregate": "c", "pipeline": [{"$indexStats": {"x": 1}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 28803, "Location28803");
  r = Run(R"({"aggregate": 1, "pipeline": [{"$indexStats": {}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 73, "InvalidNamespace");
  // A missing collection has no indexes: no documents.
  r = Run(R"({"aggregate": "missing", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
  // A view's stages come first: $indexStats is then not the first stage.
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "c", "pipeline": [{"$match": {}}]})"));
  r = Run(R"({"aggregate": "v", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 40602, "Location40602");
  ASSERT_OK_REPLY(Run(R"({"create": "w", "viewOn": "c", "pipeline": []})"));
  r = Run(R"({"aggregate": "w", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(String(r, "cursor.firstBatch.0.name"), "_id_") << Json(r);
}

}  // namespace
}  // namespace tigerdoc::e2e
