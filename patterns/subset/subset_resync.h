#pragma once
// ResyncParents: rebuilds the subset arrays and counters of the parents
// matching a filter (all when empty) from the children, in batches: each
// batch of parents is one write unit (re-read, recount their children
// through the index, rewrite the counter rows and the parents), so it runs
// beside concurrent child writes (they conflict on the parent and retry)
// and a failure loses at most the batch in progress. What
// {resyncSubset: "<child>", filter, batchSize} runs; use it after collMod
// adds the option to a collection that already has children.
//
// Progress: `on_batch` is called after every batch with the totals so far
// (for currentOp); a non-OK status from it stops the resync (killOp).
//
// Thread-safety: runs on the caller's thread with its own session.

#include <functional>
#include <memory>

#include "engine/base/status.h"
#include "engine/catalog/catalog.h"
#include "engine/storage/storage_engine.h"
#include "patterns/subset/subset_hook.h"

namespace tigerdoc::patterns::subset {

struct ResyncProgress {
  int64_t parents_matched = 0;  // parents the filter selected, so far
  int64_t parents_updated = 0;  // of those, parents with a key, rewritten
  int64_t batches = 0;
};

Status ResyncParents(catalog::Catalog& catalog, storage::StorageEngine& storage,
                     std::shared_ptr<catalog::CollectionEntry> child, const SubsetHook& hook,
                     const bson_t* filter, int64_t batch_size,
                     const std::function<Status(const ResyncProgress&)>& on_batch,
                     ResyncProgress* progress);

}  // namespace tigerdoc::patterns::subset
