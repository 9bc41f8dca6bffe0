#include "engine/long_work_admission.h"

#include <algorithm>
#include <thread>

#include "engine/operation_registry.h"

namespace tigerdoc::engine {

LongWorkAdmission::LongWorkAdmission(int slots, Clock::duration stall_limit)
    : stall_limit_(stall_limit), slots_(std::max(slots, 0)) {}

int LongWorkAdmission::DefaultSlots() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void LongWorkAdmission::SetSlots(int slots) {
  std::lock_guard<std::mutex> lock(mutex_);
  slots_.store(std::max(slots, 0), std::memory_order_relaxed);
  if (slots_.load(std::memory_order_relaxed) == 0) {
    // Off: the waiters see it and run without a slot.
    for (Waiter* w = head_; w != nullptr; w = w->next) w->cv.notify_one();
    return;
  }
  while (head_ != nullptr && in_use_ < slots_.load(std::memory_order_relaxed)) {
    ++in_use_;
    Waiter* w = head_;
    UnlinkLocked(w);
    w->granted = true;
    w->cv.notify_one();
  }
}

void LongWorkAdmission::PushBackLocked(Waiter* w) {
  w->prev = tail_;
  w->next = nullptr;
  if (tail_ != nullptr) tail_->next = w;
  else head_ = w;
  tail_ = w;
  waiting_.fetch_add(1, std::memory_order_relaxed);
}

void LongWorkAdmission::UnlinkLocked(Waiter* w) {
  if (w->prev != nullptr) w->prev->next = w->next;
  else head_ = w->next;
  if (w->next != nullptr) w->next->prev = w->prev;
  else tail_ = w->prev;
  w->prev = w->next = nullptr;
  waiting_.fetch_sub(1, std::memory_order_relaxed);
}

void LongWorkAdmission::ReleaseLocked() {
  last_handoff_ = Clock::now();
  if (head_ != nullptr && in_use_ <= slots_.load(std::memory_order_relaxed)) {
    Waiter* w = head_;  // the slot passes on: in_use_ is unchanged
    UnlinkLocked(w);
    w->granted = true;
    w->cv.notify_one();
    return;
  }
  --in_use_;
}

LongWorkAdmission::Outcome LongWorkAdmission::WaitLocked(std::unique_lock<std::mutex>& lock,
                                                         const WaitLimits& limits) {
  Waiter self;
  PushBackLocked(&self);
  const Clock::time_point began = Clock::now();
  while (!self.granted) {
    const bool stop = query::shutdown_requested.load(std::memory_order_relaxed) ||
                      (limits.killed != nullptr && limits.killed->load(std::memory_order_relaxed)) ||
                      (limits.cursor_killed != nullptr &&
                       limits.cursor_killed->load(std::memory_order_relaxed));
    const Clock::time_point now = Clock::now();
    if (stop || (limits.deadline && now >= *limits.deadline)) {
      UnlinkLocked(&self);
      interrupted_waits_.fetch_add(1, std::memory_order_relaxed);
      return Outcome::kInterrupted;
    }
    if (slots_.load(std::memory_order_relaxed) == 0) {
      UnlinkLocked(&self);
      return Outcome::kOff;
    }
    // A stall: no slot changed hands since this wait began, for the limit.
    const Clock::time_point stalled_at = std::max(began, last_handoff_) + stall_limit_;
    if (now >= stalled_at) {
      UnlinkLocked(&self);
      wait_timeouts_.fetch_add(1, std::memory_order_relaxed);
      return Outcome::kTimedOut;
    }
    Clock::time_point wake = stalled_at;
    if (limits.deadline && *limits.deadline < wake) wake = *limits.deadline;
    self.cv.wait_until(lock, wake);
  }
  return Outcome::kAdmitted;  // the granter unlinked us and kept in_use_
}

LongWorkAdmission::Outcome LongWorkAdmission::Acquire(const WaitLimits& limits) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (slots_.load(std::memory_order_relaxed) == 0) return Outcome::kOff;
  Outcome outcome;
  if (head_ == nullptr && in_use_ < slots_.load(std::memory_order_relaxed)) {
    ++in_use_;
    last_handoff_ = Clock::now();
    outcome = Outcome::kAdmitted;
  } else {
    outcome = WaitLocked(lock, limits);
  }
  if (outcome == Outcome::kAdmitted) admitted_.fetch_add(1, std::memory_order_relaxed);
  return outcome;
}

bool LongWorkAdmission::Yield(const WaitLimits& limits, Outcome* outcome) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (head_ == nullptr) return false;
  ReleaseLocked();
  yields_.fetch_add(1, std::memory_order_relaxed);
  *outcome = WaitLocked(lock, limits);
  return true;
}

void LongWorkAdmission::Release() {
  std::lock_guard<std::mutex> lock(mutex_);
  ReleaseLocked();
}

void LongWorkAdmission::WakeWaiters() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Waiter* w = head_; w != nullptr; w = w->next) w->cv.notify_one();
}

LongWorkAdmission::Stats LongWorkAdmission::stats() const {
  Stats s;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s.in_use = in_use_;
  }
  s.slots = slots();
  s.waiting = waiting_.load(std::memory_order_relaxed);
  s.admitted = admitted_.load(std::memory_order_relaxed);
  s.yields = yields_.load(std::memory_order_relaxed);
  s.wait_timeouts = wait_timeouts_.load(std::memory_order_relaxed);
  s.interrupted_waits = interrupted_waits_.load(std::memory_order_relaxed);
  return s;
}

const int LongWorkTicket::kChecksPerClockRead = 2;
const LongWorkTicket::Clock::duration LongWorkTicket::kRunsLongAfter = std::chrono::microseconds(100);
const LongWorkTicket::Clock::duration LongWorkTicket::kYieldPeriod = std::chrono::milliseconds(4);

LongWorkTicket::LongWorkTicket(LongWorkAdmission& admission, Operation& operation, Clock::time_point since)
    : admission_(admission), operation_(operation), since_(since), countdown_(kChecksPerClockRead) {}

LongWorkAdmission::WaitLimits LongWorkTicket::Limits(const query::Interrupt& interrupt) const {
  LongWorkAdmission::WaitLimits limits;
  limits.killed = operation_.kill_flag();
  limits.cursor_killed = interrupt.kill_flag();
  limits.deadline = operation_.info().deadline;
  if (interrupt.deadline() && (!limits.deadline || *interrupt.deadline() < *limits.deadline)) {
    limits.deadline = interrupt.deadline();
  }
  return limits;
}

void LongWorkTicket::TimedCheck(const query::Interrupt& interrupt) {
  countdown_ = kChecksPerClockRead;
  if (!holding_ && !admission_.enabled()) return;
  const Clock::time_point now = Clock::now();
  if (restart_period_) {
    restart_period_ = false;
    since_ = now;
    return;
  }
  using Outcome = LongWorkAdmission::Outcome;
  if (!holding_) {
    if (now - since_ < kRunsLongAfter) return;
    operation_.set_waiting_for_slot(true);
    const Outcome outcome = admission_.Acquire(Limits(interrupt));
    operation_.set_waiting_for_slot(false);
    holding_ = outcome == Outcome::kAdmitted;
    if (outcome == Outcome::kTimedOut) {
      // The queue stalled, perhaps on what this command holds: it runs
      // free until it ends (or idles), rather than wait again and again.
      since_ = Clock::time_point::max();
      return;
    }
  } else {
    if (now - since_ < kYieldPeriod || !admission_.has_waiters()) return;
    Outcome outcome;
    operation_.set_waiting_for_slot(true);
    const bool yielded = admission_.Yield(Limits(interrupt), &outcome);
    operation_.set_waiting_for_slot(false);
    if (!yielded) return;
    operation_.CountYield();
    holding_ = outcome == Outcome::kAdmitted;
    if (outcome == Outcome::kTimedOut) {
      since_ = Clock::time_point::max();
      return;
    }
  }
  // Admitted: its holding period starts. Interrupted: its next check fails.
  // Off: it asks again a period later.
  since_ = Clock::now();
}

void LongWorkTicket::BeforeIdleWait() {
  if (holding_) {
    admission_.Release();
    holding_ = false;
  }
  restart_period_ = true;
  countdown_ = 1;  // the first check after the wait starts the new period
}

}  // namespace tigerdoc::engine
