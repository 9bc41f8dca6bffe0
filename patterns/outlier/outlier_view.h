#pragma once
// The outlier's optional read-only view: the parents with the whole array
// (embedded part followed by the overflow chunks' items in seq order).
//
//   $set    __outlierChunkIds: flagged ? [{parentId: _id, seq: 0}, ..., {.., seq: k-1}]
//                              : missing
//             k = ceil((countField - size(embedded)) / chunk): chunks are packed
//   $lookup from overflow, localField __outlierChunkIds, foreignField _id
//             -> point reads of exactly the parent's chunks; an unflagged
//                parent looks up no chunk id (missing -> null, no such _id)
//   $set    path: flagged ? embedded ++ items of the chunks sorted by seq : path
//   $unset  the two helper fields
// It needs countField (the number of chunks comes from it).
//
// Thread-safety: pure functions.

#include "engine/bson/bson_doc.h"
#include "patterns/outlier/outlier_config.h"

namespace tigerdoc::patterns::outlier {

// The view's pipeline (an array document). REQUIRES: !config.count_field.empty().
bson::BsonDoc ViewPipeline(const OutlierConfig& config);

}  // namespace tigerdoc::patterns::outlier
