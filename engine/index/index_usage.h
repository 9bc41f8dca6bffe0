#pragma once
// IndexUsage: how many user operations used one index, and since when —
// the `accesses` of MongoDB's $indexStats ({ops, since}).
//
// Counters are in memory only, as in MongoDB: they start at zero when the
// index is created or loaded at server start, and when collMod modifies the
// index. An IndexSpec holds its counter through a shared_ptr so that the
// copies the catalog makes of a spec (IndexSpec::Clone on multikey changes,
// IndexSet snapshot swaps) keep counting into the same one; the implicit
// _id index's counter lives on the CollectionEntry.
//
// Thread-safety: Record() and the readers may run concurrently (atomic
// counter, immutable start time).

#include <atomic>
#include <chrono>
#include <cstdint>

namespace tigerdoc::index {

class IndexUsage {
 public:
  IndexUsage() : since_(std::chrono::system_clock::now()) {}
  IndexUsage(const IndexUsage&) = delete;
  IndexUsage& operator=(const IndexUsage&) = delete;

  // One operation chose a plan reading the index.
  void Record() { ops_.fetch_add(1, std::memory_order_relaxed); }
  int64_t ops() const { return ops_.load(std::memory_order_relaxed); }
  std::chrono::system_clock::time_point since() const { return since_; }

 private:
  std::atomic<int64_t> ops_{0};
  const std::chrono::system_clock::time_point since_;
};

}  // namespace tigerdoc::index
