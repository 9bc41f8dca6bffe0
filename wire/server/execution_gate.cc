#include "wire/server/execution_gate.h"

#include <algorithm>
#include <iterator>
#include <memory>

namespace tigerdoc::wire {
namespace {

std::unique_ptr<ExecutionGate>& GlobalSlot() {
  static std::unique_ptr<ExecutionGate> gate = std::make_unique<ExecutionGate>(0);
  return gate;
}

}  // namespace

// std::push_heap keeps the largest first: "later" is the larger.
bool ExecutionGate::Later(const Waiter* a, const Waiter* b) {
  return a->tag != b->tag ? a->tag > b->tag : a->seq > b->seq;
}

ExecutionGate::Ticket& ExecutionGate::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = other.gate_;
    usage_ = other.usage_;
    start_tag_ = other.start_tag_;
    start_ = other.start_;
    other.gate_ = nullptr;
  }
  return *this;
}

void ExecutionGate::Ticket::Release() {
  if (gate_ == nullptr) return;
  ExecutionGate* gate = gate_;
  gate_ = nullptr;
  gate->Leave(usage_, start_tag_, start_);
}

double ExecutionGate::StartTag(const Usage* usage) const {
  const double now = virtual_time_.load(std::memory_order_relaxed);
  return std::max(now, std::min(usage->finish_tag, now + kMaxDebtUs));
}

void ExecutionGate::AdvanceVirtualTime(double tag) {
  double seen = virtual_time_.load(std::memory_order_relaxed);
  while (tag > seen && !virtual_time_.compare_exchange_weak(seen, tag, std::memory_order_relaxed)) {
  }
}

bool ExecutionGate::TryTakeFree() {
  int n = free_.load();
  while (n > 0) {
    if (free_.compare_exchange_weak(n, n - 1)) return true;
  }
  return false;
}

ExecutionGate::Ticket ExecutionGate::Enter(Usage* usage) {
  Ticket ticket;
  ticket.usage_ = usage;
  if (tickets_ < 1) {
    ticket.start_ = Clock::now();
    ticket.gate_ = this;
    return ticket;
  }
  double tag = StartTag(usage);
  // Fast path: nobody waits and a ticket is free.
  if (waiting_.load() == 0 && TryTakeFree()) {
    AdvanceVirtualTime(tag);
  } else {
    std::unique_lock<std::mutex> lock(mu_);
    tag = StartTag(usage);  // the virtual time may have moved meanwhile
    Waiter me;
    me.tag = tag;
    me.seq = next_seq_++;
    waiters_.push_back(&me);
    std::push_heap(waiters_.begin(), waiters_.end(), Later);
    waiting_.fetch_add(1);
    // A ticket returned before waiting_ counted this caller went back to
    // free_ without a hand-over: take it now (for whoever is first).
    GrantLocked();
    me.cv.wait(lock, [&] { return me.granted; });  // GrantLocked() moved the virtual time
  }
  ticket.start_tag_ = tag;
  ticket.start_ = Clock::now();
  ticket.gate_ = this;
  return ticket;
}

void ExecutionGate::GrantLocked() {
  while (!waiters_.empty() && TryTakeFree()) {
    std::pop_heap(waiters_.begin(), waiters_.end(), Later);
    Waiter* next = waiters_.back();
    waiters_.pop_back();
    waiting_.fetch_sub(1);
    AdvanceVirtualTime(next->tag);
    next->granted = true;
    // Notified under the lock: `next` lives on its waiter's stack until the
    // waiter sees `granted`, which needs this lock.
    next->cv.notify_one();
  }
}

void ExecutionGate::Leave(Usage* usage, double start_tag, Clock::time_point start) {
  const double ran_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  if (usage != nullptr) usage->finish_tag = start_tag + ran_us;
  if (tickets_ < 1) return;
  free_.fetch_add(1);
  // Sequentially consistent with the waiter's waiting_.fetch_add and its
  // retry of free_: if it queued after this load, it finds the ticket.
  if (waiting_.load() == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  GrantLocked();
}

int ExecutionGate::executing() const {
  if (tickets_ < 1) return 0;
  return tickets_ - free_.load();
}

int ExecutionGate::waiting() const { return waiting_.load(); }

bool ExecutionGate::TakesTicket(const char* command) {
  static constexpr std::string_view kGated[] = {"find",   "aggregate", "count",  "distinct",
                                                "insert", "update",    "delete", "findAndModify"};
  const std::string_view name(command);
  return std::find(std::begin(kGated), std::end(kGated), name) != std::end(kGated);
}

ExecutionGate& ExecutionGate::Global() { return *GlobalSlot(); }

void ExecutionGate::ConfigureGlobal(int tickets) { GlobalSlot() = std::make_unique<ExecutionGate>(tickets); }

}  // namespace tigerdoc::wire
