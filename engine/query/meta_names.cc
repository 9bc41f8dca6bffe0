// $meta names; see meta_names.h.

#include "engine/query/meta_names.h"

namespace tigerdoc::query {

bool IsKnownMeta(std::string_view name) {
  static constexpr const char* kKnown[] = {
      "textScore",  "randVal",        "searchScore", "searchHighlights", "geoNearDistance",
      "geoNearPoint", "recordId",     "indexKey",    "sortKey",          "searchScoreDetails",
      "searchSortValues", "vectorSearchScore"};
  for (const char* known : kKnown) {
    if (name == known) return true;
  }
  return false;
}

Status TextScoreUnavailable() {
  return Status(static_cast<ErrorCode>(40218),
                "query requires text score metadata, but it is not available");
}

}  // namespace tigerdoc::query
