#include "engine/repl/logical_clock.h"

#include <chrono>
#include <cstdint>

namespace tigerdoc::engine::repl {
namespace {

uint32_t WallSeconds() {
  return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

Timestamp LogicalClock::Tick() {
  const uint32_t wall = WallSeconds();
  std::lock_guard<std::mutex> lock(mutex_);
  if (wall > last_.seconds) {
    last_ = Timestamp{wall, 1};
  } else if (last_.increment == UINT32_MAX) {
    // Four billion ticks in one second: borrow the next second.
    last_ = Timestamp{last_.seconds + 1, 1};
  } else {
    ++last_.increment;
  }
  return last_;
}

Timestamp LogicalClock::Now() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_;
}

void LogicalClock::AdvanceTo(Timestamp t) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_ < t) last_ = t;
}

}  // namespace tigerdoc::engine::repl
