#include "wire/server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace tigerdoc::wire {
namespace {

TEST(WorkerPoolTest, RunsEveryPostedTaskBeforeShutdownReturns) {
  std::atomic<int> ran{0};
  WorkerPool pool(3);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(pool.Post([&] { ran++; }));
  pool.Shutdown();
  EXPECT_EQ(ran.load(), 1000);
}

TEST(WorkerPoolTest, PostAfterShutdownIsRefused) {
  WorkerPool pool(1);
  pool.Shutdown();
  bool ran = false;
  EXPECT_FALSE(pool.Post([&] { ran = true; }));
  EXPECT_FALSE(ran);
  pool.Shutdown();  // idempotent
}

TEST(WorkerPoolTest, TasksRunConcurrentlyOnDistinctThreads) {
  constexpr int kThreads = 4;
  WorkerPool pool(kThreads);
  EXPECT_EQ(pool.size(), kThreads);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  for (int i = 0; i < kThreads; ++i) {
    pool.Post([&] {
      {
        std::lock_guard<std::mutex> lock(mu);
        ids.insert(std::this_thread::get_id());
      }
      // Every task waits for all the others: passes only if they overlap.
      arrived++;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (arrived.load() < kThreads && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    });
  }
  pool.Shutdown();
  EXPECT_EQ(arrived.load(), kThreads);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads));
}

}  // namespace
}  // namespace tigerdoc::wire
