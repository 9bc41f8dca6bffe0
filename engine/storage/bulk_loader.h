#pragma once
// BulkLoader: fills a freshly created, empty table through a WiredTiger
// bulk cursor (index builds, engine/index_build/): keys must come in
// strictly increasing memcmp order, and nothing else may open the table
// until Finish().
//
// Bulk inserts bypass transactions and the journal: WiredTiger writes the
// pages straight to the table's file and, when the bulk cursor closes,
// checkpoints that one file (its blocks and its metadata entry, with a log
// record so recovery sees the file complete). So once Finish() returns OK
// the rows survive kill -9 without any commit; a crash before that leaves
// a partial table, which the caller must not publish (the start-up reaper
// drops tables of an index the catalog does not name).
//
// Errors: InternalError (EBUSY) when the table is open elsewhere or not
// empty, InternalError (EINVAL) for a key not after the previous one,
// OutOfDiskSpace (14031), checked at open and every few thousand rows.
//
// Ownership and thread-safety: borrows the Session (which must outlive it
// and not be in a transaction); one thread at a time. The destructor closes
// an unfinished cursor (what was loaded stays; the caller drops the table).

#include <memory>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::storage {

class BulkLoader {
 public:
  // `engine` is `session`'s (for the free-space check).
  static StatusWith<std::unique_ptr<BulkLoader>> Open(StorageEngine& engine, Session& session,
                                                      std::string_view table);
  ~BulkLoader();
  BulkLoader(const BulkLoader&) = delete;
  BulkLoader& operator=(const BulkLoader&) = delete;

  // REQUIRES: `key` sorts after every key appended before; Finish() not called.
  Status Append(std::string_view key, std::string_view value);
  // Closes the bulk cursor: the table is then complete and durable.
  Status Finish();

 private:
  BulkLoader(StorageEngine* engine, __wt_cursor* cursor, std::string table)
      : engine_(engine), cursor_(cursor), table_(std::move(table)) {}
  StorageEngine* engine_;
  __wt_cursor* cursor_;
  std::string table_;
  int64_t appended_ = 0;
};

}  // namespace tigerdoc::storage
