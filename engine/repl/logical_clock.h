#pragma once
// LogicalClock: the cluster time of a one-node replica set.
//
// MongoDB stamps every operation with a Timestamp (seconds since the epoch,
// increment within the second): `$clusterTime`, `operationTime`, the
// `lastWrite` optimes of hello, and the order of change-stream events. On a
// single node one clock serves all of them: Tick() gives each write a time
// strictly after every earlier one and never behind the wall clock, so the
// times of writes sort in the order they were made and stay readable as
// dates.
//
// Thread-safety: every method is thread-safe (one mutex; Tick is short).

#include <cstdint>
#include <mutex>

namespace tigerdoc::engine::repl {

struct Timestamp {
  uint32_t seconds = 0;
  uint32_t increment = 0;

  friend bool operator==(const Timestamp& a, const Timestamp& b) {
    return a.seconds == b.seconds && a.increment == b.increment;
  }
  friend bool operator<(const Timestamp& a, const Timestamp& b) {
    return a.seconds != b.seconds ? a.seconds < b.seconds : a.increment < b.increment;
  }
  friend bool operator<=(const Timestamp& a, const Timestamp& b) { return !(b < a); }
};

class LogicalClock {
 public:
  // A time strictly greater than every earlier result of Tick() and every
  // time passed to AdvanceTo(); its seconds are at least the wall clock's.
  Timestamp Tick();
  // The latest time handed out or advanced to (zero before the first).
  Timestamp Now() const;
  // Moves the clock forward to `t` (no-op when `t` is not later): after a
  // restart, to the latest time found on disk, so times keep increasing.
  void AdvanceTo(Timestamp t);

  // The latest time Tick() gave the calling thread since its last
  // ResetThreadTick() (zero: none). A command's writes take their ticks on
  // the command's thread, so this is the command's operationTime: the
  // clusterTime of its last change event, as MongoDB's is its oplog time.
  static Timestamp ThreadTick();
  static void ResetThreadTick();

 private:
  mutable std::mutex mu_;
  Timestamp last_;
};

}  // namespace tigerdoc::engine::repl
