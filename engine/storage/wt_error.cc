#include "engine/storage/wt_error.h"

#include <wiredtiger.h>

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
      // WiredTiger has already logged the cause through its event handler.
      std::fprintf(stderr, "fatal: WiredTiger panic during %.*s\n",
                   static_cast<int>(context.size()), context.data());
      std::abort();
    default:
      return Status(ErrorCode::kInternalError,
                    std::string(context) + ": " + wiredtiger_strerror(ret));
  }
}

}  // namespace tigerdoc::storage
