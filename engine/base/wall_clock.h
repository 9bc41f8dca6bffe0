#pragma once
// The wall clock (system_clock) as the server stores and shows it: dates
// in milliseconds since the Unix epoch (BSON dates, $$NOW, localTime,
// session and retryable-write ages, change-log `wall`), and the whole
// seconds of a cluster-time Timestamp. Not for measuring durations: use
// std::chrono::steady_clock for those.
//
// Thread-safety: pure functions of the system clock.

#include <chrono>
#include <cstdint>

namespace tigerdoc {

inline int64_t WallClockMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline uint32_t WallClockSeconds() {
  return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace tigerdoc
