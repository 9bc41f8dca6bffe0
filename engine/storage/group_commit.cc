// GroupCommit (group_commit.h): a FIFO of waiters, each parked on its own
// futex word.

#include "engine/storage/group_commit.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>

namespace tigerdoc::storage {

namespace {

enum : uint32_t {
  kQueued = 0,   // waiting for a step to cover its ticket
  kCovered = 1,  // a step that started after its ticket succeeded
  kRetry = 2,    // not covered; it leads or queues again
};

void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr,
          0);
}

}  // namespace

struct GroupCommit::Waiter {
  uint64_t ticket = 0;
  std::atomic<uint32_t> state{kQueued};
  Waiter* next = nullptr;
};

Status GroupCommit::Run(const std::function<Status()>& step) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = ++tickets_;
  for (;;) {
    if (done_ >= ticket) return Status::OK();  // a step started after our ticket
    if (!leader_active_) {
      leader_active_ = true;
      return Lead(lock, step, ticket);
    }
    Waiter me;
    me.ticket = ticket;
    (tail_ != nullptr ? tail_->next : head_) = &me;
    tail_ = &me;
    lock.unlock();
    uint32_t state;
    while ((state = me.state.load(std::memory_order_acquire)) == kQueued) {
      FutexWait(&me.state, kQueued);
    }
    if (state == kCovered) return Status::OK();
    lock.lock();  // kRetry: no longer queued; lead, or queue again
  }
}

// Runs steps until one covers `ticket` (or fails), then wakes the covered
// waiters and the oldest uncovered one.
Status GroupCommit::Lead(std::unique_lock<std::mutex>& lock, const std::function<Status()>& step,
                         uint64_t ticket) {
  Status status;
  do {
    const uint64_t target = tickets_;
    lock.unlock();
    status = step();
    lock.lock();
    ++steps_;
    if (status.ok() && target > done_) done_ = target;
  } while (status.ok() && done_ < ticket);
  // The lead is free at once: a committer arriving now (running, not
  // asleep) takes it without waiting for a woken waiter to be scheduled.
  leader_active_ = false;
  Waiter* covered = nullptr;
  Waiter** covered_tail = &covered;
  while (head_ != nullptr && head_->ticket <= done_) {
    *covered_tail = head_;
    covered_tail = &head_->next;
    head_ = head_->next;
  }
  *covered_tail = nullptr;
  // The oldest waiter the step did not cover retries (leads, or queues
  // again behind a leader that arrived meanwhile, whose step covers it);
  // the others stay asleep.
  Waiter* retry = head_;
  if (retry != nullptr) head_ = retry->next;
  if (head_ == nullptr) tail_ = nullptr;
  lock.unlock();
  while (covered != nullptr) {
    Waiter* w = covered;
    covered = w->next;  // read before the store: `w` may be gone right after it
    w->state.store(kCovered, std::memory_order_release);
    // A wake of a word whose owner already returned (and reused the memory)
    // is harmless: a futex wake only ends FUTEX_WAITs on that address, whose
    // callers re-check their word.
    FutexWake(&w->state);
  }
  if (retry != nullptr) {
    retry->state.store(kRetry, std::memory_order_release);
    FutexWake(&retry->state);
  }
  return status;
}

uint64_t GroupCommit::steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_;
}

}  // namespace tigerdoc::storage
