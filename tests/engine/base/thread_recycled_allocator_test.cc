// ThreadRecycledAllocator: a freed block comes back on the same thread,
// blocks stay aligned for over-aligned types, and blocks freed on another
// thread or held several at once are neither lost nor handed out twice.

#include "engine/base/thread_recycled_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace tigerdoc {
namespace {

struct alignas(128) OverAligned {
  explicit OverAligned(int v) : value(v) {}
  int value;
  char bytes[200] = {};
};

bool Aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 128 == 0; }

TEST(ThreadRecycledAllocator, AFreedBlockIsHandedOutAgainOnTheSameThread) {
  ThreadRecycledAllocator<OverAligned> alloc;
  OverAligned* first = alloc.allocate(1);
  EXPECT_TRUE(Aligned(first));
  alloc.deallocate(first, 1);
  EXPECT_TRUE(ThreadRecycledAllocator<OverAligned>::KeepsBlock());
  OverAligned* second = alloc.allocate(1);
  EXPECT_EQ(second, first);
  EXPECT_FALSE(ThreadRecycledAllocator<OverAligned>::KeepsBlock());
  alloc.deallocate(second, 1);
}

TEST(ThreadRecycledAllocator, SeveralLiveBlocksAreDistinctAndAllFreed) {
  ThreadRecycledAllocator<OverAligned> alloc;
  std::vector<OverAligned*> live;
  std::set<OverAligned*> distinct;
  for (int i = 0; i < 5; ++i) {
    live.push_back(alloc.allocate(1));
    distinct.insert(live.back());
    EXPECT_TRUE(Aligned(live.back()));
  }
  EXPECT_EQ(distinct.size(), 5u);
  for (OverAligned* p : live) alloc.deallocate(p, 1);  // one kept, four freed
  OverAligned* again = alloc.allocate(1);
  EXPECT_EQ(distinct.count(again), 1u);
  OverAligned* fresh = alloc.allocate(1);
  EXPECT_NE(fresh, again);
  alloc.deallocate(fresh, 1);
  alloc.deallocate(again, 1);
  // Arrays bypass the kept block.
  OverAligned* array = alloc.allocate(3);
  EXPECT_TRUE(Aligned(array));
  alloc.deallocate(array, 3);
}

TEST(ThreadRecycledAllocator, SharedObjectsMadeAndFreedOnManyThreads) {
  // As the operation registry uses it: allocate_shared per request, the
  // last reference sometimes dropped on another thread.
  std::vector<std::shared_ptr<OverAligned>> handed_over(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &handed_over] {
      ThreadRecycledAllocator<OverAligned> alloc;
      for (int i = 0; i < 1000; ++i) {
        auto p = std::allocate_shared<OverAligned>(alloc, i);
        ASSERT_TRUE(Aligned(p.get()));
        ASSERT_EQ(p->value, i);
      }
      handed_over[t] = std::allocate_shared<OverAligned>(alloc, t);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(handed_over[t]->value, t);
    handed_over[t].reset();  // freed on this thread: kept here or freed
  }
}

}  // namespace
}  // namespace tigerdoc
