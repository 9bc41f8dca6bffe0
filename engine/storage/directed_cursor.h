#pragma once
// DirectedCursor: iteration over a key range [lower, upper) of one table in
// either direction: forward (ascending keys, a storage::Cursor) or backward
// (descending keys: from the last key below `upper`, or the table's last
// key when `upper` is empty, down to `lower`). Backward scans serve
// {$natural: -1}, record-key orders descending and index scans read against
// the index's direction (explain's `direction: "backward"`).
//
// Move-only; must not outlive its Session. Key/value views are valid until
// the next call to Next() or destruction. Thread-safety: as Cursor.

#include <optional>
#include <string>
#include <string_view>

#include "engine/storage/storage_engine.h"

namespace tigerdoc::storage {

enum class ScanDirection { kForward, kBackward };

class DirectedCursor {
 public:
  // Opens the scan on `session` (a cached cursor of the table).
  static StatusWith<DirectedCursor> Open(Session& session, std::string_view table,
                                         std::string_view lower, std::string_view upper,
                                         ScanDirection direction);
  ~DirectedCursor();
  DirectedCursor(DirectedCursor&& other) noexcept;
  DirectedCursor& operator=(DirectedCursor&&) = delete;
  DirectedCursor(const DirectedCursor&) = delete;

  // Advances to the next record in the scan's direction. False at the end
  // of the range (and on every later call); errors through *status.
  bool Next(Status* status);
  std::string_view key() const;
  std::string_view value() const;

 private:
  DirectedCursor() = default;
  bool NextBackward(Status* status);

  std::optional<Cursor> forward_;
  // Backward scans: the raw cursor and its bounds.
  __wt_cursor* backward_ = nullptr;
  std::string lower_;
  std::string upper_;
  bool positioned_ = false;
  bool exhausted_ = false;
  std::string_view key_;
  std::string_view value_;
};

}  // namespace tigerdoc::storage
