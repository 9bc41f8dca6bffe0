#pragma once
// SizeLimitsHook: enforces a collection's size limits and keeps its size
// table (size_table.h) in each write's transaction. Contract of the
// exactness in size_limits_pattern.h.
//
// Thread-safety: shared by every writer of the collection; the only
// mutable state is the atomic per-shard reservations.

#include <atomic>
#include <memory>
#include <string>

#include "engine/write/hooks.h"
#include "patterns/size_limits/size_table.h"

namespace tigerdoc::patterns::size_limits {

struct Limits {
  int64_t document = 16 * 1024 * 1024;
  int64_t partition = 0;  // 0: none
  int64_t shard = 0;      // 0: none
};

class SizeLimitsHook : public engine::PatternHook {
 public:
  SizeLimitsHook(Limits limits, const catalog::CollectionEntry& coll);

  Status AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AppendStats(storage::Session& session, const catalog::CollectionEntry& coll,
                     bson_t* out) override;
  Status AppendShardStats(storage::Session& session, const catalog::CollectionEntry& coll,
                          int shard, bson_t* out) override;
  Status Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                  std::vector<std::string>* problems) override;

  const Limits& limits() const { return limits_; }

 private:
  // Adds (count, bytes) to the partition of `doc` and to its shard's stripe;
  // refuses growth past a limit.
  Status Apply(engine::HookContext& ctx, const bson_t* doc, int64_t count, int64_t bytes);
  Status ReserveShard(engine::HookContext& ctx, int shard, int64_t bytes);

  const Limits limits_;
  const std::string table_;
  // Bytes reserved per shard by running writes (shared with their
  // commit/rollback callbacks, which may outlive a replaced hook).
  struct Reservations {
    explicit Reservations(int n) : bytes(new std::atomic<int64_t>[n]) {
      for (int i = 0; i < n; ++i) bytes[i].store(0);
    }
    std::unique_ptr<std::atomic<int64_t>[]> bytes;
  };
  std::shared_ptr<Reservations> reserved_;
};

}  // namespace tigerdoc::patterns::size_limits
