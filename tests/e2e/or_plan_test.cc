// OR plans end to end (issue #19, MongoDB 7 the reference):
//  * a sorted $or whose every branch has an index scan giving the sort
//    (after its equality prefix, forward or backward) is a SORT_MERGE of
//    the branch scans, no blocking SORT, a record of several branches
//    returned once; across shards the same merge takes every branch's
//    stream of every shard. Every answer is compared with a collection
//    scan ({$natural: 1} hint) plus a blocking sort: the sort-key sequence
//    must be equal and the documents the same, for forward, backward and
//    compound sorts, skip/limit, result counts and batch sizes around 101
//    with getMores, and while other connections insert.
//  * a $text branch of an $or inside the top-level $and (or an $and branch
//    holding the $text, of such an $or or of a top-level one) is planned
//    when every other branch of that $or has an index (FETCH of an OR of
//    the term scans and the branch scans, the other conjuncts filtering);
//    else NoQueryExecutionPlans "No query solutions", as MongoDB's planner.

#include <atomic>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/index_query_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

class OrPlanTest : public IndexQueryE2eTest {
 protected:
  // The documents of a find (every batch) as JSON in the server's order.
  std::vector<BsonDoc> FindDocs(const std::string& coll, const std::string& args, int batch_size) {
    const std::string batch =
        batch_size > 0 ? R"(, "batchSize": )" + std::to_string(batch_size) : std::string();
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", )" + args + batch + "}");
    EXPECT_OK_REPLY(r);
    std::vector<BsonDoc> out = DocArray(r, "cursor.firstBatch");
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      BsonDoc more = GetMore(id, coll, batch_size);
      EXPECT_OK_REPLY(more);
      if (!testutil::IsOk(more)) break;
      for (BsonDoc& d : DocArray(more, "cursor.nextBatch")) out.push_back(std::move(d));
      id = Integer(more, "cursor.id").value_or(0);
    }
    return out;
  }

  // The values of `fields` in each document, as one JSON line each.
  static std::vector<std::string> SortKeys(const std::vector<BsonDoc>& docs,
                                           const std::vector<std::string>& fields) {
    std::vector<std::string> out;
    for (const BsonDoc& d : docs) {
      std::string line;
      for (const std::string& f : fields) {
        const std::optional<double> v = testutil::Number(d, f);
        line += v ? std::to_string(*v) : std::string("<missing>");
        line += "|";
      }
      out.push_back(line);
    }
    return out;
  }

  static std::vector<std::string> SortedJson(const std::vector<BsonDoc>& docs) {
    std::vector<std::string> out;
    for (const BsonDoc& d : docs) out.push_back(Json(d));
    std::sort(out.begin(), out.end());
    return out;
  }

  // The find `filter` sorted by `sort` (its fields `fields`), with `extra`
  // (skip/limit), against the same over a collection scan: same sort-key
  // sequence, same documents. Returns the count.
  size_t ExpectSameAsCollScan(const std::string& coll, const std::string& filter,
                              const std::string& sort, const std::vector<std::string>& fields,
                              const std::string& extra = "", int batch_size = 7) {
    const std::string args = R"("filter": )" + filter + R"(, "sort": )" + sort + extra;
    std::vector<BsonDoc> got = FindDocs(coll, args, batch_size);
    std::vector<BsonDoc> want = FindDocs(coll, args + R"(, "hint": {"$natural": 1})", 0);
    EXPECT_EQ(SortKeys(got, fields), SortKeys(want, fields)) << filter << " sort " << sort << extra;
    // With ties a limit may cut between equal keys differently: only the
    // full results must hold the same documents.
    if (extra.find("limit") == std::string::npos) {
      EXPECT_EQ(SortedJson(got), SortedJson(want)) << filter << " sort " << sort;
    }
    return got.size();
  }

  // Whether any stage of an explain (winning or rejected) is `stage`.
  static bool HasStage(const BsonDoc& explain, const std::string& stage) {
    return Json(explain).find("\"stage\" : \"" + stage + "\"") != std::string::npos;
  }
};

constexpr char kShardPlan[] = "queryPlanner.winningPlan.shards.0.winningPlan";

class SortMergeTest : public OrPlanTest {
 protected:
  // 600 documents: a = i % 10, b = i % 7, c = i % 5, x = i * 37 % 601
  // (distinct), missing on every 97th, y = i % 13 (ties); indexes giving
  // the sorts {x, y} (a_x_y forward, b_xd_yd backward) and {y} after the
  // equality on a or b.
  void SetUpCollection(const std::string& coll, int shards) {
    ASSERT_OK_REPLY(Run(R"({"create": ")" + coll + R"(", "shards": )" + std::to_string(shards) + "}"));
    std::string docs = "[";
    for (int i = 0; i < 600; ++i) {
      if (i) docs += ",";
      docs += "{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 10) +
              ", \"b\": " + std::to_string(i % 7) + ", \"c\": " + std::to_string(i % 5) +
              (i % 97 == 0 ? std::string() : ", \"x\": " + std::to_string(i * 37 % 601)) +
              ", \"y\": " + std::to_string(i % 13) + "}";
    }
    InsertJson(coll, docs + "]");
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"a": 1, "x": 1, "y": 1}, "name": "a_x_y"})"));
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"b": 1, "x": -1, "y": -1}, "name": "b_xd_yd"})"));
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"c": 1}, "name": "c_1"})"));
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"a": 1, "y": 1}, "name": "a_y"})"));
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"b": 1, "y": -1}, "name": "b_yd"})"));
  }
};

// Matches of {$or: [{a: 3}, {b: 2}]}: 60 + 86 - 9 overlapping.
constexpr char kOr[] = R"({"$or": [{"a": 3}, {"b": 2}]})";

TEST_F(SortMergeTest, ForwardBackwardAndCompoundSortsMergeTheBranches) {
  for (int shards : {1, 3}) {
    const std::string coll = "m" + std::to_string(shards);
    SetUpCollection(coll, shards);
    for (const char* sort : {R"({"x": 1})", R"({"x": -1})"}) {
      EXPECT_EQ(ExpectSameAsCollScan(coll, kOr, sort, {"x"}), 137u) << sort;
    }
    for (const char* sort : {R"({"x": 1, "y": 1})", R"({"x": -1, "y": -1})"}) {
      EXPECT_EQ(ExpectSameAsCollScan(coll, kOr, sort, {"x", "y"}), 137u) << sort;
    }
    // y ties: the key sequence is compared, and the documents as a set.
    for (const char* sort : {R"({"y": 1})", R"({"y": -1})"}) {
      EXPECT_EQ(ExpectSameAsCollScan(coll, kOr, sort, {"y"}), 137u) << sort;
    }
    // Every branch's scan gives {x: 1}: one forward, one backward.
    BsonDoc e = Explain(coll, std::string(R"("filter": )") + kOr + R"(, "sort": {"x": 1})");
    EXPECT_EQ(String(e, "queryPlanner.winningPlan.stage"), shards == 1 ? "SINGLE_SHARD" : "SORT_MERGE")
        << Json(e);
    const std::string plan = kShardPlan;
    EXPECT_EQ(String(e, plan + ".stage"), "FETCH") << Json(e);
    EXPECT_EQ(String(e, plan + ".inputStage.stage"), "SORT_MERGE") << Json(e);
    EXPECT_EQ(Integer(e, plan + ".inputStage.sortPattern.x"), 1) << Json(e);
    EXPECT_EQ(String(e, plan + ".inputStage.inputStages.0.indexName"), "a_x_y") << Json(e);
    EXPECT_EQ(String(e, plan + ".inputStage.inputStages.0.direction"), "forward") << Json(e);
    EXPECT_EQ(String(e, plan + ".inputStage.inputStages.1.indexName"), "b_xd_yd") << Json(e);
    EXPECT_EQ(String(e, plan + ".inputStage.inputStages.1.direction"), "backward") << Json(e);
    EXPECT_FALSE(HasStage(e, "SORT")) << Json(e);
    // The overlap is examined twice (once per branch) and returned once.
    EXPECT_EQ(Integer(e, "executionStats.nReturned"), 137) << Json(e);
    EXPECT_EQ(Integer(e, "executionStats.totalKeysExamined"), 146) << Json(e);
    // A branch without a scan giving the sort: OR under a blocking SORT.
    const std::string mixed = R"({"$or": [{"a": 3}, {"c": 4}]})";
    e = Explain(coll, R"("filter": )" + mixed + R"(, "sort": {"x": 1})");
    EXPECT_EQ(String(e, plan + ".stage"), "SORT") << Json(e);
    EXPECT_EQ(String(e, plan + ".inputStage.inputStage.stage"), "OR") << Json(e);
    ExpectSameAsCollScan(coll, mixed, R"({"x": 1})", {"x"});
    // A sort no branch index gives ({x: 1, y: -1}): blocking sort, same answer.
    e = Explain(coll, std::string(R"("filter": )") + kOr + R"(, "sort": {"x": 1, "y": -1})");
    EXPECT_TRUE(HasStage(e, "SORT")) << Json(e);
    ExpectSameAsCollScan(coll, kOr, R"({"x": 1, "y": -1})", {"x", "y"});
  }
}

TEST_F(SortMergeTest, SkipLimitAndBatchSizesAroundTheDefault) {
  SetUpCollection("s", 3);
  for (const char* extra : {R"(, "limit": 1)", R"(, "limit": 5, "skip": 3)", R"(, "skip": 130)",
                            R"(, "skip": 137)", R"(, "limit": 100)", R"(, "limit": 101)",
                            R"(, "limit": 102)", R"(, "skip": 1, "limit": 136)"}) {
    ExpectSameAsCollScan("s", kOr, R"({"x": -1})", {"x"}, extra);
    ExpectSameAsCollScan("s", kOr, R"({"x": 1, "y": 1})", {"x", "y"}, extra);
  }
  BsonDoc e = Explain("s", std::string(R"("filter": )") + kOr + R"(, "sort": {"x": 1}, "limit": 5)");
  EXPECT_FALSE(HasStage(e, "SORT")) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), 5) << Json(e);
  // Result counts just below, at and above the default first batch (101),
  // each read with the default batch and with batches of 100, 101, 102.
  for (int n : {100, 101, 102}) {
    const std::string coll = "n" + std::to_string(n);
    ASSERT_OK_REPLY(Run(R"({"create": ")" + coll + R"(", "shards": 2})"));
    std::string docs = "[";
    for (int i = 0; i < n; ++i) {
      // Odd: a = 1; even or a multiple of 3: b = 1 (odd multiples of 3 in both).
      if (i) docs += ",";
      docs += "{\"_id\": " + std::to_string(i) + ", \"a\": " + std::to_string(i % 2) +
              ", \"b\": " + std::to_string(i % 2 == 0 || i % 3 == 0 ? 1 : 0) +
              ", \"x\": " + std::to_string(n - i) + "}";
    }
    InsertJson(coll, docs + "]");
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"a": 1, "x": 1}, "name": "a_x"})"));
    ASSERT_OK_REPLY(CreateIndex(coll, R"({"key": {"b": 1, "x": 1}, "name": "b_x"})"));
    const std::string filter = R"({"$or": [{"a": 1}, {"b": 1}]})";
    for (int batch : {0, 100, 101, 102}) {
      EXPECT_EQ(ExpectSameAsCollScan(coll, filter, R"({"x": 1})", {"x"}, "", batch),
                static_cast<size_t>(n))
          << "batch " << batch;
      EXPECT_EQ(ExpectSameAsCollScan(coll, filter, R"({"x": -1})", {"x"}, "", batch),
                static_cast<size_t>(n))
          << "batch " << batch;
    }
    // The first batch holds 101 at most; the cursor stays open past it. At
    // exactly 101 the merge cannot tell its end without reading ahead: it
    // may stay open (as MongoDB's), and its getMore is then empty and final.
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter + R"(, "sort": {"x": 1}})");
    ASSERT_OK_REPLY(r);
    EXPECT_EQ(DocArray(r, "cursor.firstBatch").size(), static_cast<size_t>(std::min(n, 101)));
    const int64_t cursor = Integer(r, "cursor.id").value_or(0);
    if (n != 101) EXPECT_EQ(cursor != 0, n > 101) << n;
    if (cursor != 0) {
      BsonDoc more = GetMore(cursor, coll);
      ASSERT_OK_REPLY(more);
      EXPECT_EQ(DocArray(more, "cursor.nextBatch").size(), static_cast<size_t>(n - 101));
      EXPECT_EQ(Integer(more, "cursor.id"), 0);
    }
    BsonDoc e2 = Explain(coll, R"("filter": )" + filter + R"(, "sort": {"x": 1})");
    EXPECT_EQ(String(e2, std::string(kShardPlan) + ".inputStage.stage"), "SORT_MERGE") << Json(e2);
  }
}

TEST_F(SortMergeTest, ConnectionsInsertWhileTheMergeIsRead) {
  SetUpCollection("w", 3);
  constexpr int kWriters = 3;
  constexpr int kPerWriter = 150;
  std::atomic<bool> start{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      MongoClient client(server_->uri());
      while (!start) std::this_thread::yield();
      for (int k = 0; k < kPerWriter; ++k) {
        const int id = 1000 + w * kPerWriter + k;
        // Half in branch a: 3, half in b: 2, some in both; x beyond 601.
        const std::string doc = "{\"_id\": " + std::to_string(id) + ", \"a\": " +
                                std::to_string(k % 2 ? 3 : 0) + ", \"b\": " +
                                std::to_string(k % 3 ? 2 : 1) + ", \"c\": 0, \"x\": " +
                                std::to_string(601 + id) + ", \"y\": " + std::to_string(k % 13) + "}";
        BsonDoc reply = client.RunCommand(db_, "{\"insert\": \"w\", \"documents\": [" + doc + "]}");
        if (!testutil::IsOk(reply)) ++failures;
      }
    });
  }
  // The scan starts before the writers, reads in batches of 5 while they
  // insert: its order holds, no document comes twice, and every document
  // that existed throughout is returned.
  for (const char* sort : {R"({"x": 1})", R"({"x": -1})"}) {
    BsonDoc r = Run(std::string(R"({"find": "w", "filter": )") + kOr + R"(, "sort": )" + sort +
                    R"(, "batchSize": 5})");
    ASSERT_OK_REPLY(r);
    start = true;
    std::vector<BsonDoc> docs = DocArray(r, "cursor.firstBatch");
    int64_t id = Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      BsonDoc more = GetMore(id, "w", 5);
      ASSERT_OK_REPLY(more);
      for (BsonDoc& d : DocArray(more, "cursor.nextBatch")) docs.push_back(std::move(d));
      id = Integer(more, "cursor.id").value_or(0);
    }
    const bool ascending = std::string(sort).find("-1") == std::string::npos;
    std::set<int64_t> ids;
    int64_t previous = ascending ? -2 : INT64_MAX;
    int original = 0;
    for (const BsonDoc& d : docs) {
      const int64_t _id = Integer(d, "_id").value_or(-1);
      EXPECT_TRUE(ids.insert(_id).second) << "duplicate " << _id;
      const int64_t x = Integer(d, "x").value_or(-1);  // missing sorts as null, first
      EXPECT_TRUE(ascending ? x >= previous : x <= previous) << _id << " out of order";
      previous = x;
      if (_id < 600) ++original;
    }
    EXPECT_EQ(original, 137) << sort;
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(failures, 0);
  // At rest, with every insert in, the merge equals the collection scan,
  // read by several connections at once.
  std::vector<std::thread> readers;
  std::atomic<int> mismatches{0};
  std::vector<std::string> want;
  {
    std::vector<BsonDoc> docs =
        FindDocs("w", std::string(R"("filter": )") + kOr + R"(, "sort": {"x": 1}, "hint": {"$natural": 1})", 0);
    want = SortKeys(docs, {"x", "_id"});
  }
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      MongoClient client(server_->uri());
      BsonDoc reply = client.RunCommand(
          db_, std::string(R"({"find": "w", "filter": )") + kOr + R"(, "sort": {"x": 1}, "batchSize": 1000})");
      if (!testutil::IsOk(reply) || SortKeys(DocArray(reply, "cursor.firstBatch"), {"x", "_id"}) != want) {
        ++mismatches;
      }
    });
  }
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(want.size(), 137u);
}

// $text in an $or inside the top-level $and.
class TextUnderAndOrTest : public OrPlanTest {
 protected:
  // 400 documents: x = i % 2, y = i % 20, t holds "espresso" on every 25th.
  void Fill(const std::string& coll) {
    ASSERT_OK_REPLY(Run(R"({"create": ")" + coll + R"(", "shards": 2})"));
    std::string docs = "[";
    for (int i = 0; i < 400; ++i) {
      if (i) docs += ",";
      docs += "{\"_id\": " + std::to_string(i) + ", \"x\": " + std::to_string(i % 2) +
              ", \"y\": " + std::to_string(i % 20) + ", \"t\": \"" +
              (i % 25 == 0 ? "strong espresso" : "still water") + "\"}";
    }
    InsertJson(coll, docs + "]");
  }
  // The _ids the filter should return, from the data's rule.
  static std::vector<std::string> Expected(int x, int y) {
    std::vector<std::string> out;
    for (int i = 0; i < 400; ++i) {
      if (i % 2 == x && (i % 25 == 0 || i % 20 == y)) out.push_back(std::to_string(i));
    }
    return out;
  }
  std::vector<std::string> IdsOf(const std::string& coll, const std::string& filter) {
    std::vector<BsonDoc> docs = FindDocs(coll, R"("filter": )" + filter, 7);
    std::vector<std::string> out;
    for (const BsonDoc& d : docs) out.push_back(std::to_string(Integer(d, "_id").value_or(-1)));
    std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
      return std::stoi(a) < std::stoi(b);
    });
    return out;
  }
};

TEST_F(TextUnderAndOrTest, PlannedWhenEveryOtherBranchIsIndexed) {
  Fill("t");
  ASSERT_OK_REPLY(CreateIndex("t", R"({"key": {"t": "text"}, "name": "t_text"})"));
  const std::string nested =
      R"({"$and": [{"x": 0}, {"$or": [{"$text": {"$search": "espresso"}}, {"y": 4}]}]})";
  // The other branch has no index: MongoDB's planner finds no solution
  // (the "TEXT under OR" wording is for a top-level $or only).
  BsonDoc r = Run(R"({"find": "t", "filter": )" + nested + "}");
  EXPECT_ERROR_REPLY(r, 291, "NoQueryExecutionPlans");
  EXPECT_NE(String(r, "errmsg").value_or("").find("No query solutions"), std::string::npos) << Json(r);
  EXPECT_EQ(String(r, "errmsg").value_or("").find("TEXT under OR"), std::string::npos) << Json(r);
  // An index on a conjunct outside the $or does not help: the text index must be used.
  ASSERT_OK_REPLY(CreateIndex("t", R"({"key": {"x": 1}, "name": "x_1"})"));
  EXPECT_ERROR_REPLY(Run(R"({"find": "t", "filter": )" + nested + "}"), 291, "NoQueryExecutionPlans");

  ASSERT_OK_REPLY(CreateIndex("t", R"({"key": {"y": 1}, "name": "y_1"})"));
  // x = 0 and (espresso: _id 0, 50, 100, ... or y = 4: 4, 24, 44, ...).
  const std::vector<std::string> want = Expected(0, 4);
  EXPECT_EQ(IdsOf("t", nested), want);
  // The same as an implicit $and, and under a nested $and.
  EXPECT_EQ(IdsOf("t", R"({"x": 0, "$or": [{"y": 4}, {"$text": {"$search": "espresso"}}]})"), want);
  EXPECT_EQ(IdsOf("t", R"({"$and": [{"$and": [{"x": 0}, {"$or": [{"$text": {"$search": "espresso"}}, {"y": 4}]}]}]})"),
            want);
  // The collection scan's answer with the term's documents named by _id.
  std::string espresso_ids = "[";
  for (int i = 0; i < 400; i += 25) espresso_ids += (i ? "," : "") + std::to_string(i);
  const std::string by_id = R"({"$and": [{"x": 0}, {"$or": [{"_id": {"$in": )" + espresso_ids +
                            R"(]}}, {"y": 4}]}]})";
  std::vector<BsonDoc> scan = FindDocs("t", R"("filter": )" + by_id + R"(, "hint": {"$natural": 1})", 0);
  EXPECT_EQ(SortedJson(FindDocs("t", R"("filter": )" + nested, 0)), SortedJson(scan));
  // A top-level $or whose branch is an $and holding the $text.
  EXPECT_EQ(IdsOf("t", R"({"$or": [{"$and": [{"$text": {"$search": "espresso"}}, {"x": 0}]}, {"y": 4}]})"),
            want);
  // count agrees.
  BsonDoc count = Run(R"({"count": "t", "query": )" + nested + "}");
  ASSERT_OK_REPLY(count);
  EXPECT_EQ(Integer(count, "n"), static_cast<int64_t>(want.size()));
  // The plan reads the term and the y scan, not the collection.
  BsonDoc e = Explain("t", R"("filter": )" + nested);
  EXPECT_TRUE(HasStage(e, "TEXT_MATCH")) << Json(e);
  EXPECT_TRUE(HasStage(e, "OR")) << Json(e);
  EXPECT_FALSE(HasStage(e, "COLLSCAN")) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.nReturned"), static_cast<int64_t>(want.size())) << Json(e);
  // 16 with the term, 20 with y = 4 (none of them shared).
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 36) << Json(e);
  // With a sort (blocking) and the text score.
  std::vector<BsonDoc> sorted = FindDocs(
      "t", R"("filter": )" + nested + R"(, "sort": {"_id": -1}, "projection": {"s": {"$meta": "textScore"}})", 5);
  ASSERT_EQ(sorted.size(), want.size());
  EXPECT_EQ(std::to_string(Integer(sorted.front(), "_id").value_or(-1)), want.back());
  // A $text deeper than a branch of such an $or stays refused; two texts too.
  EXPECT_ERROR_REPLY(
      Run(R"({"find": "t", "filter": {"x": 0, "$or": [{"$nor": [{"$text": {"$search": "a"}}]}, {"y": 4}]}})"),
      2, "BadValue");
}

TEST_F(TextUnderAndOrTest, CompoundTextIndexNeedsItsPrefixBesideTheText) {
  Fill("k");
  ASSERT_OK_REPLY(CreateIndex("k", R"({"key": {"x": 1, "t": "text"}, "name": "x_t"})"));
  ASSERT_OK_REPLY(CreateIndex("k", R"({"key": {"y": 1}, "name": "y_1"})"));
  // The equality on x is outside the $or holding the $text: MongoDB's
  // planner cannot use the compound text index there.
  BsonDoc r = Run(
      R"({"find": "k", "filter": {"x": 0, "$or": [{"$text": {"$search": "espresso"}}, {"y": 4}]}})");
  EXPECT_ERROR_REPLY(r, 291, "NoQueryExecutionPlans");
  EXPECT_NE(String(r, "errmsg").value_or("").find(
                "failed to use text index to satisfy $text query (if text index is compound, are "
                "equality predicates given for all prefix fields?)"),
            std::string::npos)
      << Json(r);
  // Beside the $text in an $and branch of the $or, the prefix equality serves.
  std::vector<std::string> ids =
      IdsOf("k", R"({"$or": [{"x": 0, "$text": {"$search": "espresso"}}, {"y": 4}]})");
  EXPECT_EQ(ids, Expected(0, 4));
  BsonDoc e = Explain("k", R"("filter": {"$or": [{"x": 0, "$text": {"$search": "espresso"}}, {"y": 4}]})");
  EXPECT_FALSE(HasStage(e, "COLLSCAN")) << Json(e);
  EXPECT_EQ(Integer(e, "executionStats.totalDocsExamined"), 28) << Json(e);
  // The server keeps serving.
  EXPECT_EQ(IdsOf("k", R"({"x": 0, "$text": {"$search": "espresso"}})").size(), 8u);
}

}  // namespace
}  // namespace tigerdoc::e2e
