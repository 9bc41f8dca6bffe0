#include "engine/repl/logical_clock.h"

#include "engine/base/wall_clock.h"

#include <chrono>
#include <limits>

namespace tigerdoc::engine::repl {

namespace {

thread_local Timestamp t_thread_tick;

}  // namespace

Timestamp LogicalClock::Tick() {
  const uint32_t wall = WallClockSeconds();
  std::lock_guard<std::mutex> lock(mu_);
  if (wall > last_.seconds) {
    last_ = Timestamp{wall, 1};
  } else if (last_.increment == std::numeric_limits<uint32_t>::max()) {
    // 4 billion ticks in one second: borrow the next second (MongoDB does too).
    last_ = Timestamp{last_.seconds + 1, 1};
  } else {
    ++last_.increment;
  }
  t_thread_tick = last_;
  return last_;
}

Timestamp LogicalClock::ThreadTick() { return t_thread_tick; }

void LogicalClock::ResetThreadTick() { t_thread_tick = Timestamp{}; }

Timestamp LogicalClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

void LogicalClock::AdvanceTo(Timestamp t) {
  std::lock_guard<std::mutex> lock(mu_);
  if (last_ < t) last_ = t;
}

}  // namespace tigerdoc::engine::repl
