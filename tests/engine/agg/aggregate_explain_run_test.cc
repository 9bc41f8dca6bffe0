// The run behind aggregate explain's executionStats (engine/
// aggregate_explain_run.h) on an in-memory engine: SplitOf splits pipelines
// as mongos's explain shows them, and running a pipeline split that way
// (each shard's stages over that shard's documents, merged in sort order)
// produces what the pipeline produces unsplit, with per-shard counts that
// add up.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/aggregate_explain_run.h"
#include "engine/engine.h"
#include "engine/query/plan_executor.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

// Lets $out parse (its target does not exist); refuses every write (the
// defaults), so a writer that ran would fail the run.
class NoWriteResolver : public agg::CollectionResolver {
 public:
  StatusWith<agg::WriteTarget> DescribeTarget(std::string_view, std::string_view) override {
    return agg::WriteTarget{};
  }
  StatusWith<std::unique_ptr<agg::DocumentSource>> Open(std::string_view, std::string_view,
                                                        const bson_t*) override {
    return Status(ErrorCode::kInternalError, "not opened in this test");
  }
};

class AggregateExplainRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
    // _id = i, r = distinct pseudo-random, g = i % 10, t = [i, i + 1].
    std::mt19937 rng(11);
    std::vector<int> r(kDocs);
    for (int i = 0; i < kDocs; ++i) r[i] = i;
    std::shuffle(r.begin(), r.end(), rng);
    std::vector<BsonDoc> docs;
    for (int i = 0; i < kDocs; ++i) {
      docs.push_back(BsonDoc::FromJson("{\"_id\": " + std::to_string(i) + ", \"r\": " + std::to_string(r[i]) +
                                       ", \"g\": " + std::to_string(i % 10) + ", \"t\": [" +
                                       std::to_string(i) + ", " + std::to_string(i + 1) + "]}"));
    }
    auto inserted = engine_->InsertMany("db", "c", std::move(docs), true);
    ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
  }

  StatusWith<std::unique_ptr<query::PlanExecutor>> Executor(const PipelineSplit& split) {
    query::FindSpec spec;
    if (split.cursor_filter) spec.filter = split.cursor_filter->Copy();
    if (split.cursor_sort) spec.sort = split.cursor_sort->Copy();
    if (split.cursor_limit) spec.limit = *split.cursor_limit;
    return query::PlanExecutor::Make(engine_->catalog().Lookup("db.c"), std::move(spec), engine_->Planner());
  }

  // Every document of the collection, in scan order.
  std::vector<BsonDoc> AllDocs() {
    auto exec = Executor(PipelineSplit{});
    EXPECT_TRUE(exec.ok());
    storage::Session session = engine_->storage().NewSession();
    std::vector<BsonDoc> out;
    bool exhausted = false;
    while (!exhausted) EXPECT_TRUE(exec.value()->FillBatch(session, 1000, 1 << 24, &out, &exhausted).ok());
    return out;
  }

  struct Ran {
    PipelineSplit split;
    PipelineRunStats stats;
    std::vector<std::string> split_results;
    std::vector<std::string> unsplit_results;
  };

  // Runs `pipeline_json` (a JSON array of stages) split and, with
  // `unsplit`, unsplit over every document.
  Ran Run(const std::string& pipeline_json, bool unsplit_too = true) {
    Ran ran;
    BsonDoc array = BsonDoc::FromJson(pipeline_json);
    agg::ExpressionContext ctx;
    ctx.db = "db";
    ctx.resolver = &resolver_;
    auto pipeline = agg::Pipeline::Parse(array.get(), ctx);
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    ran.split = SplitOf(pipeline.value(), array.get());
    auto exec = Executor(ran.split);
    EXPECT_TRUE(exec.ok()) << exec.status().ToString();
    std::vector<int> shards;
    for (const query::ScanRange& range : exec.value()->ranges()) {
      if (shards.empty() || shards.back() != range.shard) shards.push_back(range.shard);
    }
    storage::Session session = engine_->storage().NewSession();
    std::vector<BsonDoc> split_out;
    auto stats = RunSplitPipeline(pipeline.value(), ran.split, exec.value().get(), shards, std::nullopt,
                                  session, &split_out);
    EXPECT_TRUE(stats.ok()) << stats.status().ToString();
    if (stats.ok()) ran.stats = std::move(stats.value());
    for (const BsonDoc& d : split_out) ran.split_results.push_back(d.ToJson());
    if (!unsplit_too) return ran;
    auto unsplit = agg::RunToVector(pipeline.value(), std::make_unique<agg::VectorDocumentSource>(AllDocs()));
    EXPECT_TRUE(unsplit.ok()) << unsplit.status().ToString();
    if (unsplit.ok()) {
      for (const BsonDoc& d : unsplit.value()) ran.unsplit_results.push_back(d.ToJson());
    }
    return ran;
  }

  static std::vector<std::string> Sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  }

  static int64_t CursorTotal(const PipelineRunStats& stats) {
    int64_t n = 0;
    for (const ShardRunStats& s : stats.shards) n += s.cursor.n_returned;
    return n;
  }
  static int64_t StageTotal(const PipelineRunStats& stats, size_t k) {
    int64_t n = 0;
    for (const ShardRunStats& s : stats.shards) n += s.stages.at(k).n_returned;
    return n;
  }

  static constexpr int kDocs = 300;
  NoWriteResolver resolver_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(AggregateExplainRunTest, PerDocumentShardStagesThenAGroupInTheMerger) {
  Ran ran = Run(R"([{"$match": {"g": {"$lt": 5}}}, {"$unwind": "$t"}, {"$project": {"t": 1, "g": 1}},
      {"$group": {"_id": "$g", "n": {"$sum": 1}, "s": {"$sum": "$t"}}}, {"$sort": {"_id": 1}}])");
  EXPECT_EQ(ran.split.absorbed, 1u);
  EXPECT_EQ(ran.split.split, 3u);
  EXPECT_FALSE(ran.split.merge_sort.has_value());
  EXPECT_EQ(ran.split_results, ran.unsplit_results);
  ASSERT_EQ(ran.split_results.size(), 5u);
  EXPECT_EQ(ran.stats.shards.size(), 4u);
  EXPECT_EQ(CursorTotal(ran.stats), 150);
  EXPECT_EQ(StageTotal(ran.stats, 0), 300);  // $unwind
  EXPECT_EQ(StageTotal(ran.stats, 1), 300);  // $project
  ASSERT_EQ(ran.stats.merger.size(), 2u);
  EXPECT_EQ(ran.stats.merger[0].n_returned, 5);  // $group
  EXPECT_EQ(ran.stats.merger[1].n_returned, 5);  // $sort
}

TEST_F(AggregateExplainRunTest, AShardSortMergesInOrderAndTheLimitAppliesAgain) {
  Ran ran = Run(R"([{"$match": {"g": 3}}, {"$project": {"r": 1}}, {"$sort": {"r": 1}}, {"$limit": 7},
      {"$addFields": {"x": 1}}])");
  EXPECT_EQ(ran.split.absorbed, 1u);
  EXPECT_EQ(ran.split.split, 4u);
  ASSERT_TRUE(ran.split.merge_sort.has_value());
  EXPECT_TRUE(ran.split.limit_again);
  EXPECT_EQ(ran.split_results, ran.unsplit_results);
  EXPECT_EQ(ran.split_results.size(), 7u);
  EXPECT_EQ(StageTotal(ran.stats, 0), 30);  // every match reaches its shard's $sort
  ASSERT_EQ(ran.stats.merger.size(), 2u);
  EXPECT_EQ(ran.stats.merger[0].n_returned, 7);  // $limit again
  EXPECT_EQ(ran.stats.merger[1].n_returned, 7);  // $addFields
}

TEST_F(AggregateExplainRunTest, TheCursorAbsorbsALeadingSortAndLimit) {
  Ran ran = Run(R"([{"$match": {"g": {"$gte": 2}}}, {"$sort": {"r": -1}}, {"$limit": 5}, {"$project": {"r": 1}}])");
  EXPECT_EQ(ran.split.absorbed, 3u);
  EXPECT_EQ(ran.split.split, 3u);
  ASSERT_TRUE(ran.split.cursor_sort.has_value());
  EXPECT_EQ(ran.split.cursor_limit, 5);
  EXPECT_EQ(ran.split_results, ran.unsplit_results);
  EXPECT_EQ(ran.split_results.size(), 5u);
  EXPECT_LE(CursorTotal(ran.stats), 5 + 4);  // at most one more per shard than the merger took

  ran = Run(R"([{"$sort": {"r": 1}}, {"$skip": 3}, {"$limit": 4}])");
  EXPECT_EQ(ran.split.absorbed, 1u);
  EXPECT_EQ(ran.split_results, ran.unsplit_results);
  EXPECT_EQ(ran.split_results.size(), 4u);
}

TEST_F(AggregateExplainRunTest, UnabsorbedSortAfterUnwindAndTheEmptyPipeline) {
  Ran ran = Run(R"([{"$unwind": "$t"}, {"$sort": {"t": 1, "_id": 1}}])");
  EXPECT_EQ(ran.split.absorbed, 0u);
  EXPECT_EQ(ran.split.split, 2u);
  EXPECT_EQ(ran.split_results, ran.unsplit_results);
  EXPECT_EQ(ran.split_results.size(), 600u);

  ran = Run("[]");
  EXPECT_EQ(ran.split.split, 0u);
  EXPECT_EQ(Sorted(ran.split_results), Sorted(ran.unsplit_results));
  EXPECT_EQ(CursorTotal(ran.stats), 300);
}

TEST_F(AggregateExplainRunTest, AFinalWriterDoesNotRun) {
  Ran ran = Run(R"([{"$match": {"g": 1}}, {"$out": "elsewhere"}])", /*unsplit_too=*/false);
  // The pipeline ran up to the writer; the writer did not run (its writes
  // would have failed the run).
  EXPECT_EQ(CursorTotal(ran.stats), 30);
  EXPECT_TRUE(ran.stats.merger.empty());
  EXPECT_EQ(engine_->catalog().Lookup("db.elsewhere"), nullptr);
}

}  // namespace
}  // namespace tigerdoc::engine
