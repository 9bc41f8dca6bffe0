// Index-aware options of the read commands, through libmongoc against the
// real server: count and distinct take a hint like find (a hinted sparse
// index counts only what it holds, as in MongoDB); find's returnKey hands out
// the index key that produced each result; min/max bound a hinted secondary
// index (directions included) with MongoDB's 51174/51175 errors; a covered
// projection of a field the document lacks shows the null the index holds.
#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::Integer;
using testutil::Json;
using testutil::String;

class IndexOptionsTest : public E2eTest {
 protected:
  void CreateIndex(const std::string& coll, const std::string& spec) {
    BsonDoc r = Run(R"({"createIndexes": ")" + coll + R"(", "indexes": [)" + spec + "]}");
    ASSERT_OK_REPLY(r);
  }

  // The first batch of a find, as canonical JSON, in the order returned.
  std::vector<std::string> Find(const std::string& coll, const std::string& args) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", )" + args + "}");
    EXPECT_OK_REPLY(r);
    std::vector<std::string> out;
    for (const auto& d : testutil::DocArray(r, "cursor.firstBatch")) out.push_back(CanonicalJson(d));
    return out;
  }

  std::vector<std::string> SortedFind(const std::string& coll, const std::string& args) {
    auto v = Find(coll, args);
    std::sort(v.begin(), v.end());
    return v;
  }

  // The _ids of a find's first batch, ascending.
  std::vector<int64_t> FindIds(const std::string& coll, const std::string& args) {
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", )" + args + "}");
    EXPECT_OK_REPLY(r);
    std::vector<int64_t> ids = Ids(r);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  static std::vector<std::string> Canonical(const std::vector<std::string>& relaxed) {
    std::vector<std::string> out;
    for (const auto& j : relaxed) out.push_back(CanonicalJson(j));
    return out;
  }

  static std::vector<std::string> SortedCanonical(const std::vector<std::string>& relaxed) {
    std::vector<std::string> out = Canonical(relaxed);
    std::sort(out.begin(), out.end());
    return out;
  }

  int64_t CountN(const std::string& coll, const std::string& args) {
    BsonDoc r = Run(R"({"count": ")" + coll + R"(", )" + args + "}");
    EXPECT_OK_REPLY(r);
    return Integer(r, "n").value_or(-1);
  }

  BsonDoc Explain(const std::string& inner) {
    BsonDoc r = Run(R"({"explain": )" + inner + R"(, "verbosity": "executionStats"})");
    EXPECT_OK_REPLY(r);
    return r;
  }

  void ExpectPlannerError(const BsonDoc& r, int code, const std::string& reason) {
    EXPECT_EQ(Integer(r, "code"), code) << Json(r);
    std::string msg = String(r, "errmsg").value_or("");
    EXPECT_EQ(msg.rfind("error processing query: ", 0), 0u) << msg;
    const std::string tail = "planner returned error :: caused by :: " + reason;
    EXPECT_TRUE(msg.size() >= tail.size() && msg.compare(msg.size() - tail.size(), tail.size(), tail) == 0)
        << msg;
  }
};

TEST_F(IndexOptionsTest, CountAndDistinctTakeAHint) {
  std::string docs = "[";
  for (int i = 0; i < 30; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + R"(, "k": )" + std::to_string(i % 3) +
            (i % 2 == 0 ? R"(, "s": )" + std::to_string(i) : "") + "}";
  }
  InsertJson("c", docs + "]");
  CreateIndex("c", R"({"key": {"k": 1}, "name": "k_1"})");
  CreateIndex("c", R"({"key": {"s": 1}, "name": "s_sparse", "sparse": true})");

  // Unhinted, an empty count is the collection's; hinted, it is the
  // sparse index's entry count, by name or key pattern.
  EXPECT_EQ(CountN("c", R"("query": {})"), 30);
  EXPECT_EQ(CountN("c", R"("query": {}, "hint": "s_sparse")"), 15);
  EXPECT_EQ(CountN("c", R"("query": {}, "hint": {"s": 1})"), 15);
  EXPECT_EQ(CountN("c", R"("query": {"k": 1}, "hint": "k_1")"), 10);
  EXPECT_EQ(CountN("c", R"("query": {"k": 1}, "hint": {"k": 1})"), 10);
  EXPECT_EQ(CountN("c", R"("query": {"k": 1}, "hint": {"$natural": 1})"), 10);
  EXPECT_EQ(CountN("c", R"("query": {}, "hint": "_id_")"), 30);
  BsonDoc e = Explain(R"({"count": "c", "query": {}, "hint": "s_sparse"})");
  EXPECT_EQ(String(e, "planner.winningPlan"), "IXSCAN s_sparse") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 15) << Json(e);

  BsonDoc bad = Run(R"({"count": "c", "query": {}, "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  EXPECT_EQ(String(bad, "errmsg"), "hint provided does not correspond to an existing index");
  EXPECT_ERROR_REPLY(Run(R"({"count": "c", "query": {"k": 1}, "hint": {"k": -1}})"), 2, "BadValue");
  bad = Run(R"({"count": "c", "hint": 5})");
  EXPECT_ERROR_REPLY(bad, 9, "FailedToParse");
  EXPECT_EQ(String(bad, "errmsg"), "count.hint must be a string or an object");

  BsonDoc d = Run(R"({"distinct": "c", "key": "k", "query": {}, "hint": "k_1"})");
  ASSERT_OK_REPLY(d);
  EXPECT_EQ(CanonicalJson(testutil::SubDoc(d, "values")),
            CanonicalJson(R"({"0": 0, "1": 1, "2": 2})"));
  d = Run(R"({"distinct": "c", "key": "_id", "query": {"k": 2}, "hint": {"k": 1}})");
  ASSERT_OK_REPLY(d);
  EXPECT_EQ(testutil::ArrayLength(d, "values"), 10u) << Json(d);
  e = Explain(R"({"distinct": "c", "key": "k", "hint": "k_1"})");
  EXPECT_EQ(String(e, "planner.winningPlan"), "IXSCAN k_1") << Json(e);
  bad = Run(R"({"distinct": "c", "key": "k", "hint": "nope"})");
  EXPECT_ERROR_REPLY(bad, 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"distinct": "c", "key": "k", "hint": 1})"), 9, "FailedToParse");
}

TEST_F(IndexOptionsTest, ReturnKeyGivesTheIndexKey) {
  InsertJson("r", R"([{"_id": 1, "a": 1, "b": {"c": "x"}, "z": 1}, {"_id": 2, "a": 2, "b": {"c": "y"}},
                       {"_id": 3, "a": 3}, {"_id": 4, "a": 4, "b": {"c": "w"}}])");
  CreateIndex("r", R"({"key": {"a": 1, "b.c": -1}, "name": "a_bc"})");
  // Key-pattern order, dotted names as in the pattern, null for a missing
  // field; the projection does not apply.
  EXPECT_EQ(SortedFind("r", R"("filter": {"a": {"$gte": 2}}, "returnKey": true, "hint": "a_bc",
                               "projection": {"z": 1})"),
            SortedCanonical({R"({"a": 2, "b.c": "y"})", R"({"a": 3, "b.c": null})",
                       R"({"a": 4, "b.c": "w"})"}));
  // After a blocking sort, in sort order.
  EXPECT_EQ(Find("r", R"("filter": {"a": {"$lte": 2}}, "sort": {"b.c": 1}, "returnKey": true,
                         "hint": {"a": 1, "b.c": -1})"),
            Canonical({R"({"a": 1, "b.c": "x"})", R"({"a": 2, "b.c": "y"})"}));
  // The planner's own choice reports its index's key too.
  EXPECT_EQ(Find("r", R"("filter": {"a": 4}, "returnKey": true)"),
            Canonical({R"({"a": 4, "b.c": "w"})"}));
  // A collection scan has no key: {}.
  EXPECT_EQ(Find("r", R"("filter": {"a": 4}, "returnKey": true, "hint": {"$natural": 1})"),
            Canonical({"{}"}));
  // showRecordId adds $recordId after the key.
  BsonDoc r = Run(R"({"find": "r", "filter": {"a": 1}, "returnKey": true, "showRecordId": true,
                      "hint": "a_bc"})");
  ASSERT_OK_REPLY(r);
  auto docs = testutil::DocArray(r, "cursor.firstBatch");
  ASSERT_EQ(docs.size(), 1u);
  std::vector<std::string> keys;
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init(&it, docs[0].get()));
  while (bson_iter_next(&it)) keys.push_back(bson_iter_key(&it));
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b.c", "$recordId"})) << Json(docs[0]);
  EXPECT_EQ(Integer(docs[0], "a"), 1) << Json(docs[0]);

  // Multikey: each document once, with the key that found it first.
  InsertJson("m", R"([{"_id": 1, "t": [7, 5, 6]}, {"_id": 2, "t": 9}])");
  CreateIndex("m", R"({"key": {"t": 1}, "name": "t_1"})");
  EXPECT_EQ(SortedFind("m", R"("filter": {"t": {"$gte": 5}}, "returnKey": true, "hint": "t_1")"),
            SortedCanonical({R"({"t": 5})", R"({"t": 9})"}));
}

TEST_F(IndexOptionsTest, MinMaxBoundAHintedIndex) {
  std::string docs = "[";
  for (int i = 0; i < 20; ++i) {
    if (i) docs += ",";
    docs += R"({"_id": )" + std::to_string(i) + R"(, "a": )" + std::to_string(i) + R"(, "b": )" +
            std::to_string(i % 4) + "}";
  }
  InsertJson("mm", docs + "]");
  CreateIndex("mm", R"({"key": {"a": 1}, "name": "a_1"})");
  CreateIndex("mm", R"({"key": {"b": 1, "a": -1}, "name": "b_a"})");

  using V = std::vector<int64_t>;
  EXPECT_EQ(FindIds("mm", R"("filter": {}, "min": {"a": 5}, "max": {"a": 9}, "hint": "a_1")"),
            (V{5, 6, 7, 8}));
  EXPECT_EQ(FindIds("mm", R"("filter": {}, "min": {"a": 17}, "hint": {"a": 1})"), (V{17, 18, 19}));
  EXPECT_EQ(FindIds("mm", R"("filter": {}, "max": {"a": 2}, "hint": "a_1")"), (V{0, 1}));
  // The filter still applies.
  EXPECT_EQ(FindIds("mm", R"("filter": {"b": 1}, "min": {"a": 3}, "max": {"a": 15}, "hint": "a_1")"),
            (V{5, 9, 13}));
  // Index order, descending field included: from (b 1, a 13) down through
  // b 1's smaller a values, up to (b 2, a 100) exclusive.
  EXPECT_EQ(FindIds("mm", R"("filter": {}, "min": {"b": 1, "a": 13}, "max": {"b": 2, "a": 100},
                             "hint": "b_a")"),
            (V{1, 5, 9, 13}));
  // With a sort: a blocking sort over the bounded scan.
  BsonDoc sorted = Run(R"({"find": "mm", "filter": {}, "min": {"a": 2}, "max": {"a": 6},
                            "hint": "a_1", "sort": {"a": -1}})");
  ASSERT_OK_REPLY(sorted);
  EXPECT_EQ(Ids(sorted), (V{5, 4, 3, 2}));

  const std::string incompatible = "The index chosen is not compatible with min/max";
  ExpectPlannerError(Run(R"({"find": "mm", "filter": {}, "min": {"b": 1}, "hint": "b_a"})"), 51174,
                     incompatible);
  ExpectPlannerError(Run(R"({"find": "mm", "filter": {}, "min": {"a": 1, "b": 1}, "hint": "b_a"})"),
                     51174, incompatible);
  ExpectPlannerError(Run(R"({"find": "mm", "filter": {}, "max": {"a": 1, "b": 1}, "hint": "a_1"})"),
                     51174, incompatible);
  const std::string order =
      "The value provided for min() does not come before the value provided for max() in the "
      "hinted index";
  ExpectPlannerError(
      Run(R"({"find": "mm", "filter": {}, "min": {"a": 9}, "max": {"a": 5}, "hint": "a_1"})"), 51175,
      order);
  ExpectPlannerError(
      Run(R"({"find": "mm", "filter": {}, "min": {"a": 5}, "max": {"a": 5}, "hint": "a_1"})"), 51175,
      order);
  // Descending field: in b_a's order (b 0, a 9) precedes (b 0, a 5).
  ExpectPlannerError(Run(R"({"find": "mm", "filter": {}, "min": {"b": 0, "a": 5},
                             "max": {"b": 0, "a": 9}, "hint": "b_a"})"),
                     51175, order);
  ExpectPlannerError(Run(R"({"find": "mm", "filter": {}, "min": {"a": 5}})"), 51173,
                     "When using min()/max() a hint of which index to use must be provided");
  EXPECT_ERROR_REPLY(Run(R"({"find": "mm", "filter": {}, "min": {"a": 5}, "hint": "nope"})"), 2,
                     "BadValue");
}

TEST_F(IndexOptionsTest, CoveredProjectionOfAMissingFieldIsNull) {
  InsertJson("cv", R"([{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "b": 2}, {"_id": 3, "a": null, "b": 3}])");
  CreateIndex("cv", R"({"key": {"b": 1, "a": 1}, "name": "b_a"})");
  const std::string args = R"("filter": {"b": {"$gte": 1}}, "projection": {"a": 1, "_id": 0})";
  BsonDoc e = Explain(R"({"find": "cv", )" + args + "}");
  EXPECT_EQ(String(e, "queryPlanner.winningPlan.shards.0.winningPlan.stage"), "PROJECTION_COVERED")
      << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 0) << Json(e);
  // The index holds null for the missing `a`: a covered plan returns it,
  // as MongoDB does; a collection scan returns the document's {}.
  EXPECT_EQ(SortedFind("cv", args),
            SortedCanonical({R"({"a": 1})", R"({"a": null})", R"({"a": null})"}));
  EXPECT_EQ(SortedFind("cv", args + R"(, "hint": {"$natural": 1})"),
            SortedCanonical({R"({"a": 1})", R"({"a": null})", "{}"}));
  // A filter checked on the key values still tells missing from null.
  EXPECT_EQ(SortedFind("cv", R"("filter": {"b": {"$gte": 1}, "a": {"$exists": false}},
                                "projection": {"b": 1, "_id": 0})"),
            Canonical({R"({"b": 2})"}));
}

TEST_F(IndexOptionsTest, DistinctUsesADistinctScan) {
  std::string docs = "[";
  for (int i = 0; i < 200; ++i) {
    if (i) docs += ",";
    std::string g = i % 50 == 7 ? R"(, "g": null)" : i % 50 == 9 ? "" : R"(, "g": )" + std::to_string(i % 5);
    docs += R"({"_id": )" + std::to_string(i) + g + R"(, "d": )" + std::to_string(i % 7) +
            R"(, "s": "s)" + std::to_string(i % 2) + R"(", "t": [)" + std::to_string(i % 3) + ", " +
            std::to_string(i % 3 + 10) + "]}";
  }
  InsertJson("ds", docs + "]");
  CreateIndex("ds", R"({"key": {"g": 1, "s": 1}, "name": "g_s"})");
  CreateIndex("ds", R"({"key": {"d": -1}, "name": "d_desc"})");
  CreateIndex("ds", R"({"key": {"t": 1}, "name": "t_1"})");
  auto values = [&](const std::string& args) {
    BsonDoc r = Run(R"({"distinct": "ds", )" + args + "}");
    EXPECT_OK_REPLY(r);
    return CanonicalJson(testutil::SubDoc(r, "values"));
  };
  auto natural = [&](const std::string& args) { return values(args + R"(, "hint": {"$natural": 1})"); };
  const std::string shard0 = "queryPlanner.winningPlan.shards.0.winningPlan";

  // A null value counts, a missing field does not: as a collection scan.
  EXPECT_EQ(values(R"("key": "g")"), CanonicalJson(R"({"0": null, "1": 0, "2": 1, "3": 2, "4": 3, "5": 4})"));
  EXPECT_EQ(values(R"("key": "g")"), natural(R"("key": "g")"));
  BsonDoc e = Explain(R"({"distinct": "ds", "key": "g"})");
  EXPECT_EQ(String(e, shard0 + ".stage"), "PROJECTION_COVERED") << Json(e);
  EXPECT_EQ(String(e, shard0 + ".inputStage.stage"), "DISTINCT_SCAN") << Json(e);
  EXPECT_EQ(String(e, shard0 + ".inputStage.indexName"), "g_s") << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 0) << Json(e);
  // One key per value per shard, plus the 4 missing-field entries stepped over.
  EXPECT_LT(Integer(e, "executionStats.totalKeysExamined").value_or(999), 40) << Json(e);

  // An exact filter on the index keeps the DISTINCT_SCAN.
  EXPECT_EQ(values(R"("key": "g", "query": {"g": {"$gte": 2}})"),
            CanonicalJson(R"({"0": 2, "1": 3, "2": 4})"));
  e = Explain(R"({"distinct": "ds", "key": "g", "query": {"g": {"$gte": 2}}})");
  EXPECT_EQ(String(e, shard0 + ".inputStage.stage"), "DISTINCT_SCAN") << Json(e);
  // Descending index.
  EXPECT_EQ(values(R"("key": "d")"), natural(R"("key": "d")"));
  e = Explain(R"({"distinct": "ds", "key": "d", "query": {"d": {"$lt": 3}}})");
  EXPECT_EQ(String(e, shard0 + ".inputStage.stage"), "DISTINCT_SCAN") << Json(e);
  EXPECT_EQ(values(R"("key": "d", "query": {"d": {"$lt": 3}})"),
            CanonicalJson(R"({"0": 0, "1": 1, "2": 2})"));

  // A filter the bounds do not express, or a multikey field: no DISTINCT_SCAN,
  // same values.
  const std::string inexact = R"("key": "g", "query": {"g": {"$gte": 1}, "d": 3})";
  EXPECT_EQ(values(inexact), natural(inexact));
  e = Explain(R"({"distinct": "ds", )" + inexact + "}");
  EXPECT_NE(String(e, shard0 + ".inputStage.stage"), "DISTINCT_SCAN") << Json(e);
  EXPECT_EQ(values(R"("key": "t", "query": {"t": {"$gte": 1}})"),
            CanonicalJson(R"({"0": 0, "1": 1, "2": 2, "3": 10, "4": 11, "5": 12})"));
  e = Explain(R"({"distinct": "ds", "key": "t", "query": {"t": {"$gte": 1}}})");
  EXPECT_NE(String(e, shard0 + ".inputStage.stage"), "DISTINCT_SCAN") << Json(e);
  // A hinted index serves it too.
  e = Explain(R"({"distinct": "ds", "key": "g", "hint": "g_s"})");
  EXPECT_EQ(String(e, shard0 + ".inputStage.stage"), "DISTINCT_SCAN") << Json(e);
}

}  // namespace
}  // namespace tigerdoc::e2e
