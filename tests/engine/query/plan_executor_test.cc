// The find path through the Engine facade on in-memory WiredTiger: blocking
// sort spilling under a small memory limit, top-k, ordered shard merges,
// maxTimeMS, hint/min/max, returnKey, showRecordId, and cursors killed while
// pinned.

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "engine/query/plan_executor.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

constexpr char kDb[] = "db";
constexpr char kColl[] = "c";

class FindEngineTest : public ::testing::Test {
 protected:
  void Open(int64_t sort_bytes = 100 * 1024 * 1024) {
    EngineOptions options = InMemoryEngineOptions();
    options.max_blocking_sort_bytes = sort_bytes;
    engine_ = OpenInMemoryEngine(options);
    ASSERT_NE(engine_, nullptr);
  }

  // _id = i, r = a pseudo-random number (distinct), g = i % 10, pad bytes.
  void Fill(int n, size_t pad = 50, std::string coll = kColl) {
    std::mt19937 rng(7);
    std::vector<int> r(n);
    for (int i = 0; i < n; ++i) r[i] = i;
    std::shuffle(r.begin(), r.end(), rng);
    std::vector<BsonDoc> docs;
    for (int i = 0; i < n; ++i) {
      BsonDoc d;
      BSON_APPEND_INT32(d.mutable_get(), "_id", i);
      BSON_APPEND_INT32(d.mutable_get(), "r", r[i]);
      BSON_APPEND_INT32(d.mutable_get(), "g", i % 10);
      BSON_APPEND_UTF8(d.mutable_get(), "pad", std::string(pad, 'p').c_str());
      docs.push_back(std::move(d));
    }
    auto inserted = engine_->InsertMany(kDb, coll, std::move(docs), true);
    ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
    for (const Status& st : inserted.value()) ASSERT_TRUE(st.ok()) << st.ToString();
  }

  FindParams Params(const std::string& filter = "{}", const std::string& sort = "{}") {
    FindParams p;
    p.db = kDb;
    p.coll = kColl;
    p.filter = BsonDoc::FromJson(filter);
    p.sort = BsonDoc::FromJson(sort);
    return p;
  }

  static int Int(const BsonDoc& d, const char* field) {
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, d.get(), field)) << field;
    return static_cast<int>(bson_iter_as_int64(&it));
  }

  // Runs the find and every getMore (batches of `batch`); all documents.
  StatusWith<std::vector<BsonDoc>> All(FindParams p, int64_t batch = 1000) {
    p.batch_size = batch;
    ASSIGN_OR_RETURN(CursorBatch b, engine_->Find(p));
    std::vector<BsonDoc> out = std::move(b.docs);
    while (b.cursor_id != 0) {
      GetMoreParams g;
      g.db = kDb;
      g.coll = kColl;
      g.cursor_id = b.cursor_id;
      g.batch_size = batch;
      ASSIGN_OR_RETURN(b, engine_->GetMore(g));
      for (auto& d : b.docs) out.push_back(std::move(d));
    }
    return out;
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(FindEngineTest, BlockingSortOverTheLimitFailsWithoutAllowDiskUse) {
  Open(/*sort_bytes=*/64 * 1024);
  Fill(3000);
  auto r = All(Params("{}", R"({"r": 1})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code_number(), 292);
  EXPECT_EQ(r.status().reason(),
            "Sort exceeded memory limit of 65536 bytes, but did not opt in to external sorting.");
}

TEST_F(FindEngineTest, BlockingSortSpillsWithAllowDiskUseAndPagesInOrder) {
  Open(/*sort_bytes=*/64 * 1024);
  Fill(3000);
  FindParams p = Params("{}", R"({"r": -1})");
  p.allow_disk_use = true;
  auto r = All(std::move(p), 250);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r.value().size(), 3000u);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(Int(r.value()[i], "r"), 2999 - i) << "at " << i;
}

TEST_F(FindEngineTest, ExplainReportsTheSpill) {
  Open(/*sort_bytes=*/64 * 1024);
  Fill(3000);
  FindParams p = Params("{}", R"({"r": 1})");
  p.allow_disk_use = true;
  auto e = engine_->ExplainFind(p, ExplainVerbosity::kExecutionStats);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init(&it, e.value().get()));
  bson_iter_t used;
  ASSERT_TRUE(bson_iter_find_descendant(&it, "executionStats.executionStages.usedDisk", &used));
  EXPECT_TRUE(bson_iter_as_bool(&used));
}

TEST_F(FindEngineTest, TopKStaysWithinTheLimitWithoutDiskUse) {
  Open(/*sort_bytes=*/16 * 1024);
  Fill(5000);
  FindParams p = Params("{}", R"({"r": 1})");
  p.skip = 3;
  p.limit = 5;
  auto r = All(std::move(p));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r.value().size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Int(r.value()[i], "r"), 3 + i);
}

TEST_F(FindEngineTest, SortOnTheShardKeyMergesShardStreamsWithoutASort) {
  // A 1-byte budget: any blocking sort would fail; the shard merge does not
  // hold documents.
  Open(/*sort_bytes=*/1);
  Fill(2000);
  auto r = All(Params(R"({"g": {"$lt": 5}})", R"({"_id": 1})"), 77);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r.value().size(), 1000u);
  int previous = -1;
  for (const BsonDoc& d : r.value()) {
    int id = Int(d, "_id");
    EXPECT_GT(id, previous);
    EXPECT_LT(id % 10, 5);
    previous = id;
  }
  // Descending merges the shard streams read backward: no blocking sort either.
  auto down = All(Params(R"({"g": {"$lt": 5}})", R"({"_id": -1})"), 77);
  ASSERT_TRUE(down.ok()) << down.status().ToString();
  ASSERT_EQ(down.value().size(), 1000u);
  previous = 1 << 30;
  for (const BsonDoc& d : down.value()) {
    int id = Int(d, "_id");
    EXPECT_LT(id, previous);
    previous = id;
  }
  // A sort the record keys cannot give still sorts, and fails here.
  EXPECT_EQ(All(Params("{}", R"({"g": -1})")).status().code_number(), 292);
}

TEST_F(FindEngineTest, ExpiredDeadlineFailsWithMaxTimeMSExpired) {
  Open();
  Fill(500);
  query::FindSpec spec;
  spec.deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(1);
  auto exec = query::PlanExecutor::Make(engine_->catalog().Lookup("db.c"), std::move(spec));
  ASSERT_TRUE(exec.ok());
  storage::Session session = engine_->storage().NewSession();
  std::vector<BsonDoc> out;
  bool exhausted = false;
  Status st = exec.value()->FillBatch(session, 100, kMaxBatchBytes, &out, &exhausted);
  EXPECT_EQ(st.code_number(), 50);
  EXPECT_EQ(st.reason(), "operation exceeded time limit");
  auto count = exec.value()->CountAll(session);
  EXPECT_EQ(count.status().code_number(), 50);
}

TEST_F(FindEngineTest, DeadlinePassingMidScanStopsTheScan) {
  Open();
  Fill(20000, 10);
  query::FindSpec spec;
  spec.filter = BsonDoc::FromJson(R"({"g": 99})");  // matches nothing: one long scan
  spec.deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  auto exec = query::PlanExecutor::Make(engine_->catalog().Lookup("db.c"), std::move(spec));
  ASSERT_TRUE(exec.ok());
  storage::Session session = engine_->storage().NewSession();
  auto count = exec.value()->CountAll(session);
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code_number(), 50);
  EXPECT_LT(exec.value()->total_docs_examined(), 20000);
}

TEST_F(FindEngineTest, GetMoreWithItsOwnMaxTimeMSIsRefusedAndTheCursorSurvives) {
  Open();
  Fill(50);
  FindParams p = Params();
  p.batch_size = 10;
  auto first = engine_->Find(p);
  ASSERT_TRUE(first.ok());
  GetMoreParams g;
  g.db = kDb;
  g.coll = kColl;
  g.cursor_id = first.value().cursor_id;
  g.max_time_ms = 1000;
  auto refused = engine_->GetMore(g);
  EXPECT_EQ(refused.status().code_number(), 2);
  EXPECT_EQ(refused.status().reason(),
            "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
  g.max_time_ms.reset();
  auto more = engine_->GetMore(g);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_EQ(more.value().docs.size(), 40u);
}

TEST_F(FindEngineTest, KillWhilePinnedInterruptsTheGetMoreAndCountsAsKilled) {
  Open();
  Fill(30);
  FindParams p = Params();
  p.batch_size = 1;
  auto first = engine_->Find(p);
  ASSERT_TRUE(first.ok());
  int64_t id = first.value().cursor_id;
  query::CursorManager& cursors = engine_->cursors();
  {
    auto pin = cursors.CheckOut(id, "db.c");
    ASSERT_TRUE(pin.ok());
    auto again = cursors.CheckOut(id, "db.c");
    EXPECT_EQ(again.status().code_number(), 143);
    EXPECT_EQ(again.status().reason(), "cursor id " + std::to_string(id) + " is already in use");
    EXPECT_TRUE(cursors.Kill(id, "db.c"));
    EXPECT_TRUE(pin.value()->kill_pending.load());
    // The running request sees the kill at its next check.
    query::Interrupt interrupt;
    interrupt.set_kill_flag(&pin.value()->kill_pending);
    EXPECT_EQ(interrupt.Check().code_number(), 237);
    pin.value().Return();  // a killed cursor is not checked back in
  }
  EXPECT_EQ(cursors.CheckOut(id, "db.c").status().code_number(), 43);
  EXPECT_EQ(cursors.open_count(), 0u);
}

TEST_F(FindEngineTest, MinMaxRequireTheHintedIdIndex) {
  Open();
  Fill(10);
  FindParams p = Params();
  p.min = BsonDoc::FromJson(R"({"_id": 3})");
  EXPECT_EQ(engine_->Find(p).status().code_number(), 51173);
  p.hint = FindHint::kNaturalForward;
  EXPECT_EQ(engine_->Find(p).status().code_number(), 291);
  p.hint = FindHint::kIdIndex;
  p.min = BsonDoc::FromJson(R"({"a": 3})");
  EXPECT_EQ(engine_->Find(p).status().code_number(), 51174);
  p.min = BsonDoc::FromJson(R"({"_id": 7})");
  p.max = BsonDoc::FromJson(R"({"_id": 7})");
  EXPECT_EQ(engine_->Find(p).status().code_number(), 51175);
  // A missing collection is never planned: no error, no documents.
  p.coll = "missing";
  auto missing = engine_->Find(p);
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing.value().docs.empty());
  EXPECT_EQ(missing.value().cursor_id, 0);
}

TEST_F(FindEngineTest, MinMaxBoundTheIdIndexScanInIdOrder) {
  Open();
  Fill(100);
  FindParams p = Params(R"({"g": {"$ne": 4}})");
  p.hint = FindHint::kIdIndex;
  p.min = BsonDoc::FromJson(R"({"_id": 10})");
  p.max = BsonDoc::FromJson(R"({"_id": 30})");
  auto r = All(std::move(p), 7);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int> ids;
  for (const BsonDoc& d : r.value()) ids.push_back(Int(d, "_id"));
  std::vector<int> want;
  for (int i = 10; i < 30; ++i) {
    if (i % 10 != 4) want.push_back(i);
  }
  EXPECT_EQ(ids, want);
}

TEST_F(FindEngineTest, MinMaxOnACollectionShardedByAnotherKey) {
  Open();
  CreateParams create;
  create.db = kDb;
  create.name = "byg";
  create.shard_key_field = "g";
  create.num_shards = 3;
  ASSERT_TRUE(engine_->CreateCollection(create).ok());
  Fill(60, 5, "byg");
  FindParams p = Params();
  p.coll = "byg";
  p.hint = FindHint::kIdIndex;
  p.max = BsonDoc::FromJson(R"({"_id": 20})");
  auto r = engine_->Find(p);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int> ids;
  for (const BsonDoc& d : r.value().docs) ids.push_back(Int(d, "_id"));
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(ids.size(), 20u);
  EXPECT_EQ(ids.front(), 0);
  EXPECT_EQ(ids.back(), 19);
}

TEST_F(FindEngineTest, ReturnKeyAndShowRecordId) {
  Open();
  Fill(20);
  FindParams p = Params(R"({"_id": {"$lt": 5}})", R"({"_id": 1})");
  p.return_key = true;
  auto collscan = engine_->Find(p);
  ASSERT_TRUE(collscan.ok());
  ASSERT_EQ(collscan.value().docs.size(), 5u);
  for (const BsonDoc& d : collscan.value().docs) EXPECT_TRUE(d.empty());

  p.hint = FindHint::kIdIndex;
  auto ixscan = engine_->Find(p);
  ASSERT_TRUE(ixscan.ok());
  ASSERT_EQ(ixscan.value().docs.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(bson_count_keys(ixscan.value().docs[i].get()), 1u);
    EXPECT_EQ(Int(ixscan.value().docs[i], "_id"), i);
  }

  FindParams q = Params(R"({"_id": {"$lt": 5}})", R"({"_id": 1})");
  q.show_record_id = true;
  q.projection = BsonDoc::FromJson(R"({"g": 1})");
  auto first = engine_->Find(q);
  auto second = engine_->Find(q);
  ASSERT_TRUE(first.ok() && second.ok());
  for (int i = 0; i < 5; ++i) {
    const BsonDoc& d = first.value().docs[i];
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init(&it, d.get()));
    std::vector<std::string> keys;
    while (bson_iter_next(&it)) keys.push_back(bson_iter_key(&it));
    EXPECT_EQ(keys, (std::vector<std::string>{"_id", "g", "$recordId"}));
    ASSERT_TRUE(bson_iter_init_find(&it, d.get(), "$recordId"));
    EXPECT_EQ(bson_iter_type(&it), BSON_TYPE_INT64);
    EXPECT_GT(bson_iter_int64(&it), 0);
    bson_iter_t again;
    ASSERT_TRUE(bson_iter_init_find(&again, second.value().docs[i].get(), "$recordId"));
    EXPECT_EQ(bson_iter_int64(&it), bson_iter_int64(&again)) << "stable across reads";
  }
}

TEST_F(FindEngineTest, TailableOnAnExistingCollectionIsRefused) {
  Open();
  Fill(3);
  FindParams p = Params();
  p.tailable = true;
  auto r = engine_->Find(p);
  EXPECT_EQ(r.status().code_number(), 2);
  EXPECT_EQ(r.status().reason(),
            "error processing query: ns=db.cTree: $and\nSort: {}\nProj: {}\n tailable cursor "
            "requested on non capped collection");
}

TEST_F(FindEngineTest, FindMaxTimeCarriesOverToGetMore) {
  Open();
  Fill(200);
  FindParams p = Params();
  p.batch_size = 1;
  p.max_time_ms = 100000;
  auto first = engine_->Find(p);
  ASSERT_TRUE(first.ok());
  // The budget is for work, not idle time: a pause between batches is free,
  // and the cursor keeps working.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  GetMoreParams g;
  g.db = kDb;
  g.coll = kColl;
  g.cursor_id = first.value().cursor_id;
  auto more = engine_->GetMore(g);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_EQ(more.value().docs.size(), 199u);
}

}  // namespace
}  // namespace tigerdoc::engine
