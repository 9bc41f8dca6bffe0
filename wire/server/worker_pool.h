#pragma once
// WorkerPool: a fixed set of threads running posted tasks in FIFO order.
// Commands run here rather than on io threads because storage calls block.
//
// Thread-safety: Post() and Shutdown() may be called from any thread.
// Shutdown() must not be called from a worker (it joins them).

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tigerdoc::wire {

class WorkerPool {
 public:
  // REQUIRES: threads >= 1.
  explicit WorkerPool(int threads);
  ~WorkerPool();  // Shutdown()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`. Returns false, dropping it, once Shutdown() has begun.
  bool Post(std::function<void()> task);

  // Stops accepting tasks, runs every task already queued, and joins the
  // threads. Idempotent.
  void Shutdown();

  int size() const { return static_cast<int>(threads_.size()); }

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool shutting_down_ = false;               // guarded by mu_
  std::vector<std::thread> threads_;
  std::once_flag joined_;
};

}  // namespace tigerdoc::wire
