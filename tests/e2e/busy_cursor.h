#pragma once
// BusyCursor: keeps a server cursor in use for tests of idle-cursor timeouts
// and tells whether it really was kept in use. The server may have seen the
// cursor idle from the moment one use (a getMore) was sent until the reply
// to the next one came back, so the longest such span bounds the idle time
// the reaper could have measured. A test may expect the cursor to outlive
// the timeout only when that span stayed below it; when the machine stalled
// longer (a loaded CI machine can deschedule the test for a second) the run
// proves nothing about the busy cursor, and the test repeats it, at most
// kCursorReapingAttempts times.

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>

#include "tests/testutil/mongo_client.h"

namespace tigerdoc::e2e {

// Runs of a reaping test in which the machine stalled longer than the
// timeout are repeated; five in a row means the machine is unusable.
inline constexpr int kCursorReapingAttempts = 5;

class BusyCursor {
 public:
  using Clock = std::chrono::steady_clock;

  // `use` runs one getMore on the cursor and returns its reply; `opened_at`
  // is when the command that opened the cursor was sent.
  BusyCursor(std::function<testutil::BsonDoc()> use, Clock::time_point opened_at)
      : use_(std::move(use)), last_sent_(opened_at) {}

  // Uses the cursor once; returns the getMore's reply.
  testutil::BsonDoc Use() {
    const auto sent = Clock::now();
    testutil::BsonDoc reply = use_();
    longest_idle_ = std::max(longest_idle_, Clock::now() - last_sent_);
    last_sent_ = sent;
    return reply;
  }

  // The longest span so far (up to now) in which the server could have
  // seen the cursor idle.
  Clock::duration LongestIdle() const { return std::max(longest_idle_, Clock::now() - last_sent_); }

 private:
  std::function<testutil::BsonDoc()> use_;
  Clock::time_point last_sent_;
  Clock::duration longest_idle_{};
};

// serverStatus's metrics.cursor.timedOut (-1 when missing).
inline int64_t CursorsTimedOut(testutil::MongoClient& client) {
  return testutil::Integer(client.RunCommand("admin", R"({"serverStatus": 1})"), "metrics.cursor.timedOut")
      .value_or(-1);
}

}  // namespace tigerdoc::e2e
