#pragma once
// LongWorkAdmission: at most `slots` long commands run at once (issue #18),
// MongoDB's execution tickets and query yields, but only for long work.
//
// Why: with a thread per connection, 200 connections scanning 1,000
// documents each keep 200 server threads runnable on 2 cores, and a short
// read's thread waits among them in the kernel's run queue (p99 22 ms).
// wire/server/execution_gate.h gates every command, which halves
// throughput when contended. Here a command takes no slot when it starts;
// only once it has run for a while does it need one, so short commands
// (find by _id, single inserts) never meet the queue and long ones wait
// blocked (not runnable) while about as many run as there are cores.
//
// How a command meets it: ScopedOperation (engine/operation_registry.h)
// installs a LongWorkTicket as this thread's query::YieldHook; every
// query::Interrupt::Check() (every 64 documents of a scan, sort or merge,
// and at the start and end of each batch) calls it. The ticket:
//   * reads the clock every kChecksPerClockRead (2) checks only;
//   * once kRunsLongAfter (0.1 ms) of wall time passed since the command
//     started (or since it last yielded), takes a slot, waiting FIFO if
//     none is free. Wall time, not CPU time (one clock read per check, no
//     system call). On an idle server a 1,000-document scan (about 0.4 ms
//     of CPU) takes a free slot (one mutex); a find by _id or an insert
//     never gets near the threshold. 0.1 ms catches nearly every scan of
//     an oversubscribed server: beside 200 scanning connections the
//     probes' p99 fell from 18-31 ms (no admission) to 0.6-0.8 ms, where
//     0.5 ms and 1 ms, which let a scan finish unadmitted unless it was
//     preempted, left it at 20-25 ms (bench/README.md "Long work
//     admission", "Threshold");
//   * while holding a slot, every kYieldPeriod (4 ms), when someone waits, hands
//     its slot to the first waiter and waits at the back (a yield, counted
//     as the operation's currentOp numYields);
//   * releases the slot when the command ends (the ticket's destructor,
//     so on error paths too) and before idle waits (awaitData getMores,
//     change streams: query::BeforeIdleWait()), whose time does not count.
//
// Why a wait cannot hang: a command waits for a slot at a Check() in the
// middle of its plan, holding what the plan holds there: its storage
// session's cursors and snapshot (WiredTiger), a multi-write's
// CollectionWriter shared lock on the collection's write_mutex, an index
// build's exclusive one. A slot holder may block on one of those (a
// createIndex or drop waiting for the write_mutex a waiting updateMany
// holds). So a wait ends
//   * when no slot has changed hands for kStallLimit since the wait began
//     (every holder is stuck, as in the case above): the command then runs
//     without a slot until it ends or idles (counted in waitTimeouts), so
//     what it holds is soon given up. A queue that moves never
//     times out, however long: 200 scans on 2 slots wait ~100 ms each,
//     which a fixed cap of 20-50 ms would turn into "run anyway" and undo
//     the admission;
//   * at once on killOp (OperationRegistry::Kill wakes the waiters), on
//     killCursors of a waiting getMore's cursor (CursorManager's pinned
//     kill hook wakes them), at shutdown (WakeWaiters from the server's
//     stop) and at the deadline (maxTimeMS): the command's next Check()
//     then fails with 11601, 237, 11600 or 50 as usual.
// Holders never wait on waiters except through those locks, and each
// holder yields within kYieldPeriod plus one Check() interval of someone
// waiting, so the queue moves while any holder runs.
//
// Nested ScopedOperations (an internal command inside a command) keep the
// outer ticket: one thread never holds two slots.
//
// Thread-safety: LongWorkAdmission is thread-safe (one mutex for the
// queue; counters readable without it). A LongWorkTicket belongs to its
// thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "engine/query/interrupt.h"

namespace tigerdoc::engine {

class Operation;

class LongWorkAdmission {
 public:
  using Clock = std::chrono::steady_clock;

  static constexpr Clock::duration kDefaultStallLimit = std::chrono::milliseconds(50);

  // slots < 1: off (every command runs freely).
  explicit LongWorkAdmission(int slots, Clock::duration stall_limit = kDefaultStallLimit);
  LongWorkAdmission(const LongWorkAdmission&) = delete;
  LongWorkAdmission& operator=(const LongWorkAdmission&) = delete;

  // The default: as many slots as the machine has cores.
  static int DefaultSlots();

  // Changes the number of slots at run time: more admits waiters at once;
  // fewer lets holders above the new count finish (a release then frees
  // rather than hands over); 0 turns admission off and lets every waiter
  // run.
  void SetSlots(int slots);
  int slots() const { return slots_.load(std::memory_order_relaxed); }
  bool enabled() const { return slots() > 0; }
  bool has_waiters() const { return waiting_.load(std::memory_order_relaxed) > 0; }

  // What ends a wait early besides a slot (see the header comment).
  struct WaitLimits {
    const std::atomic<bool>* killed = nullptr;         // killOp's flag
    const std::atomic<bool>* cursor_killed = nullptr;  // killCursors' flag
    std::optional<Clock::time_point> deadline;          // maxTimeMS
  };

  enum class Outcome {
    kAdmitted,     // holds a slot: Release() it
    kOff,          // admission is off: runs without a slot
    kTimedOut,     // no slot changed hands for the stall limit: runs without
    kInterrupted,  // killed, past its deadline or shutting down: no slot
  };

  // Takes a slot, waiting behind earlier waiters (FIFO).
  Outcome Acquire(const WaitLimits& limits);
  // A holder's yield: when someone waits, hands the slot to the first
  // waiter and waits at the back (true, `*outcome` as Acquire's); false
  // when nobody waits (the slot is kept).
  bool Yield(const WaitLimits& limits, Outcome* outcome);
  // Gives the slot back (to the first waiter when one waits).
  void Release();
  // Makes every waiter recheck its limits (killOp, shutdown).
  void WakeWaiters();

  // serverStatus's longWork section.
  struct Stats {
    int slots = 0;
    int in_use = 0;
    int waiting = 0;
    int64_t admitted = 0;          // commands that took a slot (not counting yields)
    int64_t yields = 0;            // slots handed to a waiter by a holder
    int64_t wait_timeouts = 0;     // waits ended by the stall limit
    int64_t interrupted_waits = 0; // waits ended by killOp, deadline or shutdown
  };
  Stats stats() const;

 private:
  struct Waiter {
    std::condition_variable cv;
    bool granted = false;
    Waiter* prev = nullptr;
    Waiter* next = nullptr;
  };

  // Waits in the queue (the caller has no slot); mutex held.
  Outcome WaitLocked(std::unique_lock<std::mutex>& lock, const WaitLimits& limits);
  // Passes a slot being given up to the first waiter, or frees it.
  void ReleaseLocked();
  void PushBackLocked(Waiter* w);
  void UnlinkLocked(Waiter* w);

  const Clock::duration stall_limit_;
  std::atomic<int> slots_;
  std::atomic<int> waiting_{0};
  std::atomic<int64_t> admitted_{0};
  std::atomic<int64_t> yields_{0};
  std::atomic<int64_t> wait_timeouts_{0};
  std::atomic<int64_t> interrupted_waits_{0};

  mutable std::mutex mutex_;
  int in_use_ = 0;
  Waiter* head_ = nullptr;
  Waiter* tail_ = nullptr;
  Clock::time_point last_handoff_{};  // the last time a slot changed hands
};

// One command's use of the admission: installed by ScopedOperation as this
// thread's query::YieldHook (see the header comment).
class LongWorkTicket final : public query::YieldHook {
 public:
  using Clock = LongWorkAdmission::Clock;

  // Tuned in long_work_admission.cc (bench/README.md "Long work admission").
  static const int kChecksPerClockRead;
  static const Clock::duration kRunsLongAfter;
  static const Clock::duration kYieldPeriod;

  // `since`: when the command started (its first period's start).
  LongWorkTicket(LongWorkAdmission& admission, Operation& operation, Clock::time_point since);
  ~LongWorkTicket() {
    if (holding_) admission_.Release();
  }
  LongWorkTicket(const LongWorkTicket&) = delete;
  LongWorkTicket& operator=(const LongWorkTicket&) = delete;

  void AtYieldPoint(const query::Interrupt& interrupt) override {
    if (--countdown_ > 0) return;
    TimedCheck(interrupt);
  }
  void BeforeIdleWait() override;

  bool holding() const { return holding_; }

 private:
  void TimedCheck(const query::Interrupt& interrupt);
  LongWorkAdmission::WaitLimits Limits(const query::Interrupt& interrupt) const;

  LongWorkAdmission& admission_;
  Operation& operation_;
  Clock::time_point since_;  // start of the current period
  int countdown_;  // checks until the next clock read
  bool holding_ = false;
  bool restart_period_ = false;  // after an idle wait: the next read starts a period
};

}  // namespace tigerdoc::engine
