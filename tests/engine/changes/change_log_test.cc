// The change log on an in-memory engine: every write kind leaves its row in
// commit order, rolled-back work leaves none, a reader never passes a tick
// still in flight, trimming makes older positions 286, and a waiter wakes
// on a commit.

#include "engine/changes/change_log.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "engine/catalog/change_event.h"
#include "engine/engine.h"
#include "engine/repl/logical_clock.h"
#include "tests/engine/in_memory_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

std::string Field(const BsonDoc& row, const char* name) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, row.get(), name)) return "";
  if (BSON_ITER_HOLDS_UTF8(&it)) return bson_iter_utf8(&it, nullptr);
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) bson_iter_document(&it, &len, &data);
    else bson_iter_array(&it, &len, &data);
    return BsonDoc::CopyOf(data, len).ToJson();
  }
  return "?";
}

class ChangeLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryEngine();
    ASSERT_NE(engine_, nullptr);
    start_ = log().ReadablePosition();
  }

  ChangeLog& log() { return engine_->change_log(); }

  std::vector<LogEntry> ReadAll(LogPosition after) {
    storage::Session session = engine_->storage().NewSession();
    std::vector<LogEntry> rows;
    LogPosition through;
    Status st = log().Read(session, after, 0, &rows, &through);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return rows;
  }

  std::vector<std::string> Ops(LogPosition after) {
    std::vector<std::string> ops;
    for (const LogEntry& e : ReadAll(after)) ops.push_back(Field(e.row, "op"));
    return ops;
  }

  void Insert(const std::string& json) {
    std::vector<BsonDoc> docs;
    docs.push_back(BsonDoc::FromJson(json));
    auto st = engine_->InsertMany("db", "c", std::move(docs), true);
    ASSERT_TRUE(st.ok());
    for (const Status& s : st.value()) ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // A transaction recording one synthetic event, committed by `commit`.
  Status RecordOne(storage::Session& session, const char* op) {
    RETURN_IF_ERROR(session.Begin());
    return log().Record(session, catalog::NamespaceEvent(op, "db", "x"));
  }

  std::unique_ptr<Engine> engine_;
  LogPosition start_;
};

TEST_F(ChangeLogTest, EveryWriteKindLeavesItsRowInCommitOrder) {
  Insert(R"({"_id": 1, "a": 1, "b": {"c": 1, "d": 2}, "arr": [1, 2, 3]})");
  UpdateStatement set;
  set.query = BsonDoc::FromJson(R"({"_id": 1})");
  set.update = BsonDoc::FromJson(R"({"$set": {"a": 2, "arr": [1, 5]}, "$unset": {"b.d": ""}})");
  ASSERT_TRUE(engine_->Update("db", "c", set).ok());
  UpdateStatement replace;
  replace.query = BsonDoc::FromJson(R"({"_id": 1})");
  replace.update = BsonDoc::FromJson(R"({"z": 1})");
  ASSERT_TRUE(engine_->Update("db", "c", replace).ok());
  DeleteStatement del;
  del.query = BsonDoc::FromJson(R"({"_id": 1})");
  ASSERT_TRUE(engine_->Delete("db", "c", del).ok());
  CreateIndexesParams index;
  index.db = "db";
  index.coll = "c";
  index.specs.push_back(BsonDoc::FromJson(R"({"key": {"z": 1}, "name": "z_1"})"));
  ASSERT_TRUE(engine_->CreateIndexes(index).ok());
  ASSERT_TRUE(engine_->DropCollection("db", "c").ok());

  std::vector<LogEntry> rows = ReadAll(start_);
  std::vector<std::string> ops;
  for (const LogEntry& e : rows) ops.push_back(Field(e.row, "op"));
  EXPECT_EQ(ops, (std::vector<std::string>{"create", "insert", "update", "replace", "delete",
                                           "createIndexes", "drop"}));
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_TRUE(rows[i - 1].pos < rows[i].pos);
  const BsonDoc& update = rows[2].row;
  EXPECT_EQ(Field(update, "key"), R"({ "_id" : 1 })");
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, update.get(), "upd"));
  const std::string upd = Field(update, "upd");
  EXPECT_NE(upd.find(R"("a" : 2)"), std::string::npos) << upd;
  EXPECT_NE(upd.find(R"("arr.1" : 5)"), std::string::npos) << upd;
  EXPECT_NE(upd.find(R"("removedFields" : [ "b.d" ])"), std::string::npos) << upd;
  EXPECT_NE(upd.find(R"({ "field" : "arr", "newSize" : 2 })"), std::string::npos) << upd;
  EXPECT_EQ(Field(rows[3].row, "doc"), R"({ "_id" : 1, "z" : 1 })");
  // Without changeStreamPreAndPostImages no images are kept.
  EXPECT_FALSE(bson_iter_init_find(&it, rows[4].row.get(), "pre"));
}

TEST_F(ChangeLogTest, FailedAndRolledBackWritesLeaveNoRow) {
  Insert(R"({"_id": 1})");
  std::vector<BsonDoc> dup;
  dup.push_back(BsonDoc::FromJson(R"({"_id": 1})"));
  auto result = engine_->InsertMany("db", "c", std::move(dup), true);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.value()[0].code(), ErrorCode::kDuplicateKey);
  {
    storage::Session session = engine_->storage().NewSession();
    ASSERT_TRUE(RecordOne(session, "drop").ok());
    session.Rollback();
  }
  EXPECT_EQ(Ops(start_), (std::vector<std::string>{"create", "insert"}));
}

TEST_F(ChangeLogTest, ReaderStopsBelowTheOldestTickInFlight) {
  // A: takes its tick, then stalls before committing.
  std::promise<void> a_flushed, release_a;
  std::shared_future<void> release = release_a.get_future().share();
  std::thread a([&] {
    storage::Session session = engine_->storage().NewSession();
    ASSERT_TRUE(RecordOne(session, "first").ok());
    session.BeforeCommit([&](storage::Session&) {
      a_flushed.set_value();
      release.wait();
      return Status::OK();
    });
    ASSERT_TRUE(session.Commit().ok());
  });
  a_flushed.get_future().wait();
  // B: a later tick, committed first.
  {
    storage::Session session = engine_->storage().NewSession();
    ASSERT_TRUE(RecordOne(session, "second").ok());
    ASSERT_TRUE(session.Commit().ok());
  }
  EXPECT_TRUE(Ops(start_).empty()) << "a reader passed a tick still in flight";
  release_a.set_value();
  a.join();
  EXPECT_EQ(Ops(start_), (std::vector<std::string>{"first", "second"}));
}

TEST_F(ChangeLogTest, TrimmedHistoryIsLostNotSkipped) {
  for (int i = 0; i < 50; ++i) Insert("{\"_id\": " + std::to_string(i) + "}");
  const LogPosition middle = ReadAll(start_)[25].pos;
  EXPECT_GT(log().total_bytes(), 0);
  log().SetRetention(1, 24 * 3600);  // keep nothing beyond one byte
  ASSERT_TRUE(log().TrimNow().ok());
  storage::Session session = engine_->storage().NewSession();
  std::vector<LogEntry> rows;
  LogPosition through;
  Status lost = log().Read(session, middle, 0, &rows, &through);
  EXPECT_EQ(lost.code(), ErrorCode::kChangeStreamHistoryLost) << lost.ToString();
  // Reading from the newest position still works, and new rows come.
  const LogPosition now = log().ReadablePosition();
  EXPECT_TRUE(log().Read(session, now, 0, &rows, &through).ok());
  log().SetRetention(int64_t{1} << 30, 24 * 3600);
  Insert(R"({"_id": "after"})");
  EXPECT_EQ(Ops(now), (std::vector<std::string>{"insert"}));
}

TEST_F(ChangeLogTest, TrimByAgeKeepsRecentRows) {
  Insert(R"({"_id": 1})");
  log().SetRetention(int64_t{1} << 30, 3600);
  ASSERT_TRUE(log().TrimNow().ok());
  EXPECT_EQ(Ops(start_), (std::vector<std::string>{"create", "insert"}));
}

TEST_F(ChangeLogTest, WaiterWakesOnCommitNotAtItsDeadline) {
  const LogPosition from = log().ReadablePosition();
  const auto begin = std::chrono::steady_clock::now();
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Insert(R"({"_id": 1})");
  });
  const bool woke = log().WaitBeyond(from, begin + std::chrono::seconds(30), nullptr);
  writer.join();
  EXPECT_TRUE(woke);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10));
}

TEST_F(ChangeLogTest, TransactionChangesCarryLsidAndTxnNumber) {
  storage::Session session = engine_->storage().NewSession();
  ASSERT_TRUE(RecordOne(session, "insert").ok());
  ASSERT_TRUE(log().Record(session, catalog::NamespaceEvent("delete", "db", "x")).ok());
  BsonDoc lsid = BsonDoc::FromJson(R"({"id": "session-1"})");
  log().SetTransactionInfo(session, lsid.get(), 7);
  ASSERT_TRUE(session.Commit().ok());
  std::vector<LogEntry> rows = ReadAll(start_);
  ASSERT_EQ(rows.size(), 2u);
  for (const LogEntry& row : rows) {
    EXPECT_EQ(Field(row.row, "lsid"), R"({ "id" : "session-1" })");
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init_find(&it, row.row.get(), "txnNumber"));
    EXPECT_EQ(bson_iter_as_int64(&it), 7);
  }
  // Both changes of the transaction share its tick.
  EXPECT_TRUE(rows[0].pos.ts == rows[1].pos.ts);
  EXPECT_EQ(rows[1].pos.seq, 1u);
}

TEST_F(ChangeLogTest, KeysSortAsPositions) {
  LogPosition a{{100, 5}, 0}, b{{100, 5}, 1}, c{{100, 6}, 0}, d{{101, 0}, 0};
  EXPECT_LT(ChangeLog::EncodeKey(a), ChangeLog::EncodeKey(b));
  EXPECT_LT(ChangeLog::EncodeKey(b), ChangeLog::EncodeKey(c));
  EXPECT_LT(ChangeLog::EncodeKey(c), ChangeLog::EncodeKey(d));
  LogPosition decoded;
  ASSERT_TRUE(ChangeLog::DecodeKey(ChangeLog::EncodeKey(c), &decoded));
  EXPECT_EQ(decoded, c);
  EXPECT_FALSE(ChangeLog::DecodeKey("m", &decoded));
  EXPECT_TRUE(LogPosition::Before(repl::Timestamp{100, 6}) < c);
  EXPECT_TRUE(b < LogPosition::Before(repl::Timestamp{100, 6}));
}

TEST(LogicalClockTest, TicksIncreaseAndFollowAdvance) {
  repl::LogicalClock clock;
  repl::Timestamp a = clock.Tick();
  repl::Timestamp b = clock.Tick();
  EXPECT_TRUE(a < b);
  clock.AdvanceTo(repl::Timestamp{b.seconds + 100, 7});
  repl::Timestamp c = clock.Tick();
  EXPECT_TRUE((repl::Timestamp{b.seconds + 100, 7}) < c);
  EXPECT_TRUE(clock.Now() == c);
}

}  // namespace
}  // namespace tigerdoc::engine
