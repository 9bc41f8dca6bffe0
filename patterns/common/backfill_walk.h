#pragma once
// A pattern's walk over a collection's existing documents (the backfill when
// the pattern is attached by create/collMod, the recount of validate), with
// its progress shown as mongod shows long work: currentOp's
// progress: {done, total} and "progress meter" log lines
// (engine/progress_meter.h), named "Pattern backfill: <pattern>".
//
// Thread-safety: as ShardedRecordStore::ForEachDocument.

#include <functional>
#include <string_view>

#include "engine/catalog/catalog.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::patterns {

// ShardedRecordStore::ForEachDocument over coll.store, counting progress.
Status ForEachDocumentWithProgress(storage::Session& session, const catalog::CollectionEntry& coll,
                                   std::string_view pattern,
                                   const std::function<Status(int shard, const bson_t* doc)>& fn);

}  // namespace tigerdoc::patterns
