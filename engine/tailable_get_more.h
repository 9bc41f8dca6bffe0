#pragma once
// getMore of a tailable cursor on a capped collection (find with
// tailable: true): each call resumes after the last record read; an
// awaitData cursor with nothing new waits up to the getMore's maxTimeMS
// (1 s when not given, as MongoDB's maxAwaitTimeMS default) for a commit
// that inserts into the collection, instead of the client polling. The
// cursor stays open at the end of the collection; it dies with 136
// CappedPositionLost when the record it last read was removed to make room.
//
// Thread-safety: runs on the thread of the getMore that pinned `cursor`.

#include "engine/ops.h"
#include "engine/query/cursor_manager.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

// REQUIRES: cursor->executor is a tailable executor (FindSpec::tailable).
StatusWith<CursorBatch> TailableGetMore(const GetMoreParams& params,
                                        query::CursorManager::Pin& cursor,
                                        storage::StorageEngine& storage);

}  // namespace tigerdoc::engine
