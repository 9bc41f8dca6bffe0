// LongWorkAdmission and LongWorkTicket (engine/long_work_admission.h): FIFO
// admission, the stall-bounded wait, yields handing the slot over, killOp /
// deadline / shutdown ending a wait, run-time slot changes, exact counts
// under 16 threads, and a ticket taking a slot only past its threshold.

#include "engine/long_work_admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/operation_registry.h"

namespace tigerdoc::engine {
namespace {

using Clock = std::chrono::steady_clock;
using Outcome = LongWorkAdmission::Outcome;
using namespace std::chrono_literals;

constexpr Clock::duration kNeverStalls = std::chrono::minutes(10);

// Waits (generously) until `n` commands wait for a slot.
void AwaitWaiting(const LongWorkAdmission& admission, int n) {
  const auto give_up = Clock::now() + 30s;
  while (admission.stats().waiting != n && Clock::now() < give_up) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(admission.stats().waiting, n);
}

TEST(LongWorkAdmissionTest, FreeSlotsAdmitAtOnceThenWaitersQueueInOrder) {
  LongWorkAdmission admission(2, kNeverStalls);
  EXPECT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  EXPECT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      EXPECT_EQ(admission.Acquire({}), Outcome::kAdmitted);
      {
        std::lock_guard<std::mutex> lock(mutex);
        order.push_back(i);
      }
      admission.Release();
    });
    AwaitWaiting(admission, i + 1);  // enqueued in the order 0, 1, 2, 3
  }
  EXPECT_EQ(admission.stats().in_use, 2);
  admission.Release();  // hands over one by one: each waiter releases to the next
  for (auto& t : waiters) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  admission.Release();
  const LongWorkAdmission::Stats s = admission.stats();
  EXPECT_EQ(s.in_use, 0);
  EXPECT_EQ(s.waiting, 0);
  EXPECT_EQ(s.admitted, 6);
  EXPECT_EQ(s.wait_timeouts, 0);
}

TEST(LongWorkAdmissionTest, AStalledQueueLetsTheWaiterRunWithoutASlot) {
  LongWorkAdmission admission(1, 30ms);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);  // held throughout: a stuck holder
  const auto began = Clock::now();
  EXPECT_EQ(admission.Acquire({}), Outcome::kTimedOut);
  const auto waited = Clock::now() - began;
  EXPECT_GE(waited, 30ms);
  EXPECT_LT(waited, 10s);
  EXPECT_EQ(admission.stats().wait_timeouts, 1);
  EXPECT_EQ(admission.stats().waiting, 0);
  EXPECT_EQ(admission.stats().in_use, 1);
  admission.Release();
  EXPECT_EQ(admission.stats().in_use, 0);
}

// A queue that moves never times out, however long a waiter waits: each
// hand-over restarts the stall limit.
TEST(LongWorkAdmissionTest, AMovingQueueDoesNotTimeOut) {
  LongWorkAdmission admission(1, 1s);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  std::thread second([&] {
    EXPECT_EQ(admission.Acquire({}), Outcome::kAdmitted);
    std::this_thread::sleep_for(600ms);
    admission.Release();
  });
  AwaitWaiting(admission, 1);
  Outcome third_outcome = Outcome::kOff;
  Clock::duration third_waited{};
  std::thread third([&] {
    const auto began = Clock::now();
    third_outcome = admission.Acquire({});
    third_waited = Clock::now() - began;
    admission.Release();
  });
  AwaitWaiting(admission, 2);
  std::this_thread::sleep_for(600ms);
  admission.Release();
  second.join();
  third.join();
  EXPECT_EQ(third_outcome, Outcome::kAdmitted);
  EXPECT_GT(third_waited, 1s) << "waited past the stall limit without a timeout";
  EXPECT_EQ(admission.stats().wait_timeouts, 0);
}

TEST(LongWorkAdmissionTest, AYieldHandsTheSlotToTheFirstWaiterAndQueuesAtTheBack) {
  LongWorkAdmission admission(1, kNeverStalls);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  Outcome outcome = Outcome::kOff;
  EXPECT_FALSE(admission.Yield({}, &outcome)) << "nobody waits: the slot is kept";
  EXPECT_EQ(admission.stats().yields, 0);
  std::atomic<bool> other_ran{false};
  std::thread other([&] {
    EXPECT_EQ(admission.Acquire({}), Outcome::kAdmitted);
    other_ran.store(true);
    std::this_thread::sleep_for(20ms);
    admission.Release();  // hands the slot back to the yielder
  });
  AwaitWaiting(admission, 1);
  ASSERT_TRUE(admission.Yield({}, &outcome));
  EXPECT_EQ(outcome, Outcome::kAdmitted);
  EXPECT_TRUE(other_ran.load()) << "the waiter ran before the yielder got its slot back";
  other.join();
  EXPECT_EQ(admission.stats().yields, 1);
  EXPECT_EQ(admission.stats().in_use, 1);
  admission.Release();
  EXPECT_EQ(admission.stats().in_use, 0);
}

TEST(LongWorkAdmissionTest, KillAndDeadlineEndAWaitAtOnce) {
  LongWorkAdmission admission(1, kNeverStalls);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  std::atomic<bool> killed{false};
  Outcome outcome = Outcome::kAdmitted;
  std::thread waiter([&] {
    LongWorkAdmission::WaitLimits limits;
    limits.killed = &killed;
    outcome = admission.Acquire(limits);
  });
  AwaitWaiting(admission, 1);
  killed.store(true);
  admission.WakeWaiters();  // what killOp does
  waiter.join();
  EXPECT_EQ(outcome, Outcome::kInterrupted);

  LongWorkAdmission::WaitLimits limits;
  limits.deadline = Clock::now() + 50ms;
  const auto began = Clock::now();
  EXPECT_EQ(admission.Acquire(limits), Outcome::kInterrupted);
  EXPECT_LT(Clock::now() - began, 10s);
  EXPECT_GE(Clock::now(), *limits.deadline);
  const LongWorkAdmission::Stats s = admission.stats();
  EXPECT_EQ(s.interrupted_waits, 2);
  EXPECT_EQ(s.waiting, 0);
  EXPECT_EQ(s.in_use, 1);
  admission.Release();
}

TEST(LongWorkAdmissionTest, SlotChangesAtRunTimeAdmitOrReleaseWaiters) {
  LongWorkAdmission admission(1, kNeverStalls);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  Outcome first = Outcome::kOff, second = Outcome::kAdmitted;
  std::thread a([&] { first = admission.Acquire({}); });
  AwaitWaiting(admission, 1);
  admission.SetSlots(2);  // one more slot: the waiter gets it
  a.join();
  EXPECT_EQ(first, Outcome::kAdmitted);
  EXPECT_EQ(admission.stats().in_use, 2);
  std::thread b([&] { second = admission.Acquire({}); });
  AwaitWaiting(admission, 1);
  admission.SetSlots(0);  // off: the waiter runs without a slot
  b.join();
  EXPECT_EQ(second, Outcome::kOff);
  EXPECT_EQ(admission.Acquire({}), Outcome::kOff);
  admission.Release();
  admission.Release();
  EXPECT_EQ(admission.stats().in_use, 0);
  // Fewer slots than holders: releases free slots until the count fits.
  admission.SetSlots(2);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  admission.SetSlots(1);
  admission.Release();
  EXPECT_EQ(admission.stats().in_use, 1);
  admission.Release();
  EXPECT_EQ(admission.stats().in_use, 0);
}

TEST(LongWorkAdmissionTest, CountsAreExactUnderSixteenThreads) {
  constexpr int kSlots = 3, kThreads = 16, kRounds = 300;
  LongWorkAdmission admission(kSlots, kNeverStalls);
  std::atomic<int> holding{0}, most{0};
  std::atomic<int64_t> admitted{0}, yields{0};
  auto hold = [&] {
    const int now = holding.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::yield();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        if (admission.Acquire({}) != Outcome::kAdmitted) {
          ADD_FAILURE() << "not admitted";
          return;
        }
        admitted.fetch_add(1);
        hold();
        holding.fetch_sub(1);
        Outcome outcome;
        if (admission.Yield({}, &outcome)) {
          yields.fetch_add(1);
          ASSERT_EQ(outcome, Outcome::kAdmitted);
        }
        hold();
        holding.fetch_sub(1);
        admission.Release();
      }
    });
  }
  for (auto& t : threads) t.join();
  const LongWorkAdmission::Stats s = admission.stats();
  EXPECT_EQ(admitted.load(), int64_t{kThreads} * kRounds);
  EXPECT_EQ(s.admitted, admitted.load());
  EXPECT_EQ(s.yields, yields.load());
  EXPECT_LE(most.load(), kSlots);
  EXPECT_EQ(s.in_use, 0);
  EXPECT_EQ(s.waiting, 0);
  EXPECT_EQ(s.wait_timeouts, 0);
  EXPECT_EQ(s.interrupted_waits, 0);
}

// The ticket: no slot before the threshold, one after; yields when someone
// waits (counted as the operation's numYields); released at its end and
// before an idle wait.
TEST(LongWorkTicketTest, TakesASlotOnlyPastTheThresholdAndYieldsToWaiters) {
  LongWorkAdmission admission(1, kNeverStalls);
  Operation op;
  const query::Interrupt interrupt;
  {
    LongWorkTicket fresh(admission, op, Clock::now() + 1h);  // a period that has just begun
    for (int i = 0; i < 4 * LongWorkTicket::kChecksPerClockRead; ++i) fresh.AtYieldPoint(interrupt);
    EXPECT_FALSE(fresh.holding());
    EXPECT_EQ(admission.stats().admitted, 0);
  }
  {
    LongWorkTicket ticket(admission, op, Clock::now() - 2 * LongWorkTicket::kRunsLongAfter);
    for (int i = 0; i < LongWorkTicket::kChecksPerClockRead - 1; ++i) ticket.AtYieldPoint(interrupt);
    EXPECT_FALSE(ticket.holding()) << "the clock is read every kChecksPerClockRead checks";
    ticket.AtYieldPoint(interrupt);
    ASSERT_TRUE(ticket.holding());
    EXPECT_EQ(admission.stats().in_use, 1);

    std::atomic<bool> other_ran{false};
    std::thread other([&] {
      EXPECT_EQ(admission.Acquire({}), Outcome::kAdmitted);
      other_ran.store(true);
      admission.Release();
    });
    AwaitWaiting(admission, 1);
    std::this_thread::sleep_for(LongWorkTicket::kYieldPeriod + 1ms);
    for (int i = 0; i < LongWorkTicket::kChecksPerClockRead; ++i) ticket.AtYieldPoint(interrupt);
    other.join();
    EXPECT_TRUE(other_ran.load());
    EXPECT_TRUE(ticket.holding()) << "got the slot back after the waiter";
    EXPECT_EQ(op.num_yields(), 1);
    EXPECT_EQ(admission.stats().yields, 1);

    ticket.BeforeIdleWait();
    EXPECT_FALSE(ticket.holding());
    EXPECT_EQ(admission.stats().in_use, 0);
    // The check after the wait starts a new period: no slot yet.
    ticket.AtYieldPoint(interrupt);
    EXPECT_FALSE(ticket.holding());
    std::this_thread::sleep_for(2 * LongWorkTicket::kRunsLongAfter);
    for (int i = 0; i < LongWorkTicket::kChecksPerClockRead; ++i) ticket.AtYieldPoint(interrupt);
    EXPECT_TRUE(ticket.holding());
  }
  EXPECT_EQ(admission.stats().in_use, 0) << "the ticket's end released its slot";
}

// A ScopedOperation installs its ticket as the thread's yield hook (once:
// a nested one keeps the outer ticket) and Check() reaches it.
TEST(LongWorkTicketTest, ScopedOperationInstallsTheHookOnce) {
  OperationRegistry registry;
  registry.long_work().SetSlots(1);
  EXPECT_EQ(query::current_yield_hook, nullptr);
  {
    ScopedOperation outer(registry, OperationInfo{});
    query::YieldHook* hook = query::current_yield_hook;
    ASSERT_NE(hook, nullptr);
    {
      ScopedOperation inner(registry, OperationInfo{});
      EXPECT_EQ(query::current_yield_hook, hook);
    }
    EXPECT_EQ(query::current_yield_hook, hook);
    std::this_thread::sleep_for(2 * LongWorkTicket::kRunsLongAfter);
    const query::Interrupt interrupt;
    for (int i = 0; i < LongWorkTicket::kChecksPerClockRead; ++i) ASSERT_TRUE(interrupt.Check().ok());
    EXPECT_EQ(registry.long_work().stats().in_use, 1);
  }
  EXPECT_EQ(query::current_yield_hook, nullptr);
  EXPECT_EQ(registry.long_work().stats().in_use, 0);
  EXPECT_EQ(registry.long_work().stats().admitted, 1);
}

// Last: shutdown is process-wide and never cleared in the server; the test
// restores it.
TEST(LongWorkAdmissionTest, ShutdownEndsAWaitAtOnce) {
  LongWorkAdmission admission(1, kNeverStalls);
  ASSERT_EQ(admission.Acquire({}), Outcome::kAdmitted);
  Outcome outcome = Outcome::kAdmitted;
  std::thread waiter([&] { outcome = admission.Acquire({}); });
  AwaitWaiting(admission, 1);
  query::RequestShutdown();
  admission.WakeWaiters();  // what the server's stop does
  waiter.join();
  query::shutdown_requested.store(false);
  EXPECT_EQ(outcome, Outcome::kInterrupted);
  EXPECT_EQ(admission.stats().interrupted_waits, 1);
  admission.Release();
}

}  // namespace
}  // namespace tigerdoc::engine
