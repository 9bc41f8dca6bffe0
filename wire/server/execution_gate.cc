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

ExecutionGate::Ticket ExecutionGate::Enter(Usage* usage) {
  Ticket ticket;
  ticket.usage_ = usage;
  if (tickets_ < 1) {
    ticket.start_ = Clock::now();
    ticket.gate_ = this;
    return ticket;
  }
  std::unique_lock<std::mutex> lock(mu_);
  const double tag = std::max(virtual_time_, std::min(usage->finish_tag, virtual_time_ + kMaxDebtUs));
  if (free_ > 0 && waiters_.empty()) {
    --free_;
    virtual_time_ = std::max(virtual_time_, tag);
  } else {
    Waiter me;
    me.tag = tag;
    me.seq = next_seq_++;
    waiters_.push_back(&me);
    std::push_heap(waiters_.begin(), waiters_.end(), Later);
    me.cv.wait(lock, [&] { return me.granted; });  // Leave() moved virtual_time_
  }
  ticket.start_tag_ = tag;
  ticket.start_ = Clock::now();
  ticket.gate_ = this;
  return ticket;
}

void ExecutionGate::Leave(Usage* usage, double start_tag, Clock::time_point start) {
  const double ran_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  if (usage != nullptr) usage->finish_tag = start_tag + ran_us;
  if (tickets_ < 1) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (waiters_.empty()) {
    ++free_;
    return;
  }
  // Hand the ticket over: free_ stays as it is.
  std::pop_heap(waiters_.begin(), waiters_.end(), Later);
  Waiter* next = waiters_.back();
  waiters_.pop_back();
  virtual_time_ = std::max(virtual_time_, next->tag);
  next->granted = true;
  // Notified under the lock: `next` lives on its waiter's stack until the
  // waiter sees `granted`, which needs this lock.
  next->cv.notify_one();
}

int ExecutionGate::executing() const {
  if (tickets_ < 1) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  return tickets_ - free_;
}

int ExecutionGate::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(waiters_.size());
}

bool ExecutionGate::TakesTicket(const char* command) {
  static constexpr std::string_view kGated[] = {"find",   "aggregate", "count",  "distinct",
                                                "insert", "update",    "delete", "findAndModify"};
  const std::string_view name(command);
  return std::find(std::begin(kGated), std::end(kGated), name) != std::end(kGated);
}

ExecutionGate& ExecutionGate::Global() { return *GlobalSlot(); }

void ExecutionGate::ConfigureGlobal(int tickets) { GlobalSlot() = std::make_unique<ExecutionGate>(tickets); }

}  // namespace tigerdoc::wire
