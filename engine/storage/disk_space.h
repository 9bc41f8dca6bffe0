#pragma once
// DiskSpaceGuard: refuses writes while the file system holding the data
// directory has less free space than a reserve, so that WiredTiger itself
// never meets ENOSPC.
//
// Why: WiredTiger 3.2 panics (WT_PANIC, "fatal log failure" / "cache
// eviction thread error") when a journal or data-file write fails with
// ENOSPC; the connection is then unusable and the process must restart. A
// write refused here instead fails cleanly with OutOfDiskSpace (14031)
// before it reaches WiredTiger, while reads go on. The reserve is what
// WiredTiger may still write after the last refused write: journal records
// of writes in flight and the next checkpoint (up to the dirty part of the
// cache). See engine/README.md, "Full disk".
//
// Two thresholds: writes that add data (insert, put, create) need the whole
// reserve free; removes (which are how space is freed) only half of it, so
// they work on a full disk but still leave WiredTiger room.
//
// Thread-safe. The free-space figure is cached for kRefresh so a bulk write
// costs one statvfs per interval, not one per record.

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/base/status.h"

namespace tigerdoc::storage {

// Free bytes for an unprivileged writer on the file system holding `path`
// (statvfs f_bavail; root may use slightly more).
StatusWith<uint64_t> FreeDiskBytes(const std::string& path);

class DiskSpaceGuard {
 public:
  // reserve_bytes == 0 turns the guard off.
  DiskSpaceGuard(std::string path, uint64_t reserve_bytes)
      : path_(std::move(path)), reserve_(reserve_bytes) {}

  // OK while at least the reserve is free; OutOfDiskSpace (14031) otherwise.
  Status CheckWrite() { return Check(reserve_, "write"); }
  // As CheckWrite with half the reserve: removes free space.
  Status CheckRemove() { return Check(reserve_ / 2, "remove"); }

  uint64_t reserve_bytes() const { return reserve_; }

 private:
  Status Check(uint64_t needed, const char* what);

  const std::string path_;
  const uint64_t reserve_;
  // When free_bytes_ was measured (steady clock, ns); 0 = never, which
  // forces the first check to measure (the clock counts from boot).
  std::atomic<int64_t> checked_at_ns_{0};
  std::atomic<uint64_t> free_bytes_{0};
};

// The message used for every refusal at start-up and at run time.
std::string OutOfDiskSpaceMessage(const std::string& path, uint64_t free_bytes,
                                  uint64_t needed_bytes, const char* what);

}  // namespace tigerdoc::storage
