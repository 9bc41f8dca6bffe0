// Progress of long work over existing documents, as currentOp shows it
// (engine/progress_meter.h): a pattern's backfill when collMod attaches it
// (patterns/common/backfill_walk.h) and an index build, each reported on the
// operation that runs it; in-memory engine.

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/log/log.h"
#include "engine/operation_registry.h"
#include "engine/progress_meter.h"
#include "patterns/discriminator/discriminator_pattern.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::patterns {
namespace {

using bson::BsonDoc;

constexpr int kDocs = 2500;  // more than two 1,000-document steps

class BackfillProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = pattern_testing::OpenEngineWith(discriminator::MakeDiscriminatorPattern());
    ASSERT_NE(engine_, nullptr);
    ASSERT_TRUE(engine_->CreateCollection(pattern_testing::CreateIn("events", "{}")).ok());
    std::vector<BsonDoc> docs;
    for (int i = 0; i < kDocs; ++i) {
      docs.push_back(BsonDoc::FromJson(R"({"_id": )" + std::to_string(i) + R"(, "type": "user.login"})"));
    }
    auto inserted = engine_->InsertMany("db", "events", std::move(docs), true);
    ASSERT_TRUE(inserted.ok());
  }

  // What currentOp shows of `op` after the work.
  static BsonDoc Shown(engine::ScopedOperation& op) { return op.operation().ToCurrentOp("h"); }

  static int64_t Int(const BsonDoc& doc, const char* path) {
    bson_iter_t it;
    if (!bson_iter_init(&it, doc.get()) || !bson_iter_find_descendant(&it, path, &it)) return -1;
    return bson_iter_as_int64(&it);
  }
  static std::string Str(const BsonDoc& doc, const char* path) {
    bson_iter_t it;
    if (!bson_iter_init(&it, doc.get()) || !bson_iter_find_descendant(&it, path, &it) ||
        !BSON_ITER_HOLDS_UTF8(&it)) {
      return "";
    }
    return bson_iter_utf8(&it, nullptr);
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(BackfillProgressTest, CollModAttachingAPatternReportsItsWalk) {
  engine::OperationInfo info;
  info.ns = "db.events";
  engine::ScopedOperation op(engine_->operations(), info);
  ASSERT_TRUE(engine_->ModifyPatterns("db", "events", BsonDoc::FromJson(
      R"({"discriminator": {"field": "type", "types": {"user.login": {}}}})").get()).ok());
  BsonDoc shown = Shown(op);
  EXPECT_EQ(Int(shown, "progress.done"), kDocs) << shown.ToJson();
  EXPECT_EQ(Int(shown, "progress.total"), kDocs) << shown.ToJson();
  EXPECT_EQ(Str(shown, "msg"), "Pattern backfill: discriminator: 2500/2500 100%") << shown.ToJson();
}

TEST_F(BackfillProgressTest, IndexBuildReportsDocumentsScanned) {
  engine::OperationInfo info;
  info.ns = "db.events";
  engine::ScopedOperation op(engine_->operations(), info);
  engine::CreateIndexesParams params;
  params.db = "db";
  params.coll = "events";
  params.specs.push_back(BsonDoc::FromJson(R"({"key": {"type": 1}, "name": "type_1"})"));
  ASSERT_TRUE(engine_->CreateIndexes(params).ok());
  BsonDoc shown = Shown(op);
  EXPECT_EQ(Int(shown, "progress.done"), kDocs) << shown.ToJson();
  EXPECT_EQ(Int(shown, "progress.total"), kDocs) << shown.ToJson();
  // The last phase shown: the sorted keys loaded into the index (one per document).
  EXPECT_EQ(Str(shown, "msg"), "Index Build: inserting keys from external sorter into index: 2500/2500 100%")
      << shown.ToJson();
}

TEST_F(BackfillProgressTest, WorkOutsideAnOperationStillRuns) {
  // No registered operation on this thread: nothing to report to.
  EXPECT_EQ(engine::CurrentOperation(), nullptr);
  engine::CreateIndexesParams params;
  params.db = "db";
  params.coll = "events";
  params.specs.push_back(BsonDoc::FromJson(R"({"key": {"type": -1}, "name": "type_-1"})"));
  EXPECT_TRUE(engine_->CreateIndexes(params).ok());
}

TEST_F(BackfillProgressTest, MeterLogsMongodsProgressLineAtItsInterval) {
  const int64_t before = log::RecentLines("global").total_lines_written;
  {
    // Every step logs with no interval; with the default (3 s) none of
    // these quick steps would.
    engine::ProgressMeter quick("Index Build: scanning collection", "db.events", 10, std::chrono::milliseconds(0));
    quick.Add(4);
    quick.Add(6);
    engine::ProgressMeter slow_to_log("Index Build: scanning collection", "db.events", 10);
    slow_to_log.Add(10);
  }
  log::Recent recent = log::RecentLines("global");
  ASSERT_EQ(recent.total_lines_written - before, 2);
  const std::string& line = recent.lines[recent.lines.size() - 1];
  EXPECT_NE(line.find(R"("c":"-","id":51773,)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("msg":"progress meter","attr":{ "name" : "Index Build: scanning collection", )"
                      R"("namespace" : "db.events", "done" : 10, "total" : 10, "percent" : 100 })"),
            std::string::npos)
      << line;
  EXPECT_NE(recent.lines[recent.lines.size() - 2].find(R"("done" : 4, "total" : 10, "percent" : 40 })"),
            std::string::npos);
}

TEST_F(BackfillProgressTest, CurrentOperationIsTheInnermostScope) {
  engine::OperationInfo info;
  engine::ScopedOperation outer(engine_->operations(), info);
  EXPECT_EQ(engine::CurrentOperation(), &outer.operation());
  {
    engine::ScopedOperation inner(engine_->operations(), info);
    EXPECT_EQ(engine::CurrentOperation(), &inner.operation());
  }
  EXPECT_EQ(engine::CurrentOperation(), &outer.operation());
}

}  // namespace
}  // namespace tigerdoc::patterns
