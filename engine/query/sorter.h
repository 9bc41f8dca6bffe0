#pragma once
// Sorter: the blocking SORT of a find. Orders (key, document) rows by
// memcmp() of their keys (SortSpec::KeyFor keystrings), ties in the order the
// rows were added, within a memory budget; spills sorted runs to a
// temporary file and merges them when the budget is exceeded and disk use
// is allowed.
//
//   Add() ──▶ in-memory rows (all, or the best `limit` in a bounded max-heap)
//                 │ over max_memory_bytes?
//                 ├─ no allowDiskUse: QueryExceededMemoryLimitNoDiskUseAllowed (292)
//                 └─ allowDiskUse: sort them, append as run N to the spill file
//   Done() ──▶ sort what is left in memory
//   Next() ──▶ k-way merge of run 0..N-1 and the in-memory rows (a heap on
//              (key, run number): equal keys come out in insertion order)
//
// Top-k (limit > 0, MongoDB's SORT with limitAmount): at most `limit` rows
// are kept; once a run holding `limit` rows was spilled, its last key is a
// cutoff and later rows sorting after it are dropped at once, so
// find().sort().limit(10) over a million documents holds ten.
//
// Spill file: one SpillFile per Sorter (unnamed, in `temp_dir`, so nothing
// is left behind by a crash; closed by the destructor). Record grammar, runs written back to back:
//   record := key_len:u32le doc_len:u32le key[key_len] doc[doc_len]
//   run    := record*            (sorted; [begin, end) offsets kept in memory)
// Merge readers buffer at most max(4 KiB, max_memory_bytes / runs) each.
//
// Ownership and thread-safety: a Sorter belongs to one PlanExecutor and is
// used by one thread at a time; it pins no storage between calls (a file
// descriptor and in-memory buffers only).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/spill_file.h"

namespace tigerdoc::query {

// MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes default.
inline constexpr int64_t kDefaultMaxBlockingSortBytes = 100 * 1024 * 1024;

struct SorterOptions {
  int64_t max_memory_bytes = kDefaultMaxBlockingSortBytes;
  bool allow_disk_use = false;
  int64_t limit = 0;     // keep only the first `limit` rows; 0 = all
  std::string temp_dir;  // spill directory; created when missing
};

struct SorterStats {
  int64_t rows_added = 0;
  int64_t spills = 0;              // runs written
  int64_t spilled_bytes = 0;       // bytes written to the spill file
  int64_t peak_memory_bytes = 0;   // largest in-memory footprint seen
  int64_t total_data_bytes = 0;    // keys and documents of every row added
};

class Sorter {
 public:
  explicit Sorter(SorterOptions options);
  ~Sorter();
  Sorter(const Sorter&) = delete;
  Sorter& operator=(const Sorter&) = delete;

  // REQUIRES: Done() not called yet.
  Status Add(std::string key, bson::BsonDoc doc);
  // Ends input. REQUIRES: called once, before Next().
  Status Done();
  // The next row in order into *doc; false at the end (after `limit` rows
  // in top-k mode).
  StatusWith<bool> Next(bson::BsonDoc* doc);

  // After Done(): true when Next() would return false.
  bool AtEnd() const {
    if (options_.limit > 0 && returned_ >= options_.limit) return true;
    return readers_.empty() ? mem_pos_ >= rows_.size() : heap_.empty();
  }

  const SorterStats& stats() const { return stats_; }
  bool used_disk() const { return stats_.spills > 0; }
  const SorterOptions& options() const { return options_; }

 private:
  struct Row {
    std::string key;
    bson::BsonDoc doc;
    uint64_t seq = 0;  // insertion order: the tiebreak
    int64_t bytes() const { return static_cast<int64_t>(key.size() + doc.size()); }
  };
  class RunReader;

  // Orders by (key, seq).
  static bool RowBefore(const Row& a, const Row& b);
  Status Spill();
  Status WriteAll(const std::string& bytes);
  Status StartMerge();
  // Merge order of two sources (reader index, or readers_.size() for the
  // in-memory rows): by current key, then by source.
  bool HeapBefore(size_t a, size_t b) const;

  SorterOptions options_;
  SorterStats stats_;
  uint64_t next_seq_ = 0;
  std::vector<Row> rows_;  // a max-heap by RowBefore in top-k mode
  int64_t memory_bytes_ = 0;
  // Top-k: rows sorting after this one cannot be among the first `limit`.
  bool has_cutoff_ = false;
  Row cutoff_;

  std::unique_ptr<SpillFile> file_;  // opened by the first spill
  std::vector<std::pair<int64_t, int64_t>> runs_;  // [begin, end) offsets

  // Merge state (after Done()).
  bool done_ = false;
  size_t mem_pos_ = 0;  // next in-memory row
  int64_t returned_ = 0;
  std::vector<std::unique_ptr<RunReader>> readers_;
  std::vector<size_t> heap_;  // sources: reader index, or readers_.size() = memory
};

}  // namespace tigerdoc::query
