// Session::Read and Session::Replace: a read inside a transaction leaves the
// table's point cursor on the record and Replace of that key updates through
// it (no second B-tree search). Whatever moved the cursor, Replace must still
// write exactly the key and table it was given, conflict like Put, and what
// it wrote must survive a restart.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "engine/storage/storage_engine.h"
#include "tests/engine/storage/in_memory_storage.h"

namespace tigerdoc::storage {
namespace {

class PositionedUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.CreateTable("t").ok());
    ASSERT_TRUE(session.CreateTable("u").ok());
  }
  std::string Value(std::string_view table, std::string_view key) {
    Session session = engine_->NewSession();
    auto got = session.Get(table, key);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() && got.value() ? *got.value() : "<absent>";
  }
  std::string ReadValue(Session& session, std::string_view table, std::string_view key) {
    std::string out = "<absent>";
    auto found = session.Read(table, key, [&](std::string_view value) { out = value; });
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return out;
  }
  std::unique_ptr<StorageEngine> engine_;
};

TEST_F(PositionedUpdateTest, ReadHandsTheStoredValueOrReportsAbsence) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Put("t", "k", std::string("v\0w", 3)).ok());
  EXPECT_EQ(ReadValue(session, "t", "k"), std::string("v\0w", 3));
  auto missing = session.Read("t", "nope", [](std::string_view) { ADD_FAILURE(); });
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing.value());
  EXPECT_FALSE(session.Read("missing_table", "k", [](std::string_view) {}).ok());
}

TEST_F(PositionedUpdateTest, ReplaceThroughTheKeptCursorWritesThatRecord) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Put("t", "k", "old").ok());
  ASSERT_TRUE(session.Put("t", "k2", "other").ok());
  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(ReadValue(session, "t", "k"), "old");
  ASSERT_TRUE(session.Replace("t", "k", "new, and longer than before").ok());
  EXPECT_EQ(ReadValue(session, "t", "k"), "new, and longer than before");  // own write
  EXPECT_EQ(Value("t", "k"), "old");  // not yet committed
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Value("t", "k"), "new, and longer than before");
  EXPECT_EQ(Value("t", "k2"), "other");
}

TEST_F(PositionedUpdateTest, ReplaceAfterTheCursorMovedWritesTheGivenKey) {
  Session session = engine_->NewSession();
  for (const char* key : {"a", "b", "c"}) ASSERT_TRUE(session.Put("t", key, key).ok());
  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(ReadValue(session, "t", "a"), "a");
  EXPECT_EQ(ReadValue(session, "t", "b"), "b");  // the cursor now stands on b
  ASSERT_TRUE(session.Replace("t", "a", "A").ok());
  EXPECT_EQ(ReadValue(session, "t", "c"), "c");
  ASSERT_TRUE(session.Get("t", "b").ok());  // a Get moves (and resets) it too
  ASSERT_TRUE(session.Replace("t", "c", "C").ok());
  EXPECT_EQ(ReadValue(session, "t", "b"), "b");
  ASSERT_TRUE(session.Put("t", "a", "AA").ok());  // the overwrite cursor: b's stays
  ASSERT_TRUE(session.Replace("t", "b", "B").ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Value("t", "a"), "AA");
  EXPECT_EQ(Value("t", "b"), "B");
  EXPECT_EQ(Value("t", "c"), "C");
}

TEST_F(PositionedUpdateTest, ReplaceOfTheSameKeyInAnotherTableWritesThatTable) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Put("t", "k", "t-old").ok());
  ASSERT_TRUE(session.Put("u", "k", "u-old").ok());
  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(ReadValue(session, "t", "k"), "t-old");
  ASSERT_TRUE(session.Replace("u", "k", "u-new").ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Value("t", "k"), "t-old");
  EXPECT_EQ(Value("u", "k"), "u-new");
}

TEST_F(PositionedUpdateTest, ReplaceOfAMissingKeyInsertsItAsPutDoes) {
  Session session = engine_->NewSession();
  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(ReadValue(session, "t", "absent"), "<absent>");
  ASSERT_TRUE(session.Replace("t", "absent", "v").ok());
  ASSERT_TRUE(session.Commit().ok());
  ASSERT_TRUE(session.Replace("t", "outside", "w").ok());  // auto-committed
  EXPECT_EQ(Value("t", "absent"), "v");
  EXPECT_EQ(Value("t", "outside"), "w");
}

TEST_F(PositionedUpdateTest, AKeptPositionDoesNotOutliveItsTransaction) {
  Session session = engine_->NewSession();
  Session other = engine_->NewSession();
  ASSERT_TRUE(session.Put("t", "k", "0").ok());
  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(ReadValue(session, "t", "k"), "0");
  ASSERT_TRUE(session.Commit().ok());
  ASSERT_TRUE(other.Put("t", "k", "1").ok());
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(session.Replace("t", "k", "2").ok());  // no conflict: a new snapshot
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Value("t", "k"), "2");

  ASSERT_TRUE(session.Begin().ok());
  EXPECT_EQ(ReadValue(session, "t", "k"), "2");
  session.Rollback();
  ASSERT_TRUE(session.Begin().ok());
  ASSERT_TRUE(session.Replace("t", "k", "3").ok());
  ASSERT_TRUE(session.Commit().ok());
  EXPECT_EQ(Value("t", "k"), "3");
}

TEST_F(PositionedUpdateTest, PositionedReplaceConflictsWithACommittedWrite) {
  Session a = engine_->NewSession();
  Session b = engine_->NewSession();
  ASSERT_TRUE(a.Put("t", "k", "0").ok());
  ASSERT_TRUE(a.Begin().ok());
  EXPECT_EQ(ReadValue(a, "t", "k"), "0");
  ASSERT_TRUE(b.Put("t", "k", "b").ok());  // auto-committed after a's snapshot
  EXPECT_EQ(a.Replace("t", "k", "a").code(), ErrorCode::kWriteConflict);
  a.Rollback();
  EXPECT_EQ(Value("t", "k"), "b");
}

TEST_F(PositionedUpdateTest, PositionedReplaceConflictsWithAnUncommittedWrite) {
  Session a = engine_->NewSession();
  Session b = engine_->NewSession();
  ASSERT_TRUE(a.Put("t", "k", "0").ok());
  ASSERT_TRUE(a.Begin().ok());
  ASSERT_TRUE(b.Begin().ok());
  EXPECT_EQ(ReadValue(a, "t", "k"), "0");
  EXPECT_EQ(ReadValue(b, "t", "k"), "0");
  ASSERT_TRUE(a.Replace("t", "k", "a").ok());
  EXPECT_EQ(b.Replace("t", "k", "b").code(), ErrorCode::kWriteConflict);
  b.Rollback();
  ASSERT_TRUE(a.Commit().ok());
  EXPECT_EQ(Value("t", "k"), "a");
}

// Read-modify-write of one counter from 8 threads, retried on conflicts as
// the write unit does: no increment is lost, and none is counted twice.
void IncrementConcurrently(StorageEngine& engine, int threads, int per_thread) {
  std::vector<std::thread> workers;
  std::atomic<int> failures{0};
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i = 0; i < per_thread; ++i) {
        for (;;) {
          Session session = engine.NewSession();
          if (!session.Begin().ok()) { ++failures; return; }
          std::string value;
          auto found = session.Read("t", "counter", [&](std::string_view v) { value = v; });
          if (!found.ok() || !found.value()) { ++failures; return; }
          Status status = session.Replace("t", "counter", std::to_string(std::stoll(value) + 1));
          if (status.ok()) status = session.Commit();
          if (status.ok()) break;
          session.Rollback();
          if (status.code() != ErrorCode::kWriteConflict) { ++failures; return; }
        }
      }
    });
  }
  for (auto& worker : workers) worker.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(PositionedUpdateTest, ConcurrentIncrementsOfOneRecordAreExact) {
  ASSERT_TRUE(engine_->NewSession().Put("t", "counter", "0").ok());
  IncrementConcurrently(*engine_, 8, 300);
  EXPECT_EQ(Value("t", "counter"), "2400");
}

TEST(PositionedUpdateOnDiskTest, ReplacedValuesSurviveARestart) {
  const std::string dir =
      (std::filesystem::temp_directory_path() /
       ("positioned_update_test_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto engine = OpenStorageAt(dir);
    ASSERT_NE(engine, nullptr);
    Session session = engine->NewSession();
    ASSERT_TRUE(session.CreateTable("t").ok());
    ASSERT_TRUE(session.Put("t", "counter", "0").ok());
    std::string big(1200, 'x');
    ASSERT_TRUE(session.Put("t", "big", big).ok());
    ASSERT_TRUE(session.Begin().ok());
    std::string read;
    ASSERT_TRUE(session.Read("t", "big", [&](std::string_view v) { read = v; }).ok());
    read[600] = 'y';
    ASSERT_TRUE(session.Replace("t", "big", read).ok());
    ASSERT_TRUE(session.Commit().ok());
    IncrementConcurrently(*engine, 4, 100);
  }
  {
    auto engine = OpenStorageAt(dir);
    ASSERT_NE(engine, nullptr);
    Session session = engine->NewSession();
    EXPECT_EQ(*session.Get("t", "counter").value(), "400");
    std::string expected(1200, 'x');
    expected[600] = 'y';
    EXPECT_EQ(*session.Get("t", "big").value(), expected);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tigerdoc::storage
