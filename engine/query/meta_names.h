#pragma once
// The $meta names MongoDB 7 knows, and its refusal of text score metadata
// where no $text query produced it: shared by find projections and sorts
// (text_search.h) and the aggregation $meta expression and $sort.
//
// Thread-safety: constant data.

#include <string_view>

#include "engine/base/status.h"

namespace tigerdoc::query {

// textScore, randVal, searchScore, searchHighlights, geoNearDistance,
// geoNearPoint, recordId, indexKey, sortKey, searchScoreDetails,
// searchSortValues, vectorSearchScore (17308 for other names).
bool IsKnownMeta(std::string_view name);

// 40218 "query requires text score metadata, but it is not available".
Status TextScoreUnavailable();

}  // namespace tigerdoc::query
