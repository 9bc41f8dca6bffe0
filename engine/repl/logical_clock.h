#pragma once
// LogicalClock: the cluster time of this (single-node) replica set, as
// MongoDB's BSON Timestamp (seconds, increment). Every committed change
// takes one tick; the change log keys its rows by it, and replies carry it
// as $clusterTime / operationTime.
//
// Contract: Tick() returns a timestamp strictly greater than every earlier
// result of Tick(), Now() and every AdvanceTo() argument, with seconds at
// least the wall clock's (seconds since the epoch), so timestamps read as
// times. Now() is the greatest timestamp handed out or advanced to.
// AdvanceTo(t) makes later ticks greater than t (start-up: the newest
// timestamp on disk, in case the wall clock went back).
//
// Thread-safety: all methods are thread-safe. Owned by the Engine
// (Engine::clock()).

#include <cstdint>
#include <mutex>

namespace tigerdoc::engine::repl {

struct Timestamp {
  uint32_t seconds = 0;
  uint32_t increment = 0;

  friend bool operator<(const Timestamp& a, const Timestamp& b) {
    return a.seconds != b.seconds ? a.seconds < b.seconds : a.increment < b.increment;
  }
  friend bool operator==(const Timestamp& a, const Timestamp& b) {
    return a.seconds == b.seconds && a.increment == b.increment;
  }
  friend bool operator<=(const Timestamp& a, const Timestamp& b) { return !(b < a); }
};

class LogicalClock {
 public:
  Timestamp Tick();
  Timestamp Now() const;
  void AdvanceTo(Timestamp t);

 private:
  mutable std::mutex mutex_;
  Timestamp last_;
};

}  // namespace tigerdoc::engine::repl
