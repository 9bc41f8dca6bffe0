#include "engine/write/write_unit.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace tigerdoc::engine {

Status RunWriteUnit(storage::Session& session, const std::function<Status()>& body) {
  static thread_local std::mt19937 rng(std::random_device{}());
  for (int attempt = 0;; ++attempt) {
    RETURN_IF_ERROR(session.Begin());
    Status status = body();
    if (status.ok()) status = session.Commit();
    else session.Rollback();
    if (status.code() != ErrorCode::kWriteConflict) return status;
    // Inside a client's transaction the conflict rolled the whole
    // transaction back: the client retries it (TransientTransactionError).
    if (session.joins_outer_transaction()) return status;
    if (session.in_transaction()) session.Rollback();
    // Back off with jitter so that the contenders stop colliding; the cap
    // keeps a hot document's latency bounded.
    if (attempt > 2) {
      int max_us = std::min(1000, 10 << std::min(attempt, 6));
      std::this_thread::sleep_for(std::chrono::microseconds(rng() % max_us));
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace tigerdoc::engine
