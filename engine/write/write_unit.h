#pragma once
// RunWriteUnit: runs `body` inside one WiredTiger transaction on `session`
// and commits it, retrying the whole unit when WiredTiger reports a write
// conflict (WriteConflict, 112), so that concurrent writers to one document
// are serialised and lose nothing; conflicts never reach the client.
// `body` must be safe to re-run: it re-reads what it modifies.
// On a view of a client's transaction (storage::TransactionBinding) the unit
// joins that transaction and a conflict is returned, not retried.

#include <functional>

#include "engine/base/status.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

Status RunWriteUnit(storage::Session& session, const std::function<Status()>& body);

}  // namespace tigerdoc::engine
