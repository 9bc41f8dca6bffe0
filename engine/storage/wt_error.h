#pragma once
// WtToStatus: the one mapping from WiredTiger return codes to Status.
//
//   0                 -> OK
//   WT_DUPLICATE_KEY  -> DuplicateKey (11000), bare message; callers that
//                        know the namespace and key replace it
//   WT_ROLLBACK       -> WriteConflict (112); the caller rolls back and retries
//   WT_CACHE_FULL     -> ExceededMemoryLimit (146)
//   WT_NOTFOUND       -> NoSuchKey (4); most callers treat it as absence
//                        before ever calling this
//   WT_PANIC          -> ExitOnPanic(): the connection is unusable, so the
//                        process exits and the next start recovers
//   ENOSPC, EDQUOT    -> OutOfDiskSpace (14031)
//   anything else     -> InternalError (1) with wiredtiger_strerror(ret)
//
// Internal to engine/storage (it takes WiredTiger's int codes, but does not
// expose <wiredtiger.h>). Thread-safe.

#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::storage {

// `context` names the operation for the message, e.g. "insert into c3-s0".
Status WtToStatus(int ret, std::string_view context);

// Prints why and exits the process with kPanicExitCode (no core dump, no
// clean-up: WiredTiger's state is unusable). Called from the event handler
// when WiredTiger reports WT_PANIC and by WtToStatus.
[[noreturn]] void ExitOnPanic(std::string_view context);

// mongod's ExitCode::abrupt, which it uses after a fatal assertion.
inline constexpr int kPanicExitCode = 14;

// MongoDB's message for WriteConflict, spelled as the server does.
inline constexpr std::string_view kWriteConflictMessage =
    "WriteConflict error: this operation conflicted with another operation. Please retry your "
    "operation or multi-document transaction.";

}  // namespace tigerdoc::storage
