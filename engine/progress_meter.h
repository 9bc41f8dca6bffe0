#pragma once
// ProgressMeter: the progress of long work the user started (an index build
// over existing documents, a pattern backfill), as mongod shows it:
//   - in currentOp, on this thread's registered operation
//     (CurrentOperation(), engine/operation_registry.h):
//     msg: "<name>: <done>/<total> <percent>%", progress: {done, total};
//   - in the log, at most every 3 seconds (mongod's ProgressMeter default),
//     as mongod's line 51773 "progress meter" {name, namespace, done, total,
//     percent}.
// Outside a registered operation only the log lines are written.
//
// Thread-safety: one meter belongs to one thread.

#include <chrono>
#include <cstdint>
#include <string>

namespace tigerdoc::engine {

class Operation;

class ProgressMeter {
 public:
  static constexpr std::chrono::milliseconds kLogInterval{3000};

  ProgressMeter(std::string name, std::string ns, int64_t total,
                std::chrono::milliseconds log_interval = kLogInterval);
  // Counts `n` more units done (done may pass total when documents were
  // added meanwhile; total then follows done).
  void Add(int64_t n);
  // Leaves the final count in currentOp.
  void Finish();
  int64_t done() const { return done_; }

 private:
  void Show();

  const std::string name_;
  const std::string ns_;
  int64_t total_;
  int64_t done_ = 0;
  Operation* operation_;
  const std::chrono::milliseconds log_interval_;
  std::chrono::steady_clock::time_point last_logged_;
};

}  // namespace tigerdoc::engine
