#pragma once
// Interrupt: why a running read must stop early, checked at yield points.
//
// MongoDB checks for interruption periodically while a plan runs (between
// documents of a scan, while sorting, while merging). Two causes matter to
// tigerdoc's reads:
//   * the operation's deadline (maxTimeMS) passed:
//       MaxTimeMSExpired (50) "operation exceeded time limit";
//   * the cursor was killed (killCursors) while a getMore was using it:
//       CursorKilled (237) "operation was interrupted";
//   * the operation was killed (killOp): Interrupted (11601) "operation was
//     interrupted";
//   * the server is shutting down (SIGTERM/SIGINT), for every request:
//       InterruptedAtShutdown (11600) "interrupted at shutdown".
// An Interrupt is built by the caller (Engine) for one request and passed by
// const reference down to the executor and sorter, which call Check() every
// few documents; Check() costs one clock read. Check() is also the
// operation's yield point (YieldHook below).
//
// Thread-safety: Check() may run concurrently with another thread setting the
// kill flag it points to (an atomic); the Interrupt itself belongs to one
// request.

#include <atomic>
#include <chrono>
#include <optional>

#include "engine/base/status.h"

namespace tigerdoc::query {

inline constexpr char kMaxTimeExpiredMessage[] = "operation exceeded time limit";
inline constexpr char kInterruptedMessage[] = "operation was interrupted";
inline constexpr char kShutdownMessage[] = "interrupted at shutdown";

// Process-wide, as mongod's "global in shutdown": set once by the server when
// it stops, so that every running request ends at its next check and the
// worker threads can be joined (a request has no handle the server could
// reach otherwise). Never cleared.
inline std::atomic<bool> shutdown_requested{false};
inline void RequestShutdown() { shutdown_requested.store(true, std::memory_order_relaxed); }
inline Status CheckShutdown() {
  if (shutdown_requested.load(std::memory_order_relaxed)) {
    return Status(ErrorCode::kInterruptedAtShutdown, kShutdownMessage);
  }
  return Status::OK();
}

// The kill flag of the operation running on this thread (killOp sets it;
// engine/operation_registry.h installs it for a command's duration); every
// Check() on the thread answers Interrupted (11601) once it is set. Null
// when no registered operation runs here.
inline thread_local const std::atomic<bool>* current_operation_killed = nullptr;

class Interrupt;

// What a registered operation does at its yield points: engine/
// long_work_admission.h's LongWorkTicket (admission of long work),
// installed by ScopedOperation. Null when no registered operation runs here.
class YieldHook {
 public:
  // Called by every Check() before it tests the interrupt causes; may
  // block (waiting for a slot) and returns early when the operation is
  // killed, past its deadline or the server stops, which Check() then
  // reports.
  virtual void AtYieldPoint(const Interrupt& interrupt) = 0;
  // The operation is about to wait idle (awaitData): gives up any slot.
  virtual void BeforeIdleWait() = 0;

 protected:
  ~YieldHook() = default;
};
inline thread_local YieldHook* current_yield_hook = nullptr;

inline void BeforeIdleWait() {
  if (current_yield_hook != nullptr) current_yield_hook->BeforeIdleWait();
}

class Interrupt {
 public:
  using Clock = std::chrono::steady_clock;

  Interrupt() = default;  // never interrupted

  static Interrupt WithDeadline(Clock::time_point deadline) {
    Interrupt i;
    i.deadline_ = deadline;
    return i;
  }

  // `killed` must outlive this Interrupt; null means "cannot be killed".
  void set_kill_flag(const std::atomic<bool>* killed) { killed_ = killed; }
  void set_deadline(std::optional<Clock::time_point> deadline) { deadline_ = deadline; }
  const std::optional<Clock::time_point>& deadline() const { return deadline_; }
  const std::atomic<bool>* kill_flag() const { return killed_; }

  Status Check() const {
    if (current_yield_hook != nullptr) current_yield_hook->AtYieldPoint(*this);
    RETURN_IF_ERROR(CheckShutdown());
    if (killed_ != nullptr && killed_->load(std::memory_order_relaxed)) {
      return Status(ErrorCode::kCursorKilled, kInterruptedMessage);
    }
    if (current_operation_killed != nullptr &&
        current_operation_killed->load(std::memory_order_relaxed)) {
      return Status(ErrorCode::kInterrupted, kInterruptedMessage);
    }
    if (deadline_ && Clock::now() >= *deadline_) {
      return Status(ErrorCode::kMaxTimeMSExpired, kMaxTimeExpiredMessage);
    }
    return Status::OK();
  }

 private:
  std::optional<Clock::time_point> deadline_;
  const std::atomic<bool>* killed_ = nullptr;
};

}  // namespace tigerdoc::query
