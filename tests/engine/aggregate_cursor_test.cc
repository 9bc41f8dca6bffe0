// AggregateCursor on an in-memory Engine: the request's Interrupt reaches
// the pipeline (an expired deadline is MaxTimeMSExpired, a set kill flag is
// CursorKilled, whatever the stages), the scan takes the command's hint
// (BadValue for an unknown index), and each scan the pipeline opens — its
// own and a $lookup's — counts one use of the index its plan reads.

#include "engine/aggregate_cursor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/command_expressions.h"
#include "engine/engine.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

class AggregateCursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
    std::vector<BsonDoc> docs;
    for (int i = 0; i < 1000; ++i) {
      docs.push_back(BsonDoc::FromJson("{\"_id\": " + std::to_string(i) + ", \"a\": " +
                                       std::to_string(i) + ", \"b\": " + std::to_string(i % 10) + "}"));
    }
    auto inserted = engine_->InsertMany("db", "c", std::move(docs), /*ordered=*/true);
    ASSERT_TRUE(inserted.ok());
    CreateIndexesParams index;
    index.db = "db";
    index.coll = "c";
    index.specs.push_back(BsonDoc::FromJson(R"({"key": {"a": 1}, "name": "a_1"})"));
    index.specs.push_back(BsonDoc::FromJson(R"({"key": {"b": 1}, "name": "b_1"})"));
    ASSERT_TRUE(engine_->CreateIndexes(index).ok());
  }

  StatusWith<std::unique_ptr<AggregateCursor>> Open(const char* pipeline_json,
                                                    const ScanOptions& scan = {},
                                                    size_t max_memory_bytes = 0,
                                                    const std::string& temp_dir = "") {
    auto expressions = CommandExpressions::Make("db", nullptr);
    EXPECT_TRUE(expressions.ok());
    if (max_memory_bytes > 0) expressions.value().ctx.max_memory_bytes = max_memory_bytes;
    if (!temp_dir.empty()) expressions.value().ctx.temp_dir = temp_dir;
    BsonDoc wrapped = BsonDoc::FromJson(std::string("{\"p\": ") + pipeline_json + "}");
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, wrapped.get(), "p"));
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_array(&it, &len, &data);
    pipeline_ = BsonDoc::CopyOf(data, len);
    return AggregateCursor::Make(engine_.get(), "db", "c", pipeline_.get(),
                                 std::move(expressions.value().ctx), std::nullopt, scan);
  }

  Status Drain(AggregateCursor& cursor, std::vector<BsonDoc>* out) {
    storage::Session session = engine_->storage().NewSession();
    bool exhausted = false;
    while (!exhausted) {
      Status st = cursor.FillBatch(session, 100, kMaxBatchBytes, out, &exhausted);
      if (!st.ok()) return st;
    }
    return Status::OK();
  }

  int64_t Ops(int64_t index_id) {
    return engine_->catalog().Lookup("db.c")->indexes()->FindById(index_id)->usage->ops();
  }

  std::unique_ptr<Engine> engine_;
  BsonDoc pipeline_;
};

TEST_F(AggregateCursorTest, AnExpiredDeadlineStopsEveryKindOfPipeline) {
  for (const char* pipeline :
       {R"([{"$group": {"_id": "$b", "n": {"$sum": 1}}}])", R"([{"$sort": {"b": -1}}])",
        R"([{"$match": {"a": {"$gte": 0}}}])",
        R"([{"$lookup": {"from": "c", "localField": "a", "foreignField": "b", "as": "m"}}])"}) {
    auto cursor = Open(pipeline);
    ASSERT_TRUE(cursor.ok()) << pipeline << ": " << cursor.status().ToString();
    cursor.value()->SetInterrupt(
        query::Interrupt::WithDeadline(std::chrono::steady_clock::now() - std::chrono::milliseconds(1)));
    std::vector<BsonDoc> docs;
    Status st = Drain(*cursor.value(), &docs);
    EXPECT_EQ(st.code(), ErrorCode::kMaxTimeMSExpired) << pipeline << ": " << st.ToString();
    EXPECT_EQ(st.reason(), "operation exceeded time limit");
  }
}

TEST_F(AggregateCursorTest, AKillFlagStopsTheCursorAndAGenerousDeadlineDoesNot) {
  auto cursor = Open(R"([{"$group": {"_id": "$b", "n": {"$sum": 1}}}])");
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  std::atomic<bool> killed{true};
  query::Interrupt interrupt =
      query::Interrupt::WithDeadline(std::chrono::steady_clock::now() + std::chrono::hours(1));
  interrupt.set_kill_flag(&killed);
  cursor.value()->SetInterrupt(interrupt);
  std::vector<BsonDoc> docs;
  EXPECT_EQ(Drain(*cursor.value(), &docs).code(), ErrorCode::kCursorKilled);

  auto fresh = Open(R"([{"$group": {"_id": "$b", "n": {"$sum": 1}}}])");
  ASSERT_TRUE(fresh.ok());
  killed = false;
  fresh.value()->SetInterrupt(interrupt);
  docs.clear();
  ASSERT_TRUE(Drain(*fresh.value(), &docs).ok());
  EXPECT_EQ(docs.size(), 10u);
  ASSERT_TRUE(fresh.value()->deadline().has_value());
}

TEST_F(AggregateCursorTest, TheScanTakesTheHintAndEveryScanCountsItsIndex) {
  const int64_t a_id = 1, b_id = 2;
  ScanOptions unknown;
  unknown.hint = query::IndexHint::kIndex;
  unknown.hint_index = BsonDoc::FromJson(R"({"": "nope"})");
  auto bad = Open(R"([{"$match": {"a": 3}}])", unknown);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(bad.status().reason(), "hint provided does not correspond to an existing index");

  // Unhinted, the selective a_1 is chosen; hinted, b_1 is read.
  auto plain = Open(R"([{"$match": {"a": 3, "b": 3}}])");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Ops(a_id), 1);
  EXPECT_EQ(Ops(b_id), 0);
  ScanOptions hinted;
  hinted.hint = query::IndexHint::kIndex;
  hinted.hint_index = BsonDoc::FromJson(R"({"b": 1})");
  auto cursor = Open(R"([{"$match": {"a": 3, "b": 3}}])", hinted);
  ASSERT_TRUE(cursor.ok());
  std::vector<BsonDoc> docs;
  ASSERT_TRUE(Drain(*cursor.value(), &docs).ok());
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(Ops(a_id), 1);
  EXPECT_EQ(Ops(b_id), 1);

  // A $lookup opens one scan per input document, each a use of b_1.
  auto lookup = Open(R"([{"$match": {"a": {"$lt": 3}}},
      {"$lookup": {"from": "c", "localField": "a", "foreignField": "b", "as": "m"}}])");
  ASSERT_TRUE(lookup.ok());
  docs.clear();
  ASSERT_TRUE(Drain(*lookup.value(), &docs).ok());
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(Ops(a_id), 2);
  EXPECT_EQ(Ops(b_id), 1 + 3);
}

}  // namespace
}  // namespace tigerdoc::engine

namespace tigerdoc::engine {
namespace {

// $merge reads its whole input before its first write only when the
// pipeline may read its target: into another collection it merges as it
// reads (nothing spills under a tiny memory limit); into the scanned
// collection, or after a $lookup, it buffers (and spills past the limit).
TEST_F(AggregateCursorTest, MergeBuffersItsInputOnlyWhenThePipelineMayReadItsTarget) {
  struct Case {
    const char* pipeline;
    const char* target;
    bool buffers;
  };
  const Case cases[] = {
      {R"([{"$merge": {"into": "other"}}])", "db.other", false},
      {R"([{"$match": {"a": {"$gte": 0}}}, {"$merge": {"into": "c", "whenMatched": "merge"}}])", "db.c",
       true},
      {R"([{"$lookup": {"from": "x", "localField": "a", "foreignField": "a", "as": "l"}},
           {"$merge": {"into": "other2"}}])",
       "db.other2", true},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pipeline);
    const std::string dir = ::testing::TempDir() + "/merge_buffer_" + std::to_string(n++);
    std::filesystem::remove_all(dir);
    auto cursor = Open(c.pipeline, {}, /*max_memory_bytes=*/4096, dir);
    ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
    std::vector<BsonDoc> out;
    ASSERT_TRUE(Drain(*cursor.value(), &out).ok());
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(std::filesystem::exists(dir), c.buffers);
    CountParams count;
    count.db = "db";
    count.coll = std::string(c.target).substr(3);
    auto counted = engine_->Count(count);
    ASSERT_TRUE(counted.ok()) << counted.status().ToString();
    EXPECT_EQ(counted.value(), 1000);
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace tigerdoc::engine
