// GroupCommit: every caller returns only after a step that started after
// it arrived succeeded; steps batch concurrent callers; a failed step
// releases nobody but its own runner.

#include "engine/storage/group_commit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tigerdoc::storage {
namespace {

// A journal stand-in: callers "commit" by bumping `committed`; a step
// "writes" by publishing what was committed when it started.
struct FakeJournal {
  std::atomic<uint64_t> committed{0};
  std::atomic<uint64_t> written{0};
  std::atomic<int> running{0};
  std::atomic<int> overlaps{0};
  Status Step() {
    if (running.fetch_add(1) != 0) overlaps.fetch_add(1);
    const uint64_t snapshot = committed.load();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    uint64_t seen = written.load();
    while (seen < snapshot && !written.compare_exchange_weak(seen, snapshot)) {
    }
    running.fetch_sub(1);
    return Status::OK();
  }
};

TEST(GroupCommitTest, OneCallerRunsOneStepPerCall) {
  GroupCommit group;
  int calls = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(group.Run([&] { ++calls; return Status::OK(); }).ok());
  }
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(group.steps(), 3u);
}

TEST(GroupCommitTest, ConcurrentCallersReturnOnlyAfterTheirRecordsAreWritten) {
  GroupCommit group;
  FakeJournal journal;
  constexpr int kThreads = 16, kCommits = 200;
  std::atomic<int> unwritten{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCommits; ++i) {
        const uint64_t mine = journal.committed.fetch_add(1) + 1;
        ASSERT_TRUE(group.Run([&] { return journal.Step(); }).ok());
        if (journal.written.load() < mine) unwritten.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(unwritten.load(), 0);
  EXPECT_EQ(journal.overlaps.load(), 0);  // one step at a time
  // Batching: far fewer steps than commits (each step takes 200 us, so
  // callers pile up behind it).
  EXPECT_LT(group.steps(), static_cast<uint64_t>(kThreads * kCommits) / 2);
}

TEST(GroupCommitTest, AFailedStepFailsItsRunnerAndTheOthersRetry) {
  GroupCommit group;
  FakeJournal journal;
  std::atomic<int> failures_left{3};
  std::atomic<int> failed{0}, unwritten{0};
  constexpr int kThreads = 8, kCommits = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCommits; ++i) {
        const uint64_t mine = journal.committed.fetch_add(1) + 1;
        Status st = group.Run([&] {
          if (failures_left.fetch_sub(1) > 0) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            return Status(ErrorCode::kInternalError, "journal write failed");
          }
          return journal.Step();
        });
        if (!st.ok()) {
          EXPECT_EQ(st.code(), ErrorCode::kInternalError);
          failed.fetch_add(1);
        } else if (journal.written.load() < mine) {
          unwritten.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 3);  // exactly the three runners of failed steps
  EXPECT_EQ(unwritten.load(), 0);
}

}  // namespace
}  // namespace tigerdoc::storage
