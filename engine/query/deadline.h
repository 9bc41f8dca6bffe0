#pragma once
// Deadlines of maxTimeMS: when a request's time is up, and what a cursor
// carries over to its next getMore (MongoDB counts the time a cursor works,
// not the time it sits idle between getMores).
//
// Thread-safety: pure functions.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

namespace tigerdoc::query {

// The deadline of a request that started at `start` with `max_time_ms`;
// none when it is 0 (no limit).
inline std::optional<std::chrono::steady_clock::time_point> DeadlineAfter(
    std::chrono::steady_clock::time_point start, int64_t max_time_ms) {
  if (max_time_ms <= 0) return std::nullopt;
  return start + std::chrono::milliseconds(max_time_ms);
}

// Time left before `deadline`, never negative: what the next getMore of the
// cursor may still spend; none when there is no deadline.
inline std::optional<std::chrono::steady_clock::duration> TimeLeft(
    const std::optional<std::chrono::steady_clock::time_point>& deadline) {
  if (!deadline) return std::nullopt;
  return std::max(*deadline - std::chrono::steady_clock::now(),
                  std::chrono::steady_clock::duration::zero());
}

}  // namespace tigerdoc::query
