// $setWindowFields partitions larger than the memory limit: with
// allowDiskUse their documents go to a spill file (DocumentBuffer) and every
// window function gives exactly what it gives in memory; without it the
// stage fails with MongoDB's 5643011; window function state past the limit
// fails with 5414201 either way.

#include <gtest/gtest.h>

#include "engine/agg/document_buffer.h"
#include "tests/engine/agg/agg_test_util.h"

namespace tigerdoc::agg {
namespace {

using testing::J;
using testing::RunPipeline;

// 300 documents of ~2 KiB in two partitions (p: 0 holds 250), sortBy t with
// ties (t = i / 2, so range windows see several rows per value), x numeric
// with nulls and missing values.
std::vector<std::string> Input() {
  std::vector<std::string> docs;
  const std::string pad(2000, 'z');
  for (int i = 0; i < 300; ++i) {
    std::string x = i % 7 == 0 ? "" : i % 11 == 0 ? R"(, "x": null)" : ", \"x\": " + std::to_string((i * 37) % 101);
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"p\": " + (i < 250 ? "0" : "1") +
                   ", \"t\": " + std::to_string((299 - i) / 2) + x + ", \"pad\": \"" + pad + "\"}");
  }
  return docs;
}

ExpressionContext SmallSpilling() {
  ExpressionContext ctx;
  ctx.max_memory_bytes = 128 * 1024;  // the big partition holds ~1 MiB
  ctx.allow_disk_use = true;
  return ctx;
}

class WindowSpillTest : public ::testing::TestWithParam<const char*> {};

TEST_P(WindowSpillTest, SpilledPartitionGivesTheInMemoryResult) {
  std::string pipeline = std::string(R"([{"$setWindowFields": {"partitionBy": "$p", "sortBy": {"t": 1}, "output": )") +
                         GetParam() + R"(}}, {"$unset": "pad"}])";
  auto in_memory = RunPipeline(pipeline, Input());
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().ToString();
  auto spilled = RunPipeline(pipeline, Input(), SmallSpilling());
  ASSERT_TRUE(spilled.ok()) << spilled.status().ToString();
  ASSERT_EQ(in_memory.value().size(), 300u);
  ASSERT_EQ(spilled.value().size(), 300u);
  for (size_t i = 0; i < 300; ++i) {
    EXPECT_EQ(spilled.value()[i].ToJson(), in_memory.value()[i].ToJson()) << "row " << i;
  }
  // The limit is far below the data: without allowDiskUse even the sort
  // ahead of the stage is refused.
  ExpressionContext no_disk = SmallSpilling();
  no_disk.allow_disk_use = false;
  auto refused = RunPipeline(pipeline, Input(), no_disk);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code_number(), 292) << refused.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Functions, WindowSpillTest, ::testing::Values(
    R"({"s": {"$sum": "$x", "window": {"documents": [-2, 2]}}})",
    R"({"s": {"$avg": "$x", "window": {"documents": ["unbounded", "current"]}}})",
    R"({"s": {"$max": "$x"}, "c": {"$count": {}}})",
    R"({"s": {"$push": "$x", "window": {"documents": [-1, 1]}}})",
    R"({"s": {"$min": "$x", "window": {"documents": ["current", "unbounded"]}}})",
    R"({"r": {"$rank": {}}, "d": {"$denseRank": {}}, "n": {"$documentNumber": {}}})",
    R"({"s": {"$sum": "$x", "window": {"range": [-5, 5]}}})",
    R"({"s": {"$addToSet": "$x", "window": {"range": [-3, 0]}}, "u": {"$min": "$x", "window": {"range": ["unbounded", -3]}}})",
    R"({"a": {"$shift": {"output": "$x", "by": -3, "default": "none"}}, "b": {"$shift": {"output": "$_id", "by": 2}}})",
    R"({"l": {"$locf": "$x"}})",
    R"({"e": {"$expMovingAvg": {"input": "$x", "N": 3}}})",
    R"({"i": {"$integral": {"input": "$x"}, "window": {"range": [-4, 0]}}, "dv": {"$derivative": {"input": "$_id"}, "window": {"documents": [-3, 0]}}})",
    R"({"f": {"$first": "$x", "window": {"documents": [5, 9]}}, "g": {"$last": "$x", "window": {"documents": [-9, -5]}}})"));

TEST(WindowSpill, DescendingSortAndNoPartitionBy) {
  const char* pipeline = R"([{"$setWindowFields": {"sortBy": {"t": -1, "_id": 1}, "output": {
      "s": {"$sum": "$x", "window": {"documents": [-4, 0]}},
      "m": {"$max": "$_id", "window": {"documents": [-2, 2]}}}}}, {"$project": {"s": 1, "m": 1}}])";
  auto in_memory = RunPipeline(pipeline, Input());
  auto spilled = RunPipeline(pipeline, Input(), SmallSpilling());
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().ToString();
  ASSERT_TRUE(spilled.ok()) << spilled.status().ToString();
  ASSERT_EQ(spilled.value().size(), in_memory.value().size());
  for (size_t i = 0; i < spilled.value().size(); ++i) {
    EXPECT_EQ(spilled.value()[i].ToJson(), in_memory.value()[i].ToJson()) << "row " << i;
  }
}

TEST(WindowSpill, PartitionPastTheLimitWithoutAllowDiskUseFailsWith5643011) {
  // 20 documents of ~1 KiB: the sort holds ~21 KiB, the partition is
  // charged ~41 KiB (MongoDB's cache charges about twice the BSON size).
  std::vector<std::string> docs;
  for (int i = 0; i < 20; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"pad\": \"" + std::string(1000, 'q') + "\"}");
  }
  ExpressionContext ctx;
  ctx.max_memory_bytes = 30 * 1024;
  const char* pipeline = R"([{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"v": {"$sum": "$_id"}}}}])";
  auto out = RunPipeline(pipeline, docs, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 5643011) << out.status().ToString();
  EXPECT_EQ(out.status().reason(), "Exceeded max memory. Set 'allowDiskUse: true' to spill to disk");
  ctx.allow_disk_use = true;
  auto ok = RunPipeline(pipeline, docs, ctx);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok.value().size(), 20u);
  EXPECT_EQ(ok.value()[19].ToJson().find("\"v\" : 190") != std::string::npos, true) << ok.value()[19].ToJson();
}

TEST(WindowSpill, WindowFunctionStatePastTheLimitFailsWith5414201EvenWithAllowDiskUse) {
  // $push over the whole partition: every row's output holds every value
  // (60 x 60 x 1 KiB), far more than the 16 KiB limit.
  std::vector<std::string> docs;
  for (int i = 0; i < 60; ++i) {
    docs.push_back("{\"_id\": " + std::to_string(i) + ", \"pad\": \"" + std::string(1000, 'q') + "\"}");
  }
  ExpressionContext ctx = SmallSpilling();
  ctx.max_memory_bytes = 16 * 1024;
  auto out = RunPipeline(
      R"([{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"all": {"$push": "$pad"}}}}])", docs, ctx);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code_number(), 5414201) << out.status().ToString();
  EXPECT_EQ(out.status().reason().rfind("Exceeded memory limit in DocumentSourceSetWindowFields, used ", 0), 0u)
      << out.status().reason();
}

DocumentBuffer::Options Tiny(bool spill_allowed) {
  return DocumentBuffer::Options{16 * 1024, spill_allowed, "", Status(ErrorCode::kBadValue, "over")};
}

TEST(DocumentBuffer, SpillsPastTheLimitAndReadsBackByPosition) {
  DocumentBuffer docs(Tiny(true));
  auto doc = [](int i) { return J("{\"i\": " + std::to_string(i) + ", \"s\": \"" + std::string(i % 50, 'a') + "\"}"); };
  for (int round = 0; round < 2; ++round) {  // the second round reuses the file
    const int n = round == 0 ? 3000 : 400;
    for (int i = 0; i < n; ++i) ASSERT_TRUE(docs.Add(doc(i)).ok());
    ASSERT_TRUE(docs.Finish().ok());
    EXPECT_EQ(docs.size(), static_cast<size_t>(n));
    EXPECT_TRUE(docs.spilled());
    // Forward, backward and jumping reads (the read buffer refills).
    for (int i : {0, 1, n - 1, n / 2, 2, n - 2, n / 3, 0}) {
      auto v = docs.Get(static_cast<size_t>(i));
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      EXPECT_EQ(v.value().ToDoc().ToJson(), doc(i).ToJson());
    }
    for (int i = 0; i < n; ++i) ASSERT_EQ(docs.Get(static_cast<size_t>(i)).value().ToDoc().ToJson(), doc(i).ToJson());
    ASSERT_TRUE(docs.Clear().ok());
    EXPECT_EQ(docs.size(), 0u);
  }
  EXPECT_EQ(docs.spills(), 2);
}

TEST(DocumentBuffer, StaysInMemoryUnderTheLimitAndRefusesPastItWithoutSpilling) {
  DocumentBuffer docs(Tiny(false));
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(docs.Add(J("{\"i\": " + std::to_string(i) + "}")).ok());
  ASSERT_TRUE(docs.Finish().ok());
  EXPECT_FALSE(docs.spilled());
  EXPECT_EQ(docs.Get(7).value().ToDoc().ToJson(), J(R"({"i": 7})").ToJson());
  ASSERT_TRUE(docs.Clear().ok());
  Status s;
  for (int i = 0; i < 1000 && s.ok(); ++i) s = docs.Add(J("{\"i\": " + std::to_string(i) + "}"));
  EXPECT_EQ(s.code(), ErrorCode::kBadValue);
  EXPECT_EQ(s.reason(), "over");
}

}  // namespace
}  // namespace tigerdoc::agg
