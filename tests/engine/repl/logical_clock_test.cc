// LogicalClock: strictly increasing times from many threads, never behind
// the wall clock, and AdvanceTo only moves forward.

#include "engine/base/wall_clock.h"
#include "engine/repl/logical_clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace tigerdoc::engine::repl {
namespace {

TEST(LogicalClockTest, TicksAreStrictlyIncreasingAndAtLeastTheWallClock) {
  LogicalClock clock;
  EXPECT_EQ(clock.Now(), Timestamp{});
  const uint32_t before = WallClockSeconds();
  Timestamp previous = clock.Tick();
  EXPECT_GE(previous.seconds, before);
  for (int i = 0; i < 1000; ++i) {
    Timestamp next = clock.Tick();
    EXPECT_TRUE(previous < next);
    previous = next;
  }
  EXPECT_EQ(clock.Now(), previous);
}

TEST(LogicalClockTest, ConcurrentTicksAreAllDistinct) {
  LogicalClock clock;
  constexpr int kThreads = 8, kTicks = 5000;
  std::vector<std::vector<Timestamp>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTicks; ++i) seen[t].push_back(clock.Tick());
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<Timestamp> all;
  for (const auto& v : seen) {
    EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(LogicalClockTest, AdvanceToMovesOnlyForward) {
  LogicalClock clock;
  const Timestamp future{WallClockSeconds() + 100, 7};
  clock.AdvanceTo(future);
  EXPECT_EQ(clock.Now(), future);
  clock.AdvanceTo(Timestamp{1, 1});
  EXPECT_EQ(clock.Now(), future);
  const Timestamp next = clock.Tick();
  EXPECT_EQ(next, (Timestamp{future.seconds, 8}));
  EXPECT_TRUE(future <= next);
}

}  // namespace
}  // namespace tigerdoc::engine::repl
