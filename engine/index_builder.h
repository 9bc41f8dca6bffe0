#pragma once
// Index builds over existing documents, as MongoDB builds them: scan, sort
// the keys externally, load them in key order.
//
//   scan every shard (1,000 documents per read) ──▶ GenerateKeys per index
//        │ one Sorter per index: key  = u32be(table) ++ entry key
//        │                        row = {k: entry key, v: entry value}
//        │ past the memory budget a sorted run spills to <dbpath>/_tmp
//   merge in key order ──▶ unique index: two equal entry keys in a row are
//        │                 E11000, reported for the later document (scan
//        │                 order), as an insert of it would have been
//        ▼
//   load each table in key order: a WiredTiger bulk cursor into the fresh,
//   empty table (durable when it closes, storage/bulk_loader.h); if the
//   table cannot be opened for bulk (EBUSY), ordinary journaled inserts in
//   key order, 1,000 per transaction.
//
// The entries, multikey flags and multikey paths are exactly those the
// write path (AddIndexEntries) gives the same documents.
//
// Memory: the budget (maxIndexBuildMemoryUsageMegabytes, 200 by default,
// as in MongoDB) is shared equally by the indexes of one build; it counts
// the bytes of keys and rows held in memory, not allocator overhead.
//
// Thread-safety: BuildIndexesSorted REQUIRES the collection's write mutex
// held exclusively (no writer may change the collection meanwhile) and the
// specs' tables freshly created and seen by no one else. The memory
// parameters are process-wide atomics, like mongod's server parameters.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/catalog/catalog.h"
#include "engine/index/index_spec.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

// maxIndexBuildMemoryUsageMegabytes: MongoDB's default and lower bound.
inline constexpr int64_t kDefaultIndexBuildMemoryMegabytes = 200;
inline constexpr int64_t kMinIndexBuildMemoryMegabytes = 50;

int64_t MaxIndexBuildMemoryUsageMegabytes();
// BadValue (2) below kMinIndexBuildMemoryMegabytes, with mongod's message.
Status SetMaxIndexBuildMemoryUsageMegabytes(int64_t megabytes);
// Tests only (internalIndexBuildMemoryLimitBytesForTest): a budget in
// bytes that replaces the megabytes when > 0, so that tests can make a
// build spill with a few documents. 0 restores the megabytes.
int64_t IndexBuildMemoryLimitBytesForTest();
Status SetIndexBuildMemoryLimitBytesForTest(int64_t bytes);
// The budget in force, in bytes.
int64_t IndexBuildMemoryLimitBytes();

struct IndexBuildStats {
  int64_t documents = 0;    // documents scanned
  int64_t entries = 0;      // entries loaded, all indexes
  int64_t spills = 0;       // sorted runs written, all indexes
  int64_t sorted_bytes = 0; // bytes of the rows sorted, all indexes (what the budget counts)
  int64_t bulk_tables = 0;  // tables loaded through a bulk cursor
};

// Fills the (empty) tables of `specs` with the entries of every document
// of `coll`, and sets their multikey flags and paths. `temp_dir`: where
// sorted runs spill ("" = the system temporary directory). Progress shows
// in currentOp and the log. Errors: the key generator's (171, 16766,
// 16746), DuplicateKey (11000) for a unique index, storage and spill
// errors; the caller then drops the tables.
Status BuildIndexesSorted(storage::StorageEngine& storage, const catalog::CollectionEntry& coll,
                          std::vector<index::IndexSpec>& specs, const std::string& temp_dir,
                          IndexBuildStats* stats = nullptr);

}  // namespace tigerdoc::engine
