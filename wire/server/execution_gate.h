#pragma once
// ExecutionGate: at most `tickets` commands that read or write documents run
// at once; the others wait for a ticket (issue #18, connection fairness).
//
// Why: with a thread per connection, 200 busy connections make 200 runnable
// threads, and a light connection's request waits behind all of them in the
// kernel's run queue, or behind a preempted thread holding a lock it needs.
// With a few tickets, the waiting threads sleep and the gate decides who
// runs next.
//
// Who runs next: start-time fair queueing over connections, with a
// command's execution time as its cost. Each connection carries a finish
// tag (its last command's start tag + that command's execution time, in
// microseconds); a request's start tag is max(virtual time, the
// connection's finish tag), and the waiter with the smallest start tag goes
// next (equal tags: arrival order). Virtual time is the largest start tag
// admitted so far. So a connection that used less than its share lately
// (a light one, idle between requests) starts at the virtual time, ahead of
// busy connections whose tags ran ahead of it by what they used; busy ones
// share the tickets equally by execution time. A connection's lead is
// capped at kMaxDebt so that one long command does not lock it out. A
// ticket is handed to the chosen waiter directly (no thundering herd).
//
// Cost when uncontended: while nobody waits, Enter takes a free ticket and
// Leave returns it with one atomic operation each, no lock and no system
// call, so a gate that is rarely full costs (almost) nothing. Only when a
// caller finds no free ticket does it take the lock, queue and sleep; a
// Leave that then sees waiters hands the ticket to the one fair queueing
// chooses. No lost wake-up: a waiter counts itself in `waiting_` and then
// retries the free tickets, while a leaver returns its ticket and then
// reads `waiting_` (both sequentially consistent), so at least one of
// them sees the other. A caller arriving on the fast path just as a
// waiter queues may pass it once; it then hands its ticket on when it
// leaves.
//
// Thread-safety: Enter/Ticket may be used from any number of threads; a
// Usage belongs to one connection, used by one thread at a time.
// Ownership: a Ticket must not outlive its gate.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

namespace tigerdoc::wire {

class ExecutionGate {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kMaxDebtUs = 100000;  // 100 ms of others' execution

  // A connection's finish tag (virtual microseconds; see above).
  struct Usage {
    double finish_tag = 0;
  };

  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept { *this = std::move(other); }
    Ticket& operator=(Ticket&& other) noexcept;
    ~Ticket() { Release(); }
    // Gives the ticket back (and charges its run to the connection's usage).
    void Release();
    bool held() const { return gate_ != nullptr; }

   private:
    friend class ExecutionGate;
    ExecutionGate* gate_ = nullptr;
    Usage* usage_ = nullptr;
    double start_tag_ = 0;
    Clock::time_point start_{};
  };

  // tickets < 1: no limit (Enter never waits).
  explicit ExecutionGate(int tickets) : tickets_(tickets), free_(tickets < 1 ? 0 : tickets) {}
  ExecutionGate(const ExecutionGate&) = delete;
  ExecutionGate& operator=(const ExecutionGate&) = delete;

  // Blocks until a ticket is free and this caller is the one chosen.
  Ticket Enter(Usage* usage);

  // The commands that take a ticket: those that read or write documents
  // (find, aggregate, count, distinct, insert, update, delete,
  // findAndModify). Not getMore: on a tailable or change stream cursor it
  // waits for new writes, which would then wait for its ticket. Nothing
  // that waits for another command (fsyncUnlock, killOp, hello with
  // maxAwaitTimeMS, commitTransaction) or that an operator needs while
  // the server is busy (serverStatus, currentOp).
  static bool TakesTicket(const char* command);

  int tickets() const { return tickets_; }
  // Tickets held now / callers waiting now.
  int executing() const;
  int waiting() const;

  // The gate the server's connections use (configured by --maxConcurrentCommands;
  // unlimited until then). Configure before connections are served.
  static ExecutionGate& Global();
  static void ConfigureGlobal(int tickets);

 private:
  struct Waiter {
    double tag;
    uint64_t seq;
    bool granted = false;
    std::condition_variable cv;
  };
  static bool Later(const Waiter* a, const Waiter* b);
  void Leave(Usage* usage, double start_tag, Clock::time_point start);
  // Takes one free ticket if there is one (lock-free).
  bool TryTakeFree();
  // The start tag of `usage`'s next command at the current virtual time.
  double StartTag(const Usage* usage) const;
  void AdvanceVirtualTime(double tag);
  // Under mu_: hands free tickets to the first waiters in fair order.
  void GrantLocked();

  const int tickets_;
  std::atomic<int> free_;     // tickets nobody holds
  std::atomic<int> waiting_{0};  // size of waiters_; changed under mu_, read anywhere
  // The largest start tag admitted so far; advanced by compare-and-swap so
  // that the fast path needs no lock.
  std::atomic<double> virtual_time_{0};
  std::mutex mu_;
  uint64_t next_seq_ = 0;          // under mu_
  std::vector<Waiter*> waiters_;  // under mu_: a min-heap on (tag, seq)
};

}  // namespace tigerdoc::wire
