#pragma once
// GroupCommit: leader/follower batching of one expensive step (a journal
// write or fsync) that serves every caller who arrived before it started.
//
// Contract: Run(step) returns once a `step` that STARTED after this call
// took its ticket has succeeded (its status is then OK), or with the failed
// status of the step this caller ran itself. A caller whose ticket a
// failed step would have covered is not released by that failure: it runs
// (or waits for) a later step.
//
// One step runs at a time. The caller that finds no step running leads: it
// runs the step for every ticket taken so far. Callers arriving meanwhile
// queue; when the step ends the leader frees the lead (a committer that
// arrives next takes it at once) and wakes exactly the queued callers it
// covered, each on its own futex word, plus the oldest one it did not
// cover, which leads or queues again. Before, every step ended with
// notify_all: every waiter woke and retook the mutex, also those whose
// records the step had not covered.
//
// Thread-safety: Run is thread-safe. A GroupCommit must outlive its calls.

#include <cstdint>
#include <functional>
#include <mutex>

#include "engine/base/status.h"

namespace tigerdoc::storage {

class GroupCommit {
 public:
  GroupCommit() = default;
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  Status Run(const std::function<Status()>& step);

  // Steps run so far (for tests: how many callers one step served).
  uint64_t steps() const;

 private:
  struct Waiter;
  Status Lead(std::unique_lock<std::mutex>& lock, const std::function<Status()>& step,
              uint64_t ticket);

  mutable std::mutex mu_;
  uint64_t tickets_ = 0;      // guarded by mu_
  uint64_t done_ = 0;         // guarded by mu_: every ticket <= done_ is covered
  uint64_t steps_ = 0;        // guarded by mu_
  bool leader_active_ = false;  // guarded by mu_
  Waiter* head_ = nullptr;    // guarded by mu_: queued callers, oldest ticket first
  Waiter* tail_ = nullptr;    // guarded by mu_
};

}  // namespace tigerdoc::storage
