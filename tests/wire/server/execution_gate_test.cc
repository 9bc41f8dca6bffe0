// ExecutionGate: the ticket limit just below, at and above, many threads at
// once, the order of waiters (light connections first, equal ones in
// arrival order) and which commands take a ticket. No timing assertions:
// tests wait for states (waiting() counts) and check orders and counts.
#include "wire/server/execution_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tigerdoc::wire {
namespace {

// Spins (yielding) until `pred` holds; the test times out otherwise.
template <typename Pred>
void WaitUntil(Pred pred) {
  while (!pred()) std::this_thread::yield();
}

// `n` threads each take a ticket and hold it until released; returns how
// many got in before `release` was set (all of them when n <= tickets).
class Holders {
 public:
  Holders(ExecutionGate* gate, int n) : usages_(n) {
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this, gate, i] {
        ExecutionGate::Ticket t = gate->Enter(&usages_[i]);
        inside_.fetch_add(1);
        WaitUntil([&] { return release_.load(); });
      });
    }
  }
  ~Holders() { Join(); }
  int inside() const { return inside_.load(); }
  void Join() {
    release_.store(true);
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  std::vector<ExecutionGate::Usage> usages_;
  std::vector<std::thread> threads_;
  std::atomic<int> inside_{0};
  std::atomic<bool> release_{false};
};

TEST(ExecutionGateTest, NoLimitLetsEveryoneIn) {
  ExecutionGate gate(0);
  Holders holders(&gate, 64);
  WaitUntil([&] { return holders.inside() == 64; });
  EXPECT_EQ(gate.waiting(), 0);
}

TEST(ExecutionGateTest, OneBelowTheLimitNoOneWaits) {
  ExecutionGate gate(4);
  Holders holders(&gate, 3);
  WaitUntil([&] { return holders.inside() == 3; });
  EXPECT_EQ(gate.executing(), 3);
  EXPECT_EQ(gate.waiting(), 0);
}

TEST(ExecutionGateTest, AtTheLimitNoOneWaits) {
  ExecutionGate gate(4);
  Holders holders(&gate, 4);
  WaitUntil([&] { return holders.inside() == 4; });
  EXPECT_EQ(gate.executing(), 4);
  EXPECT_EQ(gate.waiting(), 0);
}

TEST(ExecutionGateTest, AboveTheLimitTheRestWaitUntilTicketsReturn) {
  ExecutionGate gate(4);
  auto holders = std::make_unique<Holders>(&gate, 4);
  WaitUntil([&] { return holders->inside() == 4; });
  ExecutionGate::Usage usage;
  std::atomic<bool> entered{false};
  std::thread late([&] {
    ExecutionGate::Ticket t = gate.Enter(&usage);
    entered.store(true);
  });
  WaitUntil([&] { return gate.waiting() == 1; });
  EXPECT_FALSE(entered.load());
  EXPECT_EQ(gate.executing(), 4);
  holders->Join();  // the four give their tickets back
  late.join();
  EXPECT_TRUE(entered.load());
  EXPECT_EQ(gate.executing(), 0);
  EXPECT_EQ(gate.waiting(), 0);
}

// `threads` threads each take and give back a ticket `rounds` times with no
// work between; `most` is the largest number seen holding one at once,
// `done` the rounds finished (a ticket is given back before its round counts).
struct Hammer {
  Hammer(ExecutionGate& gate, int threads, int rounds) {
    for (int i = 0; i < threads; ++i) {
      workers.emplace_back([this, &gate, rounds] {
        ExecutionGate::Usage usage;
        for (int r = 0; r < rounds; ++r) {
          ExecutionGate::Ticket t = gate.Enter(&usage);
          const int in = now.fetch_add(1) + 1;
          int seen = most.load();
          while (in > seen && !most.compare_exchange_weak(seen, in)) {
          }
          now.fetch_sub(1);
          t.Release();
          done.fetch_add(1);
        }
      });
    }
  }
  ~Hammer() { Join(); }
  void Join() {
    for (auto& w : workers) {
      if (w.joinable()) w.join();
    }
  }
  std::atomic<int> now{0}, most{0};
  std::atomic<int64_t> done{0};
  std::vector<std::thread> workers;
};

TEST(ExecutionGateTest, ManyThreadsNeverExceedTheTickets) {
  for (int tickets : {1, 3, 8}) {
    SCOPED_TRACE(tickets);
    ExecutionGate gate(tickets);
    constexpr int kThreads = 64, kRounds = 300;
    Hammer hammer(gate, kThreads, kRounds);
    hammer.Join();
    EXPECT_LE(hammer.most.load(), tickets);
    EXPECT_EQ(hammer.done.load(), int64_t{kThreads} * kRounds);
    EXPECT_EQ(gate.executing(), 0);
    EXPECT_EQ(gate.waiting(), 0);
  }
}

TEST(ExecutionGateTest, ReleaseAndMoveGiveTheTicketBackOnce) {
  ExecutionGate gate(1);
  ExecutionGate::Usage usage;
  ExecutionGate::Ticket a = gate.Enter(&usage);
  EXPECT_TRUE(a.held());
  ExecutionGate::Ticket b = std::move(a);
  EXPECT_FALSE(a.held());
  EXPECT_EQ(gate.executing(), 1);
  b.Release();
  b.Release();
  EXPECT_EQ(gate.executing(), 0);
  ExecutionGate::Ticket c = gate.Enter(&usage);  // would block if two were lost or counted twice
  EXPECT_EQ(gate.executing(), 1);
}

// The fast path (a free ticket and nobody waiting: no lock) counts tickets
// exactly: N callers get in without queueing, the next one queues, and
// each returned ticket admits exactly one waiter.
TEST(ExecutionGateTest, FastPathCountsTicketsExactly) {
  for (int tickets : {2, 3, 5}) {  // two held tickets are returned below
    SCOPED_TRACE(tickets);
    ExecutionGate gate(tickets);
    std::vector<ExecutionGate::Usage> usages(tickets + 2);
    std::vector<ExecutionGate::Ticket> held;
    for (int i = 0; i < tickets; ++i) {
      held.push_back(gate.Enter(&usages[i]));  // never blocks: tickets are free
      EXPECT_EQ(gate.executing(), i + 1);
      EXPECT_EQ(gate.waiting(), 0);
    }
    std::atomic<int> entered{0};
    std::vector<std::thread> late;
    for (int i = 0; i < 2; ++i) {
      late.emplace_back([&, i] {
        ExecutionGate::Ticket t = gate.Enter(&usages[tickets + i]);
        entered.fetch_add(1);
        WaitUntil([&] { return entered.load() < 0; });  // held until the test says
      });
      WaitUntil([&] { return gate.waiting() == i + 1; });
    }
    EXPECT_EQ(entered.load(), 0);
    held.back().Release();  // admits exactly one waiter
    WaitUntil([&] { return entered.load() == 1; });
    EXPECT_EQ(gate.waiting(), 1);
    EXPECT_EQ(gate.executing(), tickets);
    held.front().Release();  // and the other
    WaitUntil([&] { return entered.load() == 2; });
    EXPECT_EQ(gate.waiting(), 0);
    EXPECT_EQ(gate.executing(), tickets);
    entered.store(-100);
    for (auto& t : late) t.join();
    held.clear();
    EXPECT_EQ(gate.executing(), 0);
  }
}

// No lost wake-up: threads with no work between Enter and Leave race the
// leaver's return of a ticket against a waiter's queueing as often as
// possible. A waiter left asleep while a ticket is free stops all progress;
// the watchdog then fails the test instead of letting it hang.
TEST(ExecutionGateTest, NoWaiterSleepsWhileATicketIsFree) {
  for (int tickets : {1, 2, 3}) {
    SCOPED_TRACE(tickets);
    ExecutionGate gate(tickets);
    const int threads = tickets + 3;
    constexpr int kRounds = 20000;
    Hammer hammer(gate, threads, kRounds);
    std::atomic<int>& most = hammer.most;
    std::atomic<int64_t>& done = hammer.done;
    const int64_t total = int64_t{threads} * kRounds;
    int64_t last = -1;
    auto last_progress = std::chrono::steady_clock::now();
    while (done.load() < total) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const int64_t d = done.load();
      if (d != last) {
        last = d;
        last_progress = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - last_progress > std::chrono::seconds(30) &&
                 gate.executing() == 0) {
        // Nobody holds a ticket, yet callers still wait: a lost wake-up.
        std::fprintf(stderr, "stuck: %lld of %lld done, %d waiting, 0 executing\n",
                     static_cast<long long>(d), static_cast<long long>(total), gate.waiting());
        std::abort();
      }
    }
    hammer.Join();
    EXPECT_LE(most.load(), tickets);
    EXPECT_EQ(done.load(), total);
    EXPECT_EQ(gate.executing(), 0);
    EXPECT_EQ(gate.waiting(), 0);
  }
}

// The hand-off race with nobody to mask a lost wake-up: each round one
// thread holds the only ticket and returns it at the moment another asks
// for it, and then waits until that one got in (in the stress above a later
// Enter would grant a ticket that a lost wake-up left free). A waiter left
// asleep with the ticket free stops the rounds; the watchdog fails the test.
// (The unsafe interleaving is a few instructions wide: this test runs the
// race often but cannot force it; the ordering argument is in the header.)
TEST(ExecutionGateTest, AWaiterRacingTheLastReleaseAlwaysGetsIn) {
  ExecutionGate gate(1);
  constexpr int kRounds = 20000;
  std::atomic<int> round{-1}, admitted{-1};
  std::thread asker([&] {
    ExecutionGate::Usage usage;
    for (int r = 0; r < kRounds; ++r) {
      WaitUntil([&] { return round.load() == r; });
      ExecutionGate::Ticket t = gate.Enter(&usage);  // races the holder's Release
      admitted.store(r);
    }
  });
  ExecutionGate::Usage usage;
  auto last_progress = std::chrono::steady_clock::now();
  for (int r = 0; r < kRounds; ++r) {
    ExecutionGate::Ticket t = gate.Enter(&usage);
    round.store(r);  // the asker starts its Enter now...
    t.Release();     // ...while the ticket comes back
    while (admitted.load() != r) {
      std::this_thread::yield();
      if (std::chrono::steady_clock::now() - last_progress > std::chrono::seconds(30)) {
        std::fprintf(stderr, "round %d: the asker waits (%d waiting, %d executing)\n", r,
                     gate.waiting(), gate.executing());
        std::abort();
      }
    }
    last_progress = std::chrono::steady_clock::now();
  }
  asker.join();
  EXPECT_EQ(gate.executing(), 0);
  EXPECT_EQ(gate.waiting(), 0);
}

// Waiters enqueue one at a time (each after the previous is seen waiting);
// returns the order in which they got the one ticket.
std::vector<int> AdmissionOrder(std::vector<ExecutionGate::Usage> usages) {
  ExecutionGate gate(1);
  ExecutionGate::Usage holder_usage;
  auto holder = std::make_unique<ExecutionGate::Ticket>(gate.Enter(&holder_usage));
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < usages.size(); ++i) {
    threads.emplace_back([&, i] {
      ExecutionGate::Ticket t = gate.Enter(&usages[i]);
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(static_cast<int>(i));
    });
    WaitUntil([&] { return gate.waiting() == static_cast<int>(i) + 1; });
  }
  holder.reset();
  for (auto& t : threads) t.join();
  return order;
}

TEST(ExecutionGateTest, EqualConnectionsGoInArrivalOrder) {
  std::vector<ExecutionGate::Usage> usages(6);  // none ran yet
  EXPECT_EQ(AdmissionOrder(usages), (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(ExecutionGateTest, AConnectionThatRanLittlePassesBusyOnes) {
  std::vector<ExecutionGate::Usage> usages(4);
  // Three busy connections (their finish tags 5 ms of execution ahead of
  // the virtual time), then a light one: it goes first, the busy ones keep
  // their order.
  for (int i = 0; i < 3; ++i) usages[i].finish_tag = 5000;
  EXPECT_EQ(AdmissionOrder(usages), (std::vector<int>{3, 0, 1, 2}));
}

TEST(ExecutionGateTest, TheLeadOfABusyConnectionIsCapped) {
  std::vector<ExecutionGate::Usage> usages(3);
  // One long command (an hour) puts the first connection no further back
  // than kMaxDebtUs: it ties with the second (2 x kMaxDebtUs, capped too)
  // and keeps its arrival order; uncapped it would go last.
  usages[0].finish_tag = 3.6e9;
  usages[1].finish_tag = ExecutionGate::kMaxDebtUs * 2;
  EXPECT_EQ(AdmissionOrder(usages), (std::vector<int>{2, 0, 1}));
}

TEST(ExecutionGateTest, ExecutionTimeIsChargedToTheConnection) {
  ExecutionGate gate(2);
  ExecutionGate::Usage usage;
  { ExecutionGate::Ticket t = gate.Enter(&usage); }
  const double first = usage.finish_tag;
  EXPECT_GE(first, 0);
  {
    ExecutionGate::Ticket t = gate.Enter(&usage);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a command that ran at least 1 ms
  }
  EXPECT_GE(usage.finish_tag, first + 1000);  // the tag advanced by what the command ran
}

TEST(ExecutionGateTest, OnlyDocumentCommandsTakeATicket) {
  for (const char* c : {"find", "aggregate", "count", "distinct", "insert", "update", "delete",
                        "findAndModify"}) {
    EXPECT_TRUE(ExecutionGate::TakesTicket(c)) << c;
  }
  for (const char* c : {"getMore", "hello", "isMaster", "ping", "fsyncUnlock", "killOp",
                        "serverStatus", "currentOp", "commitTransaction", "killCursors", "Find", ""}) {
    EXPECT_FALSE(ExecutionGate::TakesTicket(c)) << c;
  }
}

}  // namespace
}  // namespace tigerdoc::wire
