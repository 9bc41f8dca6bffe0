#pragma once
// SpillFile: the anonymous temporary file blocking operators spill to with
// allowDiskUse (the Sorter's sorted runs, $setWindowFields' partitions).
//
// The file is unnamed (O_TMPFILE, or mkstemp + unlink at once) in the
// directory given to Open (<dbpath>/_tmp for the server; created when
// missing; empty means the system temporary directory), so a crash leaves
// nothing behind; the destructor closes it. Bytes are appended at the end
// and read back at any offset.
//
// Ownership and thread-safety: owned by one operator, used by one thread at
// a time; Append and Truncate are not safe against concurrent ReadAt.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::query {

class SpillFile {
 public:
  static StatusWith<std::unique_ptr<SpillFile>> Open(const std::string& dir);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `bytes`; the offset they start at is size() before the call.
  Status Append(std::string_view bytes);
  // Reads exactly `n` bytes at `offset` into out[0, n). REQUIRES:
  // offset + n <= size().
  Status ReadAt(int64_t offset, size_t n, char* out) const;
  // Empties the file (and gives its blocks back), for reuse.
  Status Truncate();

  int64_t size() const { return size_; }

 private:
  explicit SpillFile(int fd) : fd_(fd) {}
  int fd_;
  int64_t size_ = 0;
};

}  // namespace tigerdoc::query
