#include "engine/storage/wt_error.h"

#include <wiredtiger.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tigerdoc::storage {

Status WtToStatus(int ret, std::string_view context) {
  switch (ret) {
    case 0:
      return Status::OK();
    case WT_DUPLICATE_KEY:
      return Status(ErrorCode::kDuplicateKey, "E11000 duplicate key error");
    case WT_ROLLBACK:
      return Status(ErrorCode::kWriteConflict, std::string(kWriteConflictMessage));
    case WT_CACHE_FULL:
      return Status(ErrorCode::kExceededMemoryLimit,
                    "WiredTiger cache is full: " + std::string(context));
    case WT_NOTFOUND:
      return Status(ErrorCode::kNoSuchKey, "key not found: " + std::string(context));
    case WT_PANIC:
      // The event handler normally exits first; a panic seen by another
      // thread lands here.
      ExitOnPanic(context);
    case ENOSPC:
    case EDQUOT:
      // Reached only when the disk filled behind the DiskSpaceGuard's back
      // (another process, or --diskReserveMB 0) on a path that returns the
      // error instead of panicking, e.g. creating a table.
      return Status(ErrorCode::kOutOfDiskSpace,
                    std::string(context) + ": " + wiredtiger_strerror(ret));
    default:
      return Status(ErrorCode::kInternalError,
                    std::string(context) + ": " + wiredtiger_strerror(ret));
  }
}

void ExitOnPanic(std::string_view context) {
  // WiredTiger has logged the cause (e.g. "fatal log failure: No space left
  // on device") just before. Exit at once, without closing the connection
  // (it is unusable) and without a core dump: nothing here is a bug of
  // ours, and the next start recovers every acknowledged write from the
  // journal (engine/README.md, "Full disk").
  std::fprintf(stderr,
               "tigerdoc: fatal: WiredTiger panicked during %.*s; exiting. Restart the server "
               "(after freeing disk space if the cause above is ENOSPC): recovery from the "
               "journal keeps every acknowledged write.\n",
               static_cast<int>(context.size()), context.data());
  std::fflush(stderr);
  std::_Exit(kPanicExitCode);
}

}  // namespace tigerdoc::storage
