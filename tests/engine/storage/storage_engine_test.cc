// StorageEngine / Session / Cursor against an in-memory WiredTiger.

#include "engine/storage/storage_engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/engine/storage/in_memory_storage.h"

namespace tigerdoc::storage {
namespace {

std::vector<std::string> ScanKeys(Session& session, std::string_view table,
                                  std::string_view lower, std::string_view upper) {
  auto cursor = session.Scan(table, lower, upper);
  EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
  std::vector<std::string> keys;
  Status status;
  while (cursor.value().Next(&status)) keys.emplace_back(cursor.value().key());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return keys;
}

class StorageEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.CreateTable("t").ok());
  }
  std::unique_ptr<StorageEngine> engine_;
};

TEST_F(StorageEngineTest, SessionsAreReusedFromThePool) {
  __wt_session* first = nullptr;
  {
    Session session = engine_->NewSession();
    first = session.raw();
  }
  Session again = engine_->NewSession();
  EXPECT_EQ(again.raw(), first);
  Session second = engine_->NewSession();  // the pool is empty: a new one
  EXPECT_NE(second.raw(), first);
}

TEST_F(StorageEngineTest, MovedFromSessionDoesNotReturnTwice) {
  Session a = engine_->NewSession();
  __wt_session* raw = a.raw();
  {
    Session b(std::move(a));
    EXPECT_EQ(b.raw(), raw);
  }
  // `a` is moved-from; destroying it must not push `raw` into the pool again,
  // or two borrowers would get the same WT session.
  Session c = engine_->NewSession();
  Session d = engine_->NewSession();
  EXPECT_NE(c.raw(), d.raw());
}

TEST_F(StorageEngineTest, PutGetRemove) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Put("t", "k1", "v1").ok());
  auto got = session.Get("t", "k1");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got.value().has_value());
  EXPECT_EQ(*got.value(), "v1");

  ASSERT_TRUE(session.Put("t", "k1", "v2").ok());  // overwrite
  EXPECT_EQ(*session.Get("t", "k1").value(), "v2");

  ASSERT_TRUE(session.Remove("t", "k1").ok());
  EXPECT_FALSE(session.Get("t", "k1").value().has_value());

  Status missing = session.Remove("t", "k1");
  EXPECT_EQ(missing.code(), ErrorCode::kNoSuchKey);
}

TEST_F(StorageEngineTest, BinaryKeysAndValuesRoundTrip) {
  Session session = engine_->NewSession();
  std::string key("a\0b\xff", 4), value("\0\0\x01", 3);
  ASSERT_TRUE(session.Insert("t", key, value).ok());
  EXPECT_EQ(*session.Get("t", key).value(), value);
  EXPECT_FALSE(session.Get("t", std::string("a\0b", 3)).value().has_value());
}

TEST_F(StorageEngineTest, InsertOfExistingKeyIsDuplicateKey) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Insert("t", "k", "v1").ok());
  Status dup = session.Insert("t", "k", "v2");
  EXPECT_EQ(dup.code(), ErrorCode::kDuplicateKey);
  EXPECT_EQ(dup.code_number(), 11000);
  EXPECT_EQ(*session.Get("t", "k").value(), "v1");  // not overwritten
}

TEST_F(StorageEngineTest, DuplicateKeyLeavesTransactionUsable) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Insert("t", "k", "v").ok());
  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(session.Insert("t", "k", "x").code(), ErrorCode::kDuplicateKey);
  ASSERT_TRUE(session.Insert("t", "k2", "v2").ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_TRUE(session.Get("t", "k2").value().has_value());
}

TEST_F(StorageEngineTest, OperationsOnMissingTableFail) {
  Session session = engine_->NewSession();
  EXPECT_FALSE(session.Put("nope", "k", "v").ok());
  EXPECT_FALSE(session.Get("nope", "k").ok());
  EXPECT_FALSE(session.Scan("nope", "", "").ok());
}

TEST_F(StorageEngineTest, ScanHonoursBoundsInByteOrder) {
  Session session = engine_->NewSession();
  for (const char* k : {"a", "ab", "abc", "b", "ba", "c", "\xff"}) {
    ASSERT_TRUE(session.Insert("t", k, "v").ok());
  }
  using Keys = std::vector<std::string>;
  EXPECT_EQ(ScanKeys(session, "t", "", ""), (Keys{"a", "ab", "abc", "b", "ba", "c", "\xff"}));
  EXPECT_EQ(ScanKeys(session, "t", "ab", "b"), (Keys{"ab", "abc"}));    // [lower, upper)
  EXPECT_EQ(ScanKeys(session, "t", "aa", "bb"), (Keys{"ab", "abc", "b", "ba"}));  // lower absent
  EXPECT_EQ(ScanKeys(session, "t", "b", ""), (Keys{"b", "ba", "c", "\xff"}));
  EXPECT_EQ(ScanKeys(session, "t", "", "ab"), (Keys{"a"}));
  EXPECT_EQ(ScanKeys(session, "t", "d", "e"), Keys{});
  EXPECT_EQ(ScanKeys(session, "t", "\xff\x01", ""), Keys{});  // past the last key
  EXPECT_EQ(ScanKeys(session, "t", "bz", "c"), Keys{});       // empty range in the middle
}

TEST_F(StorageEngineTest, CursorStaysAtEndAfterExhaustion) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Insert("t", "a", "1").ok());
  auto cursor = session.Scan("t", "", "");
  ASSERT_TRUE(cursor.ok());
  Status status;
  EXPECT_TRUE(cursor.value().Next(&status));
  EXPECT_FALSE(cursor.value().Next(&status));
  EXPECT_FALSE(cursor.value().Next(&status));  // WT would wrap around to "a"
  EXPECT_TRUE(status.ok());
}

TEST_F(StorageEngineTest, ScanReturnsValuesAndAllowsWritesToTheSameTable) {
  Session session = engine_->NewSession();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(session.Insert("t", std::string("k").append(std::to_string(i)),
                               std::string("v").append(std::to_string(i)))
                    .ok());
  }
  auto cursor = session.Scan("t", "", "");
  ASSERT_TRUE(cursor.ok());
  Status status;
  int seen = 0;
  while (cursor.value().Next(&status)) {
    EXPECT_EQ(cursor.value().value(), std::string("v").append(cursor.value().key().substr(1)));
    // A point write on the same table mid-scan must not move the scan.
    std::string key(cursor.value().key());
    ASSERT_TRUE(session.Put("t", key, "updated").ok());
    ASSERT_TRUE(session.Get("t", "k0").ok());
    ++seen;
  }
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(seen, 5);
  EXPECT_EQ(*session.Get("t", "k4").value(), "updated");
}

TEST_F(StorageEngineTest, TwoScansOfOneTableAreIndependent) {
  Session session = engine_->NewSession();
  for (const char* k : {"a", "b", "c"}) ASSERT_TRUE(session.Insert("t", k, "v").ok());
  auto outer = session.Scan("t", "", "");
  ASSERT_TRUE(outer.ok());
  Status status;
  std::string pairs;
  while (outer.value().Next(&status)) {
    std::string o(outer.value().key());
    auto inner = session.Scan("t", "b", "");
    ASSERT_TRUE(inner.ok());
    Status inner_status;
    while (inner.value().Next(&inner_status)) pairs += o + std::string(inner.value().key()) + " ";
  }
  EXPECT_EQ(pairs, "ab ac bb bc cb cc ");
}

TEST_F(StorageEngineTest, OnRollbackRunsOnRollbackOnly) {
  Session session = engine_->NewSession();
  int undone = 0;
  ASSERT_TRUE(session.Begin().ok());
  session.OnRollback([&] { ++undone; });
  ASSERT_TRUE(session.Put("t", "k", "v").ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(undone, 0);
  ASSERT_TRUE(session.Begin().ok());
  session.OnRollback([&] { ++undone; });
  session.Rollback();
  EXPECT_EQ(undone, 1);
  session.Rollback();  // no transaction: nothing more runs
  EXPECT_EQ(undone, 1);
}

TEST_F(StorageEngineTest, RollbackHidesWritesAndSkipsOnCommitCallbacks) {
  Session session = engine_->NewSession();
  int committed_callbacks = 0;
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(session.Insert("t", "k", "v").ok());
  session.OnCommit([&] { ++committed_callbacks; });
  // Visible to its own transaction.
  EXPECT_TRUE(session.Get("t", "k").value().has_value());
  session.Rollback();
  EXPECT_FALSE(session.in_transaction());
  EXPECT_FALSE(session.Get("t", "k").value().has_value());
  EXPECT_EQ(committed_callbacks, 0);

  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(session.Insert("t", "k", "v").ok());
  session.OnCommit([&] { ++committed_callbacks; });
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(committed_callbacks, 1);
  EXPECT_TRUE(session.Get("t", "k").value().has_value());
}

TEST_F(StorageEngineTest, UncommittedWritesAreInvisibleToOtherSessions) {
  Session writer = engine_->NewSession();
  Session reader = engine_->NewSession();
  ASSERT_TRUE(writer.Begin().ok());
  ASSERT_TRUE(writer.Insert("t", "k", "v").ok());
  EXPECT_FALSE(reader.Get("t", "k").value().has_value());
  ASSERT_TRUE(writer.Commit().ok());
  EXPECT_TRUE(reader.Get("t", "k").value().has_value());
}

TEST_F(StorageEngineTest, SessionReturnedMidTransactionRollsBack) {
  {
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.Begin().ok());
    ASSERT_TRUE(session.Insert("t", "k", "v").ok());
  }
  Session session = engine_->NewSession();
  EXPECT_FALSE(session.in_transaction());
  EXPECT_FALSE(session.Get("t", "k").value().has_value());
}

TEST_F(StorageEngineTest, ConcurrentWritesToOneKeyConflict) {
  Session setup = engine_->NewSession();
  ASSERT_TRUE(setup.Insert("t", "k", "0").ok());

  Session a = engine_->NewSession();
  Session b = engine_->NewSession();
  ASSERT_TRUE(a.Begin().ok());
  ASSERT_TRUE(b.Begin().ok());
  ASSERT_TRUE(a.Put("t", "k", "a").ok());
  Status conflict = b.Put("t", "k", "b");
  EXPECT_EQ(conflict.code(), ErrorCode::kWriteConflict);
  EXPECT_EQ(conflict.code_number(), 112);
  b.Rollback();
  ASSERT_TRUE(a.Commit().ok());
  EXPECT_EQ(*setup.Get("t", "k").value(), "a");
}

TEST_F(StorageEngineTest, SnapshotConflictAfterOtherCommitted) {
  // b's snapshot predates a's commit: b's write must conflict, not overwrite.
  Session a = engine_->NewSession();
  Session b = engine_->NewSession();
  ASSERT_TRUE(b.Begin().ok());
  EXPECT_FALSE(b.Get("t", "k").value().has_value());  // takes b's snapshot
  ASSERT_TRUE(a.Insert("t", "k", "a").ok());           // auto-commit
  EXPECT_EQ(b.Put("t", "k", "b").code(), ErrorCode::kWriteConflict);
  b.Rollback();
}

// Begin() passes WiredTiger no isolation of its own: transactions inherit
// the session's snapshot isolation, on fresh and on pooled sessions alike.
// Under read-committed the second read would see the other commit.
TEST_F(StorageEngineTest, TransactionsReadOneSnapshotOnFreshAndPooledSessions) {
  for (int round = 0; round < 3; ++round) {  // later rounds reuse pooled sessions
    const std::string key = "snap" + std::to_string(round);
    Session a = engine_->NewSession();
    Session b = engine_->NewSession();
    ASSERT_TRUE(b.Begin().ok());
    EXPECT_FALSE(b.Get("t", key).value().has_value()) << round;
    ASSERT_TRUE(a.Insert("t", key, "a").ok());  // auto-commit
    EXPECT_FALSE(b.Get("t", key).value().has_value()) << round;
    ASSERT_TRUE(b.Commit().ok());
    EXPECT_TRUE(b.Get("t", key).value().has_value()) << round;
  }
}

TEST_F(StorageEngineTest, CreateListAndDropTables) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.CreateTable("x-s0").ok());
  ASSERT_TRUE(session.CreateTable("x-s0").ok());  // idempotent
  auto tables = session.ListTables();
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(tables.value(), (std::vector<std::string>{"t", "x-s0"}));
  ASSERT_TRUE(session.DropTable("x-s0").ok());
  ASSERT_TRUE(session.DropTable("x-s0").ok());  // missing is OK
  EXPECT_EQ(session.ListTables().value(), std::vector<std::string>{"t"});
}

TEST_F(StorageEngineTest, DropSucceedsDespiteCursorsCachedInPooledSessions) {
  {
    // Cache point and scan cursors on "t" in two sessions, then pool them.
    Session s1 = engine_->NewSession();
    Session s2 = engine_->NewSession();
    ASSERT_TRUE(s1.Put("t", "k", "v").ok());
    ASSERT_TRUE(s2.Get("t", "k").ok());
    auto cursor = s2.Scan("t", "", "");
    ASSERT_TRUE(cursor.ok());
  }
  Session dropper = engine_->NewSession();
  ASSERT_TRUE(dropper.Put("t", "k2", "v").ok());  // its own cached cursor too
  ASSERT_TRUE(dropper.DropTable("t").ok());
  EXPECT_TRUE(dropper.ListTables().value().empty());
}

TEST_F(StorageEngineTest, DropWaitsForASessionInUseToComeBack) {
  std::atomic<bool> holding{false};
  std::thread holder([&] {
    Session s = engine_->NewSession();
    ASSERT_TRUE(s.Put("t", "k", "v").ok());  // caches a cursor on "t"
    holding = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  while (!holding) std::this_thread::yield();
  Session dropper = engine_->NewSession();
  EXPECT_TRUE(dropper.DropTable("t").ok());
  holder.join();
}

TEST_F(StorageEngineTest, ManyThreadsShareThePool) {
  constexpr int kThreads = 8, kOps = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kOps; ++i) {
        Session s = engine_->NewSession();
        std::string key = std::to_string(t) + "-" + std::to_string(i);
        ASSERT_TRUE(s.Insert("t", key, "v").ok());
        ASSERT_TRUE(s.Get("t", key).value().has_value());
      }
    });
  }
  for (auto& th : threads) th.join();
  Session s = engine_->NewSession();
  EXPECT_EQ(ScanKeys(s, "t", "", "").size(), static_cast<size_t>(kThreads * kOps));
}

TEST_F(StorageEngineTest, FlushJournalInMemoryIsOk) { EXPECT_TRUE(engine_->FlushJournal().ok()); }

TEST_F(StorageEngineTest, InMemoryEnginesAreIndependent) {
  auto other = OpenInMemoryStorage();  // open at the same time as engine_
  ASSERT_NE(other, nullptr);
  Session mine = engine_->NewSession();
  Session theirs = other->NewSession();
  ASSERT_TRUE(mine.Put("t", "k", "mine").ok());
  EXPECT_FALSE(theirs.Get("t", "k").ok());  // no table "t" there
}

// The one commit that writes its own journal records is one per engine:
// holding it in one engine must not send another engine's commits to the
// group commit.
TEST_F(StorageEngineTest, OwnJournalWriteIsPerEngine) {
  auto other = OpenInMemoryStorage();
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(engine_->TakeOwnJournalWrite());
  EXPECT_FALSE(engine_->TakeOwnJournalWrite());  // held
  EXPECT_TRUE(other->TakeOwnJournalWrite());     // another engine's is free
  EXPECT_FALSE(other->TakeOwnJournalWrite());
  engine_->ReleaseOwnJournalWrite();
  EXPECT_TRUE(engine_->TakeOwnJournalWrite());
  engine_->ReleaseOwnJournalWrite();
  other->ReleaseOwnJournalWrite();
}

}  // namespace
}  // namespace tigerdoc::storage
