#pragma once
// The subset pattern (issue 13): option `subset: {parent, localField,
// foreignField, as, sort, limit, project, counters}` on a child collection
// (patterns/README.md). The parent (same database) keeps its best `limit`
// children at `as` and exact counters over all of them, rewritten in the
// transaction of every child write (subset_hook.h, subset_sync.h); direct
// writes to those parent paths are refused by a guard on the parent
// (Pattern::GuardFor); {resyncSubset: "<child>", filter, batchSize}
// rebuilds parents from the children (subset_resync.h). The index
// {localField: 1, <sort>, _id: 1} is built with the option.
//
// Catalog config (`patterns.subset`): the canonical SubsetConfig
// (subset_config.h). On disk: "<ident>-subset" (subset_sync.h).

#include <memory>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns::subset {

inline constexpr char kResyncCommand[] = "resyncSubset";

std::unique_ptr<engine::Pattern> MakeSubsetPattern();

}  // namespace tigerdoc::patterns::subset
