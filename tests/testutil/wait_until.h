#pragma once
// WaitUntil: polls a condition until it holds or a deadline passes, for
// tests of work the server does in the background (cursor and transaction
// reapers, the TTL monitor, connection teardown, a request another thread
// sent). Such work takes milliseconds on an idle machine and can take
// seconds on a loaded CI machine (two cores shared, ASan 3-10x slower, a
// thread descheduled for a second), so a test waits for it to be seen
// rather than sleeping a fixed time; the deadline is generous because a
// passing run never reaches it, and a broken server still fails at it.

#include <chrono>
#include <thread>

namespace tigerdoc::testutil {

// Longer than any background step needs even under ASan on a starved
// machine; short enough that a test of broken work fails well inside
// ctest's timeout.
inline constexpr std::chrono::milliseconds kGenerousWait{60000};

// Calls `condition` (returns bool) every `period` until it returns true
// (then true) or `timeout` has passed (then false, after one last call).
template <typename Condition>
bool WaitUntil(Condition&& condition, std::chrono::milliseconds timeout = kGenerousWait,
               std::chrono::milliseconds period = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return condition();
    std::this_thread::sleep_for(period);
  }
  return true;
}

}  // namespace tigerdoc::testutil
