// $sort in aggregation through libmongoc:
//  * a leading $sort (after an optional $match) goes down to the scan with
//    its top-k: an index on the sort key provides the order (each shard's
//    index stream merged, SORT_MERGE), so [{$sort: {a: 1}}, {$limit: 5}]
//    examines about five documents per shard, as the explain says; the
//    results equal those of the same pipeline behind a barrier stage that
//    stops the push-down ({$project} first: the $sort stage runs instead);
//  * a view starting with $sort is pushed down the same way;
//  * over more than 100 MiB, both the pushed-down sort and the $sort stage
//    fail with 292 without allowDiskUse and spill with it; $sort + $limit
//    is top-k and needs no disk.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

constexpr int kDocs = 1000;
constexpr int kShards = 4;
// Stops the push-down: the pipeline no longer starts with $match / $sort.
constexpr const char* kBarrier = R"({"$project": {"_id": 1, "a": 1, "b": 1}})";

class AggregateSortTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    ASSERT_OK_REPLY(Run(R"({"create": "c", "shards": 4})"));
    std::string docs = "[";
    for (int i = 0; i < kDocs; ++i) {
      // a: a permutation of 0..999; b: ten values.
      docs += (i ? "," : "") + std::string(R"({"_id": )") + std::to_string(i) +
              R"(, "a": )" + std::to_string((i * 7919) % kDocs) + R"(, "b": )" + std::to_string(i % 10) + "}";
    }
    InsertJson("c", docs + "]");
    ASSERT_OK_REPLY(Run(R"({"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]})"));
  }

  // Every result of an aggregate (first batch only: batchSize covers all).
  std::vector<std::string> Results(const std::string& coll, const std::string& stages) {
    BsonDoc r = Run(R"({"aggregate": ")" + coll + R"(", "pipeline": )" + stages +
                    R"(, "cursor": {"batchSize": 5000}})");
    EXPECT_TRUE(testutil::IsOk(r)) << stages << ": " << Json(r);
    EXPECT_EQ(Integer(r, "cursor.id").value_or(-1), 0) << stages;
    std::vector<std::string> out;
    for (const BsonDoc& d : DocArray(r, "cursor.firstBatch")) out.push_back(Json(d));
    return out;
  }

  // accesses.ops of index a_1 of c ($indexStats): counts each scan of
  // the aggregate command itself that reads the index (explain does not).
  int64_t IndexOps() {
    BsonDoc r = Run(R"({"aggregate": "c", "pipeline": [{"$indexStats": {}}], "cursor": {}})");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    for (const BsonDoc& d : DocArray(r, "cursor.firstBatch")) {
      if (String(d, "name") == "a_1") return Integer(d, "accesses.ops").value_or(-1);
    }
    return -1;
  }

  static std::vector<int64_t> Field(const std::vector<std::string>& docs, const char* field) {
    std::vector<int64_t> out;
    for (const std::string& j : docs) out.push_back(Integer(BsonDoc::FromJson(j), field).value_or(-1));
    return out;
  }

  // Sum over the shards of the $cursor's executionStats `stat`, and the
  // number of shards, from an executionStats explain of `stages` on `coll`.
  std::pair<int64_t, int> CursorStat(const std::string& coll, const std::string& stages, const char* stat) {
    BsonDoc e = Run(R"({"explain": {"aggregate": ")" + coll + R"(", "pipeline": )" + stages +
                    R"(, "cursor": {}}, "verbosity": "executionStats"})");
    EXPECT_TRUE(testutil::IsOk(e)) << Json(e);
    int64_t total = 0;
    int shards = 0;
    BsonDoc all = SubDoc(e, "shards");
    bson_iter_t it;
    if (bson_iter_init(&it, all.get())) {
      while (bson_iter_next(&it)) {
        const std::string path = std::string("shards.") + bson_iter_key(&it) + ".stages.0.$cursor.executionStats." + stat;
        std::optional<int64_t> v = Integer(e, path);
        EXPECT_TRUE(v.has_value()) << path << " in " << Json(e);
        total += v.value_or(0);
        ++shards;
      }
    }
    return {total, shards};
  }
};

TEST_F(AggregateSortTest, LeadingSortAndLimitReadTheIndexInOrder) {
  const std::string pipeline = R"([{"$sort": {"a": 1}}, {"$limit": 5}])";
  // The aggregate's own scan reads a_1 (an unpushed sort would scan the
  // collection: no filter to plan with).
  const int64_t ops = IndexOps();
  EXPECT_EQ(Field(Results("c", pipeline), "a"), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(IndexOps(), ops + 1);
  Results("c", std::string("[") + kBarrier + R"(, {"$sort": {"a": 1}}, {"$limit": 5}])");
  EXPECT_EQ(IndexOps(), ops + 1);
  // About the limit per shard, not the collection.
  auto [examined, shards] = CursorStat("c", pipeline, "totalDocsExamined");
  EXPECT_EQ(shards, kShards);
  EXPECT_GT(examined, 0);
  EXPECT_LE(examined, 5 * kShards + kShards);
  auto [keys, _] = CursorStat("c", pipeline, "totalKeysExamined");
  EXPECT_LE(keys, 5 * kShards + kShards);

  // With a leading $match on the same index: bounds and order from a_1.
  const std::string matched = R"([{"$match": {"a": {"$gt": 10}}}, {"$sort": {"a": 1}}, {"$limit": 3}])";
  EXPECT_EQ(Field(Results("c", matched), "a"), (std::vector<int64_t>{11, 12, 13}));
  EXPECT_LE(CursorStat("c", matched, "totalDocsExamined").first, 3 * kShards + kShards);

  // $sort, $skip, $limit: the scan keeps skip + limit.
  const std::string skipped = R"([{"$sort": {"a": 1}}, {"$skip": 4}, {"$limit": 2}])";
  EXPECT_EQ(Field(Results("c", skipped), "a"), (std::vector<int64_t>{4, 5}));
  EXPECT_LE(CursorStat("c", skipped, "totalDocsExamined").first, 6 * kShards + kShards);

  // Behind the barrier the whole collection is read.
  EXPECT_EQ(CursorStat("c", std::string("[") + kBarrier + R"(, {"$sort": {"a": 1}}, {"$limit": 5}])",
                       "totalDocsExamined").first,
            kDocs);
}

TEST_F(AggregateSortTest, PushedDownAndStagePipelinesAgree) {
  // Sort keys are unique (a, or ties broken by a), so the order is exact.
  const std::vector<std::string> pipelines = {
      R"({"$sort": {"a": 1}}, {"$limit": 5})",
      R"({"$sort": {"a": -1}}, {"$limit": 7})",
      R"({"$match": {"a": {"$gt": 10}}}, {"$sort": {"a": -1}})",
      R"({"$match": {"b": 3}}, {"$sort": {"a": 1}})",
      R"({"$sort": {"b": 1, "a": -1}}, {"$skip": 3}, {"$limit": 10})",
      R"({"$sort": {"a": 1}}, {"$skip": 990})",
      R"({"$match": {"a": {"$lt": 50}}}, {"$sort": {"a": 1}}, {"$project": {"a": 1}}, {"$limit": 3})",
      R"({"$sort": {"a": 1}}, {"$group": {"_id": "$b", "first": {"$first": "$a"}}}, {"$sort": {"_id": 1}})",
      R"({"$sort": {"b": -1, "a": 1}}, {"$limit": 1000})",
  };
  for (const std::string& stages : pipelines) {
    SCOPED_TRACE(stages);
    std::vector<std::string> pushed = Results("c", "[" + stages + "]");
    std::vector<std::string> staged = Results("c", std::string("[") + kBarrier + ", " + stages + "]");
    EXPECT_FALSE(pushed.empty());
    EXPECT_EQ(pushed, staged);
  }
}

TEST_F(AggregateSortTest, ViewStartingWithSortIsPushedDown) {
  ASSERT_OK_REPLY(Run(R"({"create": "v", "viewOn": "c", "pipeline": [{"$sort": {"a": 1}}]})"));
  const std::string pipeline = R"([{"$limit": 3}, {"$project": {"a": 1}}])";
  const int64_t ops = IndexOps();
  EXPECT_EQ(Field(Results("v", pipeline), "a"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(IndexOps(), ops + 1);
  EXPECT_LE(CursorStat("v", pipeline, "totalDocsExamined").first, 3 * kShards + kShards);
}

constexpr int kBigDocs = 110;
constexpr size_t kPad = 1024 * 1024;  // 110 documents of 1 MiB: 110 MiB

class AggregateBigSortTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    InsertPadded("big", kBigDocs, kPad);
  }

  BsonDoc Aggregate(const std::string& stages, bool allow_disk_use) {
    return Run(R"({"aggregate": "big", "pipeline": )" + stages + R"(, "cursor": {"batchSize": 1000},
                   "allowDiskUse": )" + (allow_disk_use ? "true" : "false") + "}");
  }

  static std::vector<int64_t> Rs(const BsonDoc& r) {
    std::vector<int64_t> out;
    for (const BsonDoc& d : DocArray(r, "cursor.firstBatch")) out.push_back(Integer(d, "r").value_or(-1));
    return out;
  }
};

TEST_F(AggregateBigSortTest, OverOneHundredMebibytes) {
  // The $sort stage (behind a $project) and the leading $sort (pushed into
  // the scan) behave alike. The stage goes first: the spill directory it
  // makes shows that it spilled.
  ASSERT_FALSE(std::filesystem::exists(server_->dbpath() + "/_tmp"));
  for (const char* prefix : {R"({"$project": {"r": 1, "pad": 1}}, )", ""}) {
    SCOPED_TRACE(prefix);
    const std::string full = std::string("[") + prefix + R"({"$sort": {"r": 1}}, {"$project": {"pad": 0}}])";
    BsonDoc refused = Aggregate(full, false);
    EXPECT_ERROR_REPLY(refused, 292, "QueryExceededMemoryLimitNoDiskUseAllowed");
    EXPECT_EQ(String(refused, "errmsg"),
              "Sort exceeded memory limit of 104857600 bytes, but did not opt in to external sorting.");

    const auto started = std::chrono::steady_clock::now();
    BsonDoc spilled = Aggregate(full, true);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ASSERT_OK_REPLY(spilled);
    std::vector<int64_t> rs = Rs(spilled);
    ASSERT_EQ(rs.size(), static_cast<size_t>(kBigDocs));
    for (int i = 0; i < kBigDocs; ++i) ASSERT_EQ(rs[i], i) << "at " << i;
    EXPECT_TRUE(std::filesystem::is_directory(server_->dbpath() + "/_tmp"));
    std::printf("aggregate sort spill over 110 MiB%s: %.2f s\n", *prefix ? " (stage)" : " (pushed)", seconds);

    // Top-k: three documents held, no allowDiskUse needed.
    BsonDoc top = Aggregate(std::string("[") + prefix +
                                R"({"$sort": {"r": -1}}, {"$skip": 1}, {"$limit": 3}, {"$project": {"pad": 0}}])",
                            false);
    ASSERT_OK_REPLY(top);
    EXPECT_EQ(Rs(top), (std::vector<int64_t>{kBigDocs - 2, kBigDocs - 3, kBigDocs - 4}));
  }
}

}  // namespace
}  // namespace tigerdoc::e2e
