#pragma once
// Counts rows: (document count, BSON bytes) kept in a pattern's own
// WiredTiger table, changed in each write's transaction so they are exact
// after any crash. Shared by the patterns that report counts and sizes
// (size limits per partition and shard, discriminator per type).
//
// Row value format (a compatibility promise, patterns/README.md):
//   i64 count | i64 bytes   (big-endian), more bytes may follow
//
// A total that many concurrent writers change is split over kStripes rows:
// each thread adds to its own stripe, so writers rarely conflict on one row;
// readers sum the stripes.
//
// Thread-safety: functions use the caller's session.

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::patterns {

inline constexpr int kStripes = 16;

struct Counts {
  int64_t count = 0;
  int64_t bytes = 0;
  Counts& operator+=(const Counts& other) {
    count += other.count;
    bytes += other.bytes;
    return *this;
  }
  bool operator==(const Counts& other) const = default;
};

std::string EncodeCounts(const Counts& counts);
// InternalError when `bytes` is shorter than a counts row.
StatusWith<Counts> DecodeCounts(std::string_view bytes);

// The stripe of the calling thread, in [0, kStripes).
int ThreadStripe();

// Adds `delta` to the counts row `key` of `table` (created when absent).
// REQUIRES: `session` is in a transaction.
Status AddToCountsRow(storage::Session& session, std::string_view table, std::string_view key,
                      const Counts& delta);

}  // namespace tigerdoc::patterns
