// The $sort stage over the engine's Sorter: past max_memory_bytes it spills
// with allowDiskUse (same output as in memory), fails with 292 without;
// $sort + $limit (and $sort, $skip, $limit) are coalesced into a top-k sort
// that holds only k rows, so they need no allowDiskUse; Pipeline::Run with
// source_sorted leaves the leading $sort out.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::RunPipeline;

// 400 documents of ~1 KiB: k has many ties (k = (i * 37) % 50), so
// stability across spilled runs shows; _id is the input position.
std::vector<std::string> Input() {
  std::vector<std::string> docs;
  const std::string pad(1000, 'p');
  for (int i = 0; i < 400; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"k\": " + std::to_string((i * 37) % 50) +
                   ", \"pad\": \"" + pad + "\"}");
  }
  return docs;
}

ExpressionContext Small(bool allow_disk_use, std::string temp_dir = "") {
  ExpressionContext ctx;
  ctx.max_memory_bytes = 32 * 1024;  // the input is ~400 KiB
  ctx.allow_disk_use = allow_disk_use;
  ctx.temp_dir = std::move(temp_dir);
  return ctx;
}

std::vector<std::string> Json(const std::vector<bson::BsonDoc>& docs) {
  std::vector<std::string> out;
  for (const auto& d : docs) out.push_back(d.ToJson());
  return out;
}

// A directory that cannot be created (its parent is a regular file): a
// sort that spills fails; one that stays in memory never notices.
std::string UnusableDir() {
  const std::string file = ::testing::TempDir() + "/sort_stage_test_not_a_dir";
  std::ofstream(file) << "x";
  return file + "/spill";
}

TEST(SortStage, SpillsWithAllowDiskUseAndGivesTheInMemoryResult) {
  for (const char* pipeline : {R"([{"$sort": {"k": 1}}])", R"([{"$sort": {"k": -1, "_id": -1}}])"}) {
    SCOPED_TRACE(pipeline);
    auto in_memory = RunPipeline(pipeline, Input());
    ASSERT_TRUE(in_memory.ok()) << in_memory.status().ToString();
    ASSERT_EQ(in_memory.value().size(), 400u);
    const std::string dir = ::testing::TempDir() + "/sort_stage_spill";
    std::filesystem::remove_all(dir);
    auto spilled = RunPipeline(pipeline, Input(), Small(true, dir));
    ASSERT_TRUE(spilled.ok()) << spilled.status().ToString();
    EXPECT_EQ(Json(spilled.value()), Json(in_memory.value()));  // same order, ties included
    // It did go to disk: the spill directory was made, and a spill
    // directory that cannot be made fails the same sort.
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    auto cannot_spill = RunPipeline(pipeline, Input(), Small(true, UnusableDir()));
    EXPECT_FALSE(cannot_spill.ok());
  }
}

TEST(SortStage, ExceedingTheLimitWithoutAllowDiskUseIs292) {
  auto refused = RunPipeline(R"([{"$sort": {"k": 1}}])", Input(), Small(false));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code_number(), 292);
  EXPECT_EQ(refused.status().reason(),
            "Sort exceeded memory limit of 32768 bytes, but did not opt in to external sorting.");
}

TEST(SortStage, SortThenLimitIsTopKAndNeedsNoDisk) {
  // Without allowDiskUse, and a spill directory that would fail: the top-k
  // sort holds k rows (~1 KiB each) far under the 32 KiB limit.
  struct Case {
    const char* pipeline;
    const char* unbounded;  // the same result without coalescence
  } cases[] = {
      {R"([{"$sort": {"k": 1}}, {"$limit": 10}])", R"([{"$sort": {"k": 1}}, {"$match": {}}, {"$limit": 10}])"},
      {R"([{"$sort": {"k": -1}}, {"$skip": 5}, {"$limit": 7}])",
       R"([{"$sort": {"k": -1}}, {"$match": {}}, {"$skip": 5}, {"$limit": 7}])"},
      {R"([{"$sort": {"k": 1}}, {"$project": {"k": 1}}, {"$skip": 3}, {"$set": {"z": 1}}, {"$limit": 4}])",
       R"([{"$sort": {"k": 1}}, {"$match": {}}, {"$project": {"k": 1}}, {"$skip": 3}, {"$set": {"z": 1}}, {"$limit": 4}])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pipeline);
    auto top_k = RunPipeline(c.pipeline, Input(), Small(false, UnusableDir()));
    ASSERT_TRUE(top_k.ok()) << top_k.status().ToString();
    auto full = RunPipeline(c.unbounded, Input());
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    EXPECT_EQ(Json(top_k.value()), Json(full.value()));
    EXPECT_FALSE(top_k.value().empty());
    // The barrier ($match) stops the coalescence: a full sort, 292.
    auto refused = RunPipeline(c.unbounded, Input(), Small(false));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code_number(), 292);
  }
}

StatusWith<Pipeline> Parse(const std::string& json) {
  bson::BsonDoc wrapper = testing::J("{\"p\": " + json + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, wrapper.get(), "p");
  bson_t array = bson::SubDocumentView(&it);
  return Pipeline::Parse(&array, ExpressionContext());
}

TEST(SortStage, SortLimitOfEachStage) {
  struct Case {
    const char* pipeline;
    size_t stage;
    int64_t limit;
  } cases[] = {
      {R"([{"$sort": {"a": 1}}, {"$limit": 5}])", 0, 5},
      {R"([{"$match": {"a": 1}}, {"$sort": {"a": 1}}, {"$skip": 2}, {"$skip": 3}, {"$limit": 5}])", 1, 10},
      {R"([{"$sort": {"a": 1}}, {"$unset": "b"}, {"$addFields": {"c": 1}}, {"$limit": 5}])", 0, 5},
      {R"([{"$sort": {"a": 1}}, {"$match": {}}, {"$limit": 5}])", 0, 0},
      {R"([{"$sort": {"a": 1}}, {"$unwind": "$a"}, {"$limit": 5}])", 0, 0},
      {R"([{"$sort": {"a": 1}}, {"$group": {"_id": "$a"}}, {"$limit": 5}])", 0, 0},
      {R"([{"$sort": {"a": 1}}, {"$skip": 9223372036854775807}, {"$limit": 5}])", 0, 0},
      {R"([{"$sort": {"a": 1}}])", 0, 0},
      {R"([{"$limit": 5}, {"$sort": {"a": 1}}, {"$limit": 2}])", 1, 2},
      {R"([{"$limit": 5}])", 0, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pipeline);
    auto p = Parse(c.pipeline);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p.value().sort_limit(c.stage), c.limit);
  }
}

TEST(SortStage, SourceSortedLeavesTheLeadingSortOut) {
  // The input is deliberately unsorted: with source_sorted the leading
  // $sort does not run, a later one does.
  auto p = Parse(R"([{"$match": {"k": {"$lt": 3}}}, {"$sort": {"k": 1}}, {"$project": {"k": 1}}])");
  ASSERT_TRUE(p.ok());
  auto run = [&](bool source_sorted) {
    auto stage = p.value().Run(std::make_unique<VectorDocumentSource>(testing::Docs(Input())),
                               Pipeline::RunOptions{source_sorted});
    EXPECT_TRUE(stage.ok());
    auto docs = Drain(stage.value().get());
    EXPECT_TRUE(docs.ok());
    std::vector<int> keys;
    for (const auto& d : docs.value()) {
      bson_iter_t it;
      EXPECT_TRUE(bson_iter_init_find(&it, d.get(), "k"));
      keys.push_back(bson_iter_int32(&it));
    }
    return keys;
  };
  std::vector<int> sorted = run(false);
  std::vector<int> passed = run(true);
  ASSERT_EQ(sorted.size(), passed.size());
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  EXPECT_FALSE(std::is_sorted(passed.begin(), passed.end()));  // input order kept

  auto later = Parse(R"([{"$project": {"k": 1}}, {"$sort": {"k": 1}}])");
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later.value().leading_sort(), nullptr);
}

}  // namespace
}  // namespace tigerdoc::agg
