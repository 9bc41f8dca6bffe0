#pragma once
// DocumentBuffer: a sequence of documents appended once, then read back by
// position, held in memory up to a byte limit and in a spill file past it.
// Users: $setWindowFields (one partition at a time: window functions read
// the rows around the current one) and $merge (its whole input, read before
// any write, so the pipeline never reads what it wrote).
//
//   Add() ─► in memory while the charged bytes (twice the BSON size plus 64
//            per document, as MongoDB's caches charge) stay under
//            max_memory_bytes
//              │ past it?
//              ├─ spilling not allowed: the `over_limit` Status given
//              └─ else every document goes to a SpillFile in temp_dir
//                 (<dbpath>/_tmp); memory keeps one 8-byte offset per
//                 document, a write buffer and a read buffer
//   Get(i) ─► the in-memory document, or a pread through the read buffer
//             (kReadBufferBytes, or one document when larger): reads in
//             position order touch the file once per buffer
//
// Clear() starts over and keeps the spill file for reuse (truncated), so a
// stage opens at most one file.
//
// Ownership and thread-safety: owned by one stage and used by its thread
// only; Get is const but moves the read buffer.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/agg/value.h"
#include "engine/base/status.h"
#include "engine/query/spill_file.h"

namespace tigerdoc::agg {

class DocumentBuffer {
 public:
  static constexpr size_t kReadBufferBytes = 1024 * 1024;
  static constexpr size_t kWriteBufferBytes = 1024 * 1024;

  struct Options {
    size_t max_memory_bytes = 0;
    bool spill_allowed = false;
    std::string temp_dir;  // empty: the system temporary directory
    Status over_limit;     // returned past the limit when !spill_allowed
  };
  explicit DocumentBuffer(Options options) : options_(std::move(options)) {}

  // Empties the buffer (the spill file stays open, truncated).
  Status Clear();
  // Appends the next document. REQUIRES: not Finish()ed since Clear().
  Status Add(bson::BsonDoc doc);
  // Ends the input (flushes buffered spill writes).
  Status Finish();
  // Document `i` as a document value. REQUIRES: Finish()ed, i < size().
  StatusWith<Value> Get(size_t i) const;

  size_t size() const { return spilled_ ? offsets_.size() : docs_.size(); }
  // True when the current contents are on disk.
  bool spilled() const { return spilled_; }
  // How many times since construction the contents went to disk.
  int64_t spills() const { return spills_; }

 private:
  Status SpillInMemoryDocs();
  Status AppendToFile(const bson::BsonDoc& doc);

  Options options_;

  // In memory (not spilled).
  std::vector<Value> docs_;
  size_t memory_bytes_ = 0;

  // Spilled: document i is file bytes [offsets_[i], offsets_[i + 1]) (the
  // last one ends at the end of the file).
  bool spilled_ = false;
  bool finished_ = false;
  int64_t spills_ = 0;
  std::unique_ptr<query::SpillFile> file_;
  std::vector<int64_t> offsets_;
  std::string write_buffer_;
  mutable std::string read_buffer_;
  mutable int64_t read_buffer_offset_ = 0;  // file offset of read_buffer_[0]
};

}  // namespace tigerdoc::agg
