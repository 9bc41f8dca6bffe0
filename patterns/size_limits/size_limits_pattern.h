#pragma once
// The size limits pattern (issue 12): maxDocumentBytes, maxPartitionBytes,
// maxShardBytes as collection options (patterns/README.md has the table),
// enforced on every write through its hook, with counts and sizes per
// logical partition and per shard kept in "<ident>-sizes" (size_table.h).
//
// Catalog config (`patterns.sizeLimits`):
//   { maxDocumentBytes: <int64>, [maxPartitionBytes: <int64>], [maxShardBytes: <int64>] }
//
// Exactness under concurrency:
//   - partition: every write to a partition reads and rewrites its row in
//     the write's transaction, so two writers to one partition conflict and
//     one retries (seeing the other's bytes): a limit is never passed.
//   - shard: per-shard totals are striped rows (no single hot row), which
//     snapshot isolation cannot use to enforce a limit (two writers may each
//     see room). A shard limit is therefore admitted in memory: a growing
//     write reserves its bytes against the shard's committed bytes plus the
//     reservations of running writes, and gives them back when it commits or
//     rolls back. One server process owns the data directory, so this is
//     exact; after a restart only committed bytes count.

#include <memory>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns::size_limits {

inline constexpr char kPatternName[] = "sizeLimits";
inline constexpr char kMaxDocumentBytes[] = "maxDocumentBytes";
inline constexpr char kMaxPartitionBytes[] = "maxPartitionBytes";
inline constexpr char kMaxShardBytes[] = "maxShardBytes";
inline constexpr int64_t kMinDocumentBytes = 1024;
inline constexpr int64_t kMaxDocumentBytesLimit = 16 * 1024 * 1024;

std::unique_ptr<engine::Pattern> MakeSizeLimitsPattern();

}  // namespace tigerdoc::patterns::size_limits
